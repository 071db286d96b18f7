package dev.streamfold.cli.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.api.v1.Event;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetRowReaderTest {
  /** The schema of vega-datasets' flights-3m.parquet (written by Polars). */
  static final MessageType FLIGHTS = MessageTypeParser.parseMessageType("message root {\n"
      + "  optional int64 date (TIMESTAMP(MICROS,false));\n"
      + "  optional int64 delay;\n"
      + "  optional int64 distance;\n"
      + "  optional binary origin (STRING);\n"
      + "  optional binary destination (STRING);\n"
      + "}");

  @TempDir
  Path dir;

  static long micros(String localDateTime) {
    return LocalDateTime.parse(localDateTime).toEpochSecond(ZoneOffset.UTC) * 1_000_000L
        + LocalDateTime.parse(localDateTime).getNano() / 1_000L;
  }

  Path writeFlights(List<Object[]> rows) throws Exception {
    Path file = dir.resolve("flights.parquet");
    SimpleGroupFactory groups = new SimpleGroupFactory(FLIGHTS);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withType(FLIGHTS).withConf(new PlainParquetConfiguration()).build()) {
      for (Object[] r : rows) {
        Group g = groups.newGroup();
        if (r[0] != null) {
          g.add("date", micros((String) r[0]));
        }
        if (r[1] != null) {
          g.add("delay", (long) (Integer) r[1]);
        }
        g.add("distance", (long) (Integer) r[2]);
        g.add("origin", (String) r[3]);
        g.add("destination", (String) r[4]);
        writer.write(g);
      }
    }
    return file;
  }

  @Test
  void readsTheFlightsSchemaWithTimestampsAsIsoLocalDateTimes() throws Exception {
    Path file = writeFlights(List.of(
        new Object[] {"2001-01-01T00:01:00", 14, 405, "MSY", "MCO"},
        new Object[] {"2001-01-01T06:00:00.25", -3, 1020, "ATL", "LGA"},
        new Object[] {"1969-12-31T23:59:59", null, 10, "SFO", "LAX"}));
    assertThat(ParquetRowReader.schema(file).getType("date").getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MICROS));

    List<ObjectNode> rows = new ArrayList<>();
    try (RowReader reader = RowReader.open(file, FileFormat.PARQUET, Map.of())) {
      assertThat(reader.totalRows()).isEqualTo(3);
      for (ObjectNode row = reader.next(); row != null; row = reader.next()) {
        rows.add(row);
      }
      assertThat(reader.rowNumber()).isEqualTo(3);
    }
    assertThat(rows.get(0).toString()).isEqualTo(
        "{\"date\":\"2001-01-01T00:01:00\",\"delay\":14,\"distance\":405,\"origin\":\"MSY\",\"destination\":\"MCO\"}");
    assertThat(rows.get(1).get("date").asText()).isEqualTo("2001-01-01T06:00:00.25");
    assertThat(rows.get(1).get("delay").isIntegralNumber()).isTrue();
    assertThat(rows.get(2).get("date").asText()).isEqualTo("1969-12-31T23:59:59");
    assertThat(rows.get(2).get("delay").isNull()).isTrue();
  }

  @Test
  void timeFieldOfAParquetRowBecomesEpochMilliseconds() throws Exception {
    Path file = writeFlights(List.<Object[]>of(new Object[] {"2001-01-01T00:01:00", 14, 405, "MSY", "MCO"}));
    try (RowReader reader = RowReader.open(file, FileFormat.PARQUET, Map.of())) {
      Event event = new EventMapper("origin", "date").toEvent(reader.next(), reader.rowNumber(), reader.where());
      assertThat(event.getKey()).isEqualTo("MSY");
      assertThat(event.getEventTimeMs()).isEqualTo(978_307_260_000L); // 2001-01-01T00:01:00Z
      assertThat(event.getPayloadJson()).contains("\"date\":\"2001-01-01T00:01:00\"");
    }
  }

  @Test
  void skipsRows() throws Exception {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      rows.add(new Object[] {"2001-01-01T00:0" + i + ":00", i, 100, "O" + i, "D"});
    }
    Path file = writeFlights(rows);
    try (RowReader reader = RowReader.open(file, FileFormat.PARQUET, Map.of())) {
      assertThat(reader.skip(7)).isEqualTo(7);
      assertThat(reader.next().get("origin").asText()).isEqualTo("O7");
      assertThat(reader.skip(10)).isEqualTo(2);
      assertThat(reader.next()).isNull();
    }
  }

  @Test
  void rendersTimestampUnits() {
    assertThat(ParquetRowReader.timestampText(978_307_260_000L, 1_000_000L)).isEqualTo("2001-01-01T00:01:00");
    assertThat(ParquetRowReader.timestampText(978_307_260_000_000L, 1_000L)).isEqualTo("2001-01-01T00:01:00");
    assertThat(ParquetRowReader.timestampText(978_307_260_000_000_001L, 1L)).isEqualTo("2001-01-01T00:01:00.000000001");
    assertThat(ParquetRowReader.timestampText(-1_000L, 1_000L)).isEqualTo("1969-12-31T23:59:59.999");
  }
}
