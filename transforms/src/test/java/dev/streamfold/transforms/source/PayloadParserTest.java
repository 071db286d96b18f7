package dev.streamfold.transforms.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.schema.StreamColumn;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

class PayloadParserTest {
  private final PayloadParser parser = new PayloadParser(List.of(new StreamColumn("date", "TIMESTAMP"),
      new StreamColumn("delay", "INT"), new StreamColumn("origin", "STRING"), new StreamColumn("ok", "BOOLEAN")));

  @Test
  void parsesDeclaredColumnsThenMetadata() {
    Row row = parser.toRow(new SourceEvent("1:2:-1:-1", "ATL", 978307260000L, 0,
        "{\"date\":\"2001-01-01T00:01:00\",\"delay\":-3,\"origin\":\"ATL\",\"ok\":true}"));
    assertThat(row.getField(0)).isEqualTo(LocalDateTime.parse("2001-01-01T00:01:00"));
    assertThat(row.getField(1)).isEqualTo(-3);
    assertThat(row.getField(2)).isEqualTo("ATL");
    assertThat(row.getField(3)).isEqualTo(true);
    assertThat(row.getField(4)).isEqualTo("ATL");
    assertThat(row.getField(5)).isEqualTo(LocalDateTime.parse("2001-01-01T00:01:00"));
  }

  @Test
  void oldEventsWithoutAnAddedColumnAreReadWithItsDefault() {
    PayloadParser evolved = new PayloadParser(List.of(new StreamColumn("delay", "INT"),
        new StreamColumn("carrier", "STRING", false, "\"AA\""), new StreamColumn("seats", "INT", true, "150"),
        new StreamColumn("since", "TIMESTAMP", false, "\"2001-01-01T00:00:00\"")));
    Row old = evolved.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, "{\"delay\":5}"));
    assertThat(old.getField(1)).isEqualTo("AA");
    assertThat(old.getField(2)).isEqualTo(150);
    assertThat(old.getField(3)).isEqualTo(LocalDateTime.parse("2001-01-01T00:00:00"));
    Row explicit = evolved.toRow(new SourceEvent("1:3:-1:-1", "k", 0, 0, "{\"delay\":5,\"carrier\":\"UA\",\"seats\":null}"));
    assertThat(explicit.getField(1)).isEqualTo("UA");
    assertThat(explicit.getField(2)).as("an explicit null is not the default").isNull();
  }

  @Test
  void missingOrMistypedValuesAreNull() {
    Row row = parser.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, "{\"delay\":\"late\",\"date\":12}"));
    assertThat(row.getField(1)).isNull();
    assertThat(row.getField(2)).isNull();
    assertThat(row.getField(0)).isEqualTo(LocalDateTime.parse("1970-01-01T00:00:00.012"));
    Row garbage = parser.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, "not json"));
    assertThat(garbage.getField(1)).isNull();
    assertThat(garbage.getField(4)).isEqualTo("k");
  }

  @Test
  void streamingParseAgreesWithTheJsonTreeRules() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    String[] names = {"date", "delay", "origin", "ok"};
    String[] types = {"TIMESTAMP", "INT", "STRING", "BOOLEAN"};
    for (String payload : List.of("{\"date\":\"2001-01-01T00:01\",\"delay\":2147483648,\"origin\":7,\"ok\":\"yes\"}",
        "{\"date\":null,\"delay\":1.5,\"origin\":{\"a\":[1,2]},\"ok\":false,\"extra\":{\"delay\":3}}",
        "{\"date\":\"2001-02-30T00:00\",\"delay\":-7,\"origin\":[\"x\"],\"delay\":8}",
        "{\"date\":-5,\"origin\":true}")) {
      Row row = parser.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, payload));
      var tree = json.readTree(payload);
      for (int i = 0; i < names.length; i++) {
        assertThat(row.getField(i)).as(payload + " " + names[i]).isEqualTo(PayloadParser.value(types[i], tree.get(names[i])));
      }
    }
  }

  @Test
  void onlyColumnsThePlanReadsAreParsed() {
    List<StreamColumn> columns = List.of(new StreamColumn("date", "TIMESTAMP"), new StreamColumn("delay", "INT"),
        new StreamColumn("origin", "STRING"));
    String payload = "{\"date\":\"2001-01-01T00:01:00\",\"delay\":4,\"origin\":\"ATL\"}";
    var read = dev.streamfold.transforms.sql.SqlPlanner.analyze("SELECT origin, SUM(delay) AS d FROM flights"
        + " WHERE 'date' <> origin GROUP BY origin", "flights", columns, null).columnsRead();
    assertThat(read).as("only named in a string literal: not read").containsOnly("delay", "origin");
    Row row = new PayloadParser(columns, read).toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, payload));
    assertThat(row.getField(0)).isNull();
    assertThat(row.getField(1)).isEqualTo(4);
    assertThat(row.getField(2)).isEqualTo("ATL");
    var star = dev.streamfold.transforms.sql.SqlPlanner.analyze("SELECT * FROM flights", "flights", columns, null)
        .columnsRead();
    Row all = new PayloadParser(columns, star).toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, payload));
    assertThat(all.getField(0)).isEqualTo(LocalDateTime.parse("2001-01-01T00:01:00"));
  }

  /** An event whose payload is left as UTF-8 bytes, as view jobs and replays read them. */
  private static SourceEvent bytesEvent(String key, long timeMs, byte[] payload) {
    SourceEvent event = new SourceEvent("1:2:-1:-1", key, timeMs, 0, null);
    event.payloadBytes = payload;
    return event;
  }

  /** toRowData over the bytes must give exactly toRow's values (as Flink's Row to RowData conversion makes them). */
  private static void assertSameRows(PayloadParser parser, byte[] payload) {
    Row row = parser.toRow(new SourceEvent("1:2:-1:-1", "k", 978307260123L, 0,
        new String(payload, java.nio.charset.StandardCharsets.UTF_8)));
    org.apache.flink.table.data.RowData data = parser.toRowData(bytesEvent("k", 978307260123L, payload));
    var converter = org.apache.flink.table.data.conversion.RowRowConverter.create(
        org.apache.flink.table.types.utils.TypeConversions.fromLogicalToDataType(parser.rowDataType().toRowType()));
    converter.open(PayloadParserTest.class.getClassLoader());
    org.apache.flink.table.data.RowData expected = converter.toInternal(row);
    String text = new String(payload, java.nio.charset.StandardCharsets.UTF_8);
    assertThat(data.getArity()).isEqualTo(expected.getArity());
    for (int i = 0; i < expected.getArity(); i++) {
      Object want = ((org.apache.flink.table.data.GenericRowData) expected).getField(i);
      Object got = ((org.apache.flink.table.data.GenericRowData) data).getField(i);
      assertThat(got).as(text + " field " + i).isEqualTo(want);
      if (want != null) {
        assertThat(got.getClass()).as(text + " field " + i + " class").isEqualTo(want.getClass());
      }
    }
  }

  private static final PayloadParser ALL_TYPES = new PayloadParser(List.of(new StreamColumn("date", "TIMESTAMP"),
      new StreamColumn("delay", "INT"), new StreamColumn("origin", "STRING"), new StreamColumn("ok", "BOOLEAN"),
      new StreamColumn("n", "BIGINT"), new StreamColumn("x", "DOUBLE"), new StreamColumn("skipped", "STRING"),
      new StreamColumn("carrier", "STRING", false, "\"AA\""), new StreamColumn("seats", "INT", true, "150")),
      java.util.Set.of("date", "delay", "origin", "ok", "n", "x", "carrier", "seats"));

  @Test
  void rowDataFromBytesAgreesWithRowsOnEdgeCases() {
    for (String payload : List.of(
        "{\"date\":\"2001-01-01T00:01:00\",\"delay\":-3,\"origin\":\"ATL\",\"ok\":true}",
        "{\"date\":978307260000,\"delay\":2147483647,\"n\":-9223372036854775,\"x\":1.5e3,\"origin\":12.50}",
        "{\"delay\":2147483648,\"n\":123456789012345678,\"x\":7,\"origin\":-0.0,\"ok\":false}",
        "{\"delay\":12345678901234567890,\"n\":1234567890123456789,\"x\":-0,\"origin\":true}",
        "  {  \"delay\" : 5 ,\n\t\"origin\":\"A B\"\r}  trailing",
        "{}", "{ }", "", " ", "[1]", "\"x\"", "nul", "{\"delay\":}", "{\"delay\":5,}", "{\"delay\":5", "{\"delay\" 5}",
        "{\"delay\":05}", "{\"delay\":-}", "{\"delay\":1.}", "{\"delay\":.5}", "{\"delay\":1e}", "{\"delay\":+1}",
        "{\"delay\":truex}", "{\"ok\":tru}", "{\"delay\":1x}", "{\"delay\":NaN}", "{\"x\":1E+2,\"origin\":1e-2}",
        "{\"origin\":\"tab\there\"}", "{\"origin\":\"esc\\\"aped\"}", "{\"origin\":\"caf\u00e9\"}",
        "{\"ori\\u0067in\":\"escaped name\"}", "{\"origin\":{\"a\":[1,2]},\"delay\":3}",
        "{\"origin\":[\"x\"],\"delay\":3}", "{\"delay\":3,\"extra\":{\"delay\":4}}",
        "{\"delay\":1,\"delay\":2}", "{\"delay\":1,\"delay\":null}", "{\"carrier\":null,\"seats\":7}",
        "{\"date\":\"2001-02-30T00:00\",\"ok\":\"yes\",\"x\":\"1.5\"}", "{\"date\":99999999999999999}",
        "{\"date\":-5,\"date\":1.5}", "{\"date\":\"2001-01-01T00:01:00.123456\"}", "{\"ok\":null,\"n\":true}",
        "{\"skipped\":\"not read\",\"origin\":null}", "{\"\":1,\"origin\":\"\"}", "{\"delay\":1}{\"delay\":2}",
        "\uFEFF{\"delay\":1}", "{\"delay\":1\u000b}", "{'delay':1}", "{\"delay\":1 /* c */}")) {
      assertSameRows(ALL_TYPES, payload.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    // not valid UTF-8: the text path reads U+FFFD, so must the bytes path
    assertSameRows(ALL_TYPES, new byte[] {'{', '"', 'o', 'r', 'i', 'g', 'i', 'n', '"', ':', '"', (byte) 0xC3, '"', '}'});
  }

  @Test
  void rowDataFromBytesAgreesWithRowsOnRandomPayloads() {
    java.util.Random random = new java.util.Random(42);
    String[] names = {"date", "delay", "origin", "ok", "n", "x", "skipped", "carrier", "seats", "other"};
    String[] values = {"0", "-0", "7", "-12", "2147483647", "-2147483648", "2147483648", "9223372036854775807",
        "123456789012345678", "1.25", "-3.5e-2", "1E400", "true", "false", "null", "\"ATL\"", "\"\"",
        "\"2001-01-01T00:01:00\"", "\"2001-01-01\"", "\"x\\ny\"", "{}", "[]", "[1,{\"a\":2}]", "{\"delay\":9}",
        "978307260000", "01", "1.", "tru", "\"caf\u00e9\""};
    String[] separators = {"", " ", "\n", "\t"};
    for (int run = 0; run < 5_000; run++) {
      StringBuilder json = new StringBuilder("{");
      int fields = random.nextInt(6);
      for (int f = 0; f < fields; f++) {
        if (f > 0) {
          json.append(separators[random.nextInt(separators.length)]).append(',');
        }
        json.append(separators[random.nextInt(separators.length)]).append('"')
            .append(names[random.nextInt(names.length)]).append("\":")
            .append(separators[random.nextInt(separators.length)]).append(values[random.nextInt(values.length)]);
      }
      json.append(random.nextInt(20) == 0 ? "" : "}");
      assertSameRows(ALL_TYPES, json.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  @Test
  void rowDataCarriesKeyAndEventTimeAndLeavesUnreadColumnsNull() {
    var row = (org.apache.flink.table.data.GenericRowData) ALL_TYPES.toRowData(bytesEvent("ATL", 978307260123L,
        "{\"skipped\":\"s\",\"origin\":\"JFK\",\"delay\":4}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertThat(row.getField(6)).as("a column the SQL does not read").isNull();
    assertThat(row.getField(2)).isEqualTo(org.apache.flink.table.data.StringData.fromString("JFK"));
    assertThat(row.getField(1)).isEqualTo(4);
    assertThat(row.getField(7)).as("default").isEqualTo(org.apache.flink.table.data.StringData.fromString("AA"));
    assertThat(row.getField(8)).as("default").isEqualTo(150);
    assertThat(row.getField(9)).isEqualTo(org.apache.flink.table.data.StringData.fromString("ATL"));
    assertThat(row.getField(10)).isEqualTo(org.apache.flink.table.data.TimestampData.fromEpochMillis(978307260123L));
    assertThat(ALL_TYPES.rowDataType().toRowType().getFieldNames()).containsExactly("date", "delay", "origin", "ok",
        "n", "x", "skipped", "carrier", "seats", PayloadParser.KEY_COLUMN, PayloadParser.EVENT_TIME_COLUMN);
  }
}
