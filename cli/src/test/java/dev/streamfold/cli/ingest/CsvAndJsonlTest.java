package dev.streamfold.cli.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.api.v1.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvAndJsonlTest {
  static final Map<String, String> TYPES = Map.of("date", "TIMESTAMP", "delay", "INT", "distance", "INT",
      "origin", "STRING", "destination", "STRING", "ok", "BOOLEAN", "ratio", "DOUBLE");

  @TempDir
  Path dir;

  List<Event> events(Path file, FileFormat format, String key, String time) throws IOException {
    List<Event> events = new ArrayList<>();
    EventMapper mapper = new EventMapper(key, time);
    try (RowReader reader = RowReader.open(file, format, TYPES)) {
      for (ObjectNode row = reader.next(); row != null; row = reader.next()) {
        events.add(mapper.toEvent(row, reader.rowNumber(), reader.where()));
      }
    }
    return events;
  }

  @Test
  void csvRowsBecomeTypedEventsWithKeyAndTime() throws IOException {
    Path file = Files.writeString(dir.resolve("f.csv"), "date,delay,distance,origin,destination,note\n"
        + "2001-01-01T00:01:00,14,405,MSY,MCO,plain\n"
        + "\n"
        + "978307320000,-3,1020,ATL,LGA,\"with, comma and \"\"quotes\"\"\"\n"
        + "2001-01-01 00:03:00,,7,SFO,LAX,\"two\nlines\"\n");
    List<Event> events = events(file, FileFormat.CSV, "origin", "date");
    assertThat(events).hasSize(3);
    assertThat(events.get(0).getKey()).isEqualTo("MSY");
    assertThat(events.get(0).getEventTimeMs()).isEqualTo(978_307_260_000L);
    assertThat(events.get(0).getPayloadJson()).isEqualTo("{\"date\":\"2001-01-01T00:01:00\",\"delay\":14,"
        + "\"distance\":405,\"origin\":\"MSY\",\"destination\":\"MCO\",\"note\":\"plain\"}");
    assertThat(events.get(1).getEventTimeMs()).isEqualTo(978_307_320_000L);
    assertThat(events.get(1).getPayloadJson()).contains("\"note\":\"with, comma and \\\"quotes\\\"\"");
    assertThat(events.get(2).getEventTimeMs()).isEqualTo(978_307_380_000L);
    assertThat(events.get(2).getPayloadJson()).contains("\"delay\":null").contains("\"note\":\"two\\nlines\"");
  }

  @Test
  void csvMissingKeyFieldNamesTheRowAndField() throws IOException {
    Path file = Files.writeString(dir.resolve("f.csv"), "date,delay,origin\n2001-01-01T00:01:00,1,ATL\n"
        + "2001-01-01T00:02:00,2,\n");
    assertThatThrownBy(() -> events(file, FileFormat.CSV, "origin", "date"))
        .isInstanceOf(InputException.class)
        .hasMessageContaining("row 2 (line 3)")
        .hasMessageContaining("key field 'origin' is empty");
    assertThatThrownBy(() -> events(file, FileFormat.CSV, "carrier", "date"))
        .isInstanceOf(InputException.class)
        .hasMessageContaining("f.csv row 1 (line 2)")
        .hasMessageContaining("key field 'carrier' is missing; fields: date, delay, origin")
        .extracting(e -> ((InputException) e).row()).isEqualTo(1L);
  }

  @Test
  void csvValueOfTheWrongTypeAndBadRecordsAreNamed() throws IOException {
    Path bad = Files.writeString(dir.resolve("bad.csv"), "origin,delay\nATL,12\nSFO,late\n");
    assertThatThrownBy(() -> events(bad, FileFormat.CSV, "origin", null))
        .hasMessageContaining("row 2 (line 3): column 'delay' value 'late' is not of type INT");
    Path ragged = Files.writeString(dir.resolve("ragged.csv"), "origin,delay\nATL,12,3\n");
    assertThatThrownBy(() -> events(ragged, FileFormat.CSV, "origin", null))
        .hasMessageContaining("row 1 (line 2): 3 fields, but the header has 2");
    Path open = Files.writeString(dir.resolve("open.csv"), "origin,delay\n\"ATL,12\n");
    assertThatThrownBy(() -> events(open, FileFormat.CSV, "origin", null))
        .hasMessageContaining("row 1 (line 2): a quoted field is not closed");
  }

  /** Read every row; bad rows as their messages (what --skip-bad does). */
  List<String> rowsOrErrors(Path file, FileFormat format, Map<String, String> types) throws IOException {
    List<String> out = new ArrayList<>();
    try (RowReader reader = RowReader.open(file, format, types)) {
      while (true) {
        try {
          ObjectNode row = reader.next();
          if (row == null) {
            return out;
          }
          out.add(reader.rowNumber() + " " + row);
        } catch (InputException bad) {
          out.add("bad " + bad.getMessage());
        }
      }
    }
  }

  @Test
  void aStrayQuoteIsOneBadRowAndTheRowsItWouldSwallowAreReadOnTheirOwn() throws IOException {
    // a lenient reader took f and g into e's field: 2 rows lost, nothing reported
    Path file = Files.writeString(dir.resolve("stray.csv"), "id,note\na,ok\ne,\"broken\nf,ok\ng,\"q\nh,last\n"
        + "i,\"5\" screen\n");
    List<String> rows = rowsOrErrors(file, FileFormat.CSV, Map.of());
    assertThat(rows).hasSize(6);
    assertThat(rows.get(0)).isEqualTo("1 {\"id\":\"a\",\"note\":\"ok\"}");
    assertThat(rows.get(1)).startsWith("bad " + file + " row 2 (line 3): a quoted field ends at '\"' followed by 'q'");
    assertThat(rows.get(2)).isEqualTo("3 {\"id\":\"f\",\"note\":\"ok\"}");
    // g's quote runs on to the quote before i's 5
    assertThat(rows.get(3)).startsWith("bad " + file + " row 4 (line 5): a quoted field ends at '\"' followed by '5'");
    assertThat(rows.get(4)).isEqualTo("5 {\"id\":\"h\",\"note\":\"last\"}");
    assertThat(rows.get(5)).startsWith("bad " + file + " row 6 (line 7): a quoted field ends at '\"' followed by ' '");
  }

  @Test
  void csvWithABomAndAQuotedHeaderNamesItsFieldsWithoutQuotes() throws IOException {
    Path file = dir.resolve("bom.csv");
    Files.write(file, ("\uFEFF\"origin\",\"delay\"\r\nATL,1\r\n\"S\r\nFO\",2\r\n").getBytes(StandardCharsets.UTF_8));
    List<Event> events = events(file, FileFormat.CSV, "origin", null);
    // a line break inside a quoted field is kept as written (it was always \n)
    assertThat(events).extracting(Event::getKey).containsExactly("ATL", "S\r\nFO");
    assertThat(events.get(0).getPayloadJson()).isEqualTo("{\"origin\":\"ATL\",\"delay\":1}");
  }

  @Test
  void aCsvHeaderNamingAFieldTwiceIsRefused() throws IOException {
    Path file = Files.writeString(dir.resolve("twice.csv"), "id,n,n\nd1,1,2\n");
    assertThatThrownBy(() -> events(file, FileFormat.CSV, "id", null)).isInstanceOf(InputException.class)
        .hasMessage(file + " line 1: header fields 2 and 3 are both named 'n': an event holds one value per field;"
            + " rename one");
  }

  @Test
  void csvNumbersAreDecimalAndTimestampsMayBeEpochMilliseconds() throws IOException {
    Path file = Files.writeString(dir.resolve("num.csv"), "origin,delay,ratio,date\n"
        + "ATL,+3,1.5e2,978307260000\nSFO,-0,-.5,2001-01-01T00:01:00\n");
    List<Event> events = events(file, FileFormat.CSV, "origin", "date");
    assertThat(events.get(0).getPayloadJson()).isEqualTo("{\"origin\":\"ATL\",\"delay\":3,\"ratio\":150.0,"
        + "\"date\":978307260000}");
    assertThat(events).extracting(Event::getEventTimeMs).containsOnly(978_307_260_000L);
    for (String[] bad : new String[][] {{"delay", "\u0663"}, {"delay", "0x10"}, {"ratio", "1d"}, {"ratio", "0x1p3"},
        {"ratio", "NaN"}, {"ratio", "Infinity"}}) {
      Path f = Files.writeString(dir.resolve("bad.csv"), "origin," + bad[0] + "\nATL," + bad[1] + "\n");
      assertThatThrownBy(() -> events(f, FileFormat.CSV, "origin", null)).as(bad[1])
          .hasMessageContaining("column '" + bad[0] + "' value '" + bad[1] + "' is not of type");
    }
    Path huge = Files.writeString(dir.resolve("huge.csv"), "origin,ratio\nATL,1.8e309\n");
    assertThatThrownBy(() -> events(huge, FileFormat.CSV, "origin", null))
        .hasMessageContaining("column 'ratio' value '1.8e309' is beyond the range of type DOUBLE");
  }

  @Test
  void aLineThatIsNotUtf8FailsWhenItIsReadAfterEveryLineBeforeIt() throws IOException {
    for (FileFormat format : List.of(FileFormat.CSV, FileFormat.JSONL)) {
      Path file = dir.resolve("latin." + format.name().toLowerCase(java.util.Locale.ROOT));
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      if (format == FileFormat.CSV) {
        bytes.write("origin\n".getBytes(StandardCharsets.UTF_8));
      }
      for (int i = 0; i < 20_000; i++) {
        bytes.write((format == FileFormat.CSV ? "ATL\n" : "{\"origin\":\"ATL\"}\n").getBytes(StandardCharsets.UTF_8));
      }
      bytes.write((format == FileFormat.CSV ? "Z\u00fcrich\n" : "{\"origin\":\"Z\u00fcrich\"}\n")
          .getBytes(StandardCharsets.ISO_8859_1));
      Files.write(file, bytes.toByteArray());
      long line = format == FileFormat.CSV ? 20_002 : 20_001;
      try (RowReader reader = RowReader.open(file, format, Map.of())) {
        for (int i = 1; i <= 20_000; i++) {
          assertThat(reader.next()).as(format + " row " + i).isNotNull();
        }
        assertThatThrownBy(reader::next).isInstanceOf(IOException.class)
            .hasMessage(file + " line " + line + ": not UTF-8 text (a malformed byte sequence); convert the file to UTF-8");
      }
    }
  }

  @Test
  void anEventTimeOfEpochZeroOrBeyondALongIsRefusedNotReplaced() throws IOException {
    // epoch 0 became the append time, silently; 99999999999999999999 wrapped to another instant
    Path file = Files.writeString(dir.resolve("t.jsonl"), "{\"origin\":\"A\",\"t\":0}\n"
        + "{\"origin\":\"B\",\"t\":\"1970-01-01T00:00:00Z\"}\n{\"origin\":\"C\",\"t\":99999999999999999999}\n"
        + "{\"origin\":\"D\",\"t\":1}\n");
    List<String> problems = new ArrayList<>();
    List<Long> times = new ArrayList<>();
    EventMapper mapper = new EventMapper("origin", "t");
    try (RowReader reader = RowReader.open(file, FileFormat.JSONL, Map.of())) {
      for (ObjectNode row = reader.next(); row != null; row = reader.next()) {
        try {
          times.add(mapper.toEvent(row, reader.rowNumber(), reader.where()).getEventTimeMs());
        } catch (InputException bad) {
          problems.add(bad.getMessage());
        }
      }
    }
    assertThat(times).containsExactly(1L);
    assertThat(problems.get(0)).endsWith("time field 't': value '0' is 1970-01-01T00:00:00Z (epoch 0), which the"
        + " ingestion API reads as no event time (the append time would be stored instead); give the instant 1 ms later");
    assertThat(problems.get(1)).contains("value '1970-01-01T00:00:00Z' is 1970-01-01T00:00:00Z (epoch 0)");
    assertThat(problems.get(2)).contains("value 99999999999999999999 is beyond epoch milliseconds' range");
  }

  @Test
  void aJsonLineWithAnythingAfterItsObjectIsABadRow() throws IOException {
    Path file = Files.writeString(dir.resolve("two.jsonl"), "{\"origin\":\"A\"} {\"origin\":\"B\"}\n"
        + "{\"origin\":\"C\"}garbage\n{\"origin\":\"D\"}  \n");
    List<String> rows = rowsOrErrors(file, FileFormat.JSONL, Map.of());
    assertThat(rows.get(0)).startsWith("bad " + file + " row 1 (line 1): not valid JSON");
    assertThat(rows.get(1)).startsWith("bad " + file + " row 2 (line 2): not valid JSON");
    assertThat(rows.get(2)).isEqualTo("3 {\"origin\":\"D\"}");
  }

  @Test
  void badTimeValueIsNamed() throws IOException {
    Path file = Files.writeString(dir.resolve("f.csv"), "origin,date\nATL,yesterday\n");
    assertThatThrownBy(() -> events(file, FileFormat.CSV, "origin", "date"))
        .hasMessageContaining("row 1 (line 2): time field 'date': value 'yesterday' is not epoch milliseconds");
  }

  @Test
  void jsonlRowsKeepTheirTypes() throws IOException {
    Path file = Files.writeString(dir.resolve("f.jsonl"),
        "{\"origin\":\"ATL\",\"delay\":5,\"date\":978307260000,\"ok\":true}\n\n"
            + "{\"origin\":7,\"delay\":1.5,\"date\":\"2001-01-01T00:01:00Z\"}\n"
            + "{\"origin\":\"SFO\",\"date\":\"2001-01-01T01:01:00+01:00\"}\n");
    List<Event> events = events(file, FileFormat.JSONL, "origin", "date");
    assertThat(events).extracting(Event::getKey).containsExactly("ATL", "7", "SFO");
    assertThat(events).extracting(Event::getEventTimeMs).containsOnly(978_307_260_000L);
    assertThat(events.get(0).getPayloadJson()).isEqualTo("{\"origin\":\"ATL\",\"delay\":5,\"date\":978307260000,\"ok\":true}");
  }

  @Test
  void jsonlLineThatIsNotAnObjectIsRejected() throws IOException {
    Path file = Files.writeString(dir.resolve("f.jsonl"), "{\"origin\":\"ATL\"}\n[1,2]\n");
    assertThatThrownBy(() -> events(file, FileFormat.JSONL, "origin", null))
        .hasMessageContaining("row 2 (line 2): not a JSON object");
    Path broken = Files.writeString(dir.resolve("b.jsonl"), "{\"origin\":\n");
    assertThatThrownBy(() -> events(broken, FileFormat.JSONL, "origin", null))
        .hasMessageContaining("row 1 (line 1): not valid JSON");
    Path nullKey = Files.writeString(dir.resolve("n.jsonl"), "{\"origin\":null}\n");
    assertThatThrownBy(() -> events(nullKey, FileFormat.JSONL, "origin", null))
        .hasMessageContaining("key field 'origin' is missing (null)");
  }

  @Test
  void withoutTimeFieldTheEventTimeIsLeftToTheServer() throws IOException {
    Path file = Files.writeString(dir.resolve("f.jsonl"), "{\"origin\":\"ATL\"}\n");
    assertThat(events(file, FileFormat.JSONL, "origin", null).get(0).getEventTimeMs()).isZero();
  }

  @Test
  void formatFromExtension() {
    assertThat(FileFormat.of(Path.of("a.CSV"))).isEqualTo(FileFormat.CSV);
    assertThat(FileFormat.of(Path.of("a.ndjson"))).isEqualTo(FileFormat.JSONL);
    assertThat(FileFormat.of(Path.of("flights-3m.parquet"))).isEqualTo(FileFormat.PARQUET);
    assertThatThrownBy(() -> FileFormat.of(Path.of("a.txt"))).hasMessageContaining("--format");
  }

  @Test
  void missingFileIsNamed() {
    assertThatThrownBy(() -> RowReader.open(dir.resolve("nope.csv"), FileFormat.CSV, Map.of()))
        .hasMessageContaining("nope.csv");
  }

  /** A lone surrogate escape read from JSON Lines is refused even without the stream's columns (it was sent as '?'). */
  @Test
  void aLoneSurrogateEscapeIsRefusedWithoutColumnsToo() throws IOException {
    Path file = Files.writeString(dir.resolve("s.jsonl"), "{\"k\":\"a\",\"s\":\"x\\ud800y\"}\n");
    assertThatThrownBy(() -> events(file, FileFormat.JSONL, "k", null)).isInstanceOf(InputException.class)
        .hasMessage(file + " row 1 (line 1): field 'payload_json' holds a lone UTF-16 surrogate U+D800 at character 15,"
            + " which is no character and which UTF-8 cannot encode (it would be sent as '?')");
    Path key = Files.writeString(dir.resolve("k.jsonl"), "{\"k\":\"a\\udc00\"}\n");
    assertThatThrownBy(() -> events(key, FileFormat.JSONL, "k", null)).isInstanceOf(InputException.class)
        .hasMessageContaining("field 'key' holds a lone UTF-16 surrogate U+DC00");
    Path pair = Files.writeString(dir.resolve("p.jsonl"), "{\"k\":\"\\ud83d\\ude00\"}\n");
    assertThat(events(pair, FileFormat.JSONL, "k", null).get(0).getKey()).isEqualTo("\ud83d\ude00");
  }

  /** A number beyond a double's range was written into the payload as the text "Infinity". */
  @Test
  void aJsonNumberBeyondADoubleIsABadRow() throws IOException {
    Path file = Files.writeString(dir.resolve("big.jsonl"), "{\"k\":\"a\",\"x\":{\"y\":[1,-1e400]}}\n");
    assertThatThrownBy(() -> events(file, FileFormat.JSONL, "k", null)).isInstanceOf(InputException.class)
        .hasMessage(file + " row 1 (line 1): field 'x.y[1]' holds a number beyond the range of a 64-bit floating-point"
            + " number (at most about 1.8e308)");
  }

  /** A CR alone made a CR-only file one header record and its rows disappear; inside a value it stayed silently. */
  @Test
  void aCarriageReturnOutsideQuotesIsMalformed() throws IOException {
    Path mac = Files.writeString(dir.resolve("mac.csv"), "origin,delay\rATL,1\rSFO,2\r");
    assertThatThrownBy(() -> events(mac, FileFormat.CSV, "origin", null)).isInstanceOf(InputException.class)
        .hasMessageStartingWith(mac + " line 1: the header row: a carriage return (CR) outside a quoted field");
    Path mixed = Files.writeString(dir.resolve("mixed.csv"), "origin,delay\r\nATL,1\rSFO,2\r\nLAX,3\r\n");
    assertThatThrownBy(() -> events(mixed, FileFormat.CSV, "origin", null)).isInstanceOf(InputException.class)
        .hasMessageStartingWith(mixed + " row 1 (line 2): a carriage return (CR) outside a quoted field");
    Path quoted = Files.writeString(dir.resolve("quoted.csv"), "origin,delay\r\n\"A\rB\",1\r\n");
    assertThat(events(quoted, FileFormat.CSV, "origin", null).get(0).getKey()).isEqualTo("A\rB");
  }

  @Test
  void utf16IsNamedAndABigintBeyond64BitsSaysSo() throws IOException {
    Path utf16 = dir.resolve("u.csv");
    Files.write(utf16, ("\ufeffk,n\n").getBytes(StandardCharsets.UTF_16LE));
    assertThatThrownBy(() -> events(utf16, FileFormat.CSV, "k", null)).isInstanceOf(IOException.class)
        .hasMessage(utf16 + " line 1: UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8; convert the"
            + " file to UTF-8");
    Path big = Files.writeString(dir.resolve("big.csv"), "origin,delay\nATL,99999999999999999999\nSFO,-000000000000000000001\n");
    try (RowReader reader = RowReader.open(big, FileFormat.CSV, TYPES)) {
      assertThatThrownBy(reader::next).hasMessage(big + " row 1 (line 2): column 'delay' value '99999999999999999999' is"
          + " beyond the range of a 64-bit integer (type INT)");
      assertThat(reader.next().get("delay").asLong()).isEqualTo(-1);
    }
  }

  @Test
  void aFifoIsNotARegularFile() throws Exception {
    Path fifo = dir.resolve("fifo.csv");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    assertThatThrownBy(() -> RowReader.open(fifo, FileFormat.CSV, TYPES))
        .isInstanceOf(java.nio.file.NoSuchFileException.class).hasMessageContaining("not a regular file");
  }
}
