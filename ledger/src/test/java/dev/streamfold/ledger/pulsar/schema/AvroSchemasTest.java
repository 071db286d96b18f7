package dev.streamfold.ledger.pulsar.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.StreamRef;
import dev.streamfold.schema.StreamColumn;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Avro records registered for a stream's columns, and the check of returning columns against them. */
class AvroSchemasTest {
  private static final StreamRef STREAM = new StreamRef("acme-co", "flight-delays");

  private static byte[] definition(StreamColumn... columns) {
    return AvroSchemas.record(STREAM, List.of(columns)).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aRecordHasOneFieldPerColumnWithItsSqlType() {
    assertThat(AvroSchemas.record(STREAM, List.of(StreamColumn.parse("n:BIGINT NOT NULL"),
        StreamColumn.parse("origin:STRING"), StreamColumn.parse("carrier:STRING DEFAULT \"AA\""),
        StreamColumn.parse("at:TIMESTAMP DEFAULT 0")))).isEqualTo("{\"type\":\"record\",\"name\":\"flight_delays\","
            + "\"namespace\":\"streamfold.acme_co\",\"fields\":["
            + "{\"name\":\"n\",\"type\":\"long\",\"sqlType\":\"BIGINT\"},"
            + "{\"name\":\"origin\",\"type\":[\"null\",\"string\"],\"default\":null,\"sqlType\":\"STRING\"},"
            + "{\"name\":\"carrier\",\"type\":[\"string\",\"null\"],\"default\":\"AA\",\"sqlType\":\"STRING\"},"
            + "{\"name\":\"at\",\"type\":[\"string\",\"null\"],\"default\":\"0\",\"sqlType\":\"TIMESTAMP\"}]}");
  }

  @Test
  void returningColumnsAreTheNewNamesIgnoringCase() {
    StreamColumn delay = StreamColumn.parse("delay:INT NOT NULL");
    StreamColumn origin = StreamColumn.parse("Origin:STRING");
    assertThat(AvroSchemas.returning(List.of(delay, StreamColumn.parse("origin:STRING")), List.of(delay, origin)))
        .isEmpty();
    assertThat(AvroSchemas.returning(List.of(delay), List.of(delay, origin))).containsExactly(origin);
  }

  @Test
  void aColumnMayComeBackOnlyAsItWas() {
    List<byte[]> earlier = List.of("not json".getBytes(StandardCharsets.UTF_8),
        definition(StreamColumn.parse("n:BIGINT NOT NULL"), StreamColumn.parse("c:STRING DEFAULT \"AA\"")));
    assertThat(AvroSchemas.earlierDefinitionProblem(List.of(StreamColumn.parse("C:STRING DEFAULT \"AA\"")), earlier))
        .isNull();
    assertThat(AvroSchemas.earlierDefinitionProblem(List.of(StreamColumn.parse("x:INT")), earlier)).isNull();
    assertThat(AvroSchemas.earlierDefinitionProblem(List.of(StreamColumn.parse("c:INT DEFAULT 1")), earlier))
        .startsWith("column 'c' was STRING DEFAULT AA in an earlier schema of the stream");
    assertThat(AvroSchemas.earlierDefinitionProblem(List.of(StreamColumn.parse("c:STRING DEFAULT \"BB\"")), earlier))
        .startsWith("column 'c' was STRING DEFAULT AA in an earlier schema");
    assertThat(AvroSchemas.earlierDefinitionProblem(List.of(StreamColumn.parse("c:STRING")), earlier))
        .startsWith("column 'c' was STRING DEFAULT AA in an earlier schema");
    assertThat(AvroSchemas.earlierDefinitionProblem(List.of(StreamColumn.parse("n:BIGINT DEFAULT 5")), earlier))
        .startsWith("column 'n' was BIGINT without a DEFAULT in an earlier schema");
  }
}
