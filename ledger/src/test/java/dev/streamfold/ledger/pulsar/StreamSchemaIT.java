package dev.streamfold.ledger.pulsar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.pulsar.schema.AvroSchemas;
import dev.streamfold.ledger.pulsar.schema.PulsarSchemaRegistry;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.InvalidEventException;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Testkit;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.common.schema.SchemaInfo;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Stream schemas on a real Pulsar broker: registered in Pulsar's schema registry (JSON type) where
 * other Pulsar tools see them, enforced on append (field and reason named), evolved compatibly, and our
 * schemaless appender keeps appending to a topic that has a schema.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class StreamSchemaIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static PulsarLedger connect() {
    return PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl()));
  }

  private static EventEnvelope event(String payload) {
    return new EventEnvelope("k", "", 1_000, payload, "", Map.of());
  }

  private static JsonNode registered(PulsarAdmin admin, StreamRef stream) throws Exception {
    SchemaInfo info = admin.schemas().getSchemaInfo(stream.topic());
    assertThat(info.getType()).isEqualTo(SchemaType.JSON);
    return JSON.readTree(new String(info.getSchema(), StandardCharsets.UTF_8));
  }

  @Test
  void aSchemaIsRegisteredEnforcedAndEvolvedCompatibly() throws Exception {
    StreamRef stream = new StreamRef(Testkit.uniqueName("t"), "flights");
    List<StreamColumn> v1 = List.of(StreamColumn.parse("delay:INT NOT NULL"), StreamColumn.parse("origin:STRING"));
    try (PulsarLedger ledger = connect();
         PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(Testkit.pulsar().adminUrl()).build()) {
      assertThat(ledger.createStream(stream, v1)).isTrue();
      assertThat(ledger.createStream(stream, v1)).as("idempotent").isFalse();
      assertThatThrownBy(() -> ledger.createStream(stream, List.of(StreamColumn.parse("delay:INT"), StreamColumn.parse("origin:STRING"))))
          .isInstanceOf(LedgerException.StreamExists.class).hasMessageContaining("delay INT NOT NULL");
      JsonNode schema = registered(admin, stream);
      assertThat(schema.path("type").asText()).isEqualTo("record");
      assertThat(schema.path("fields").get(0).path("name").asText()).isEqualTo("delay");
      assertThat(schema.path("fields").get(0).path("type").asText()).isEqualTo("int");
      assertThat(schema.path("fields").get(1).path("type").toString()).isEqualTo("[\"null\",\"string\"]");

      ledger.append(stream, List.of(event("{\"delay\":5,\"origin\":\"ATL\"}"), event("{\"delay\":7}"))).join();
      // one bad event refuses its whole request (all-or-nothing), naming the event, the field and why
      assertThatThrownBy(() -> ledger.append(stream, List.of(event("{\"delay\":1}"), event("{\"origin\":\"SFO\"}"),
          event("{\"delay\":null}"))))
          .isInstanceOf(InvalidEventException.class)
          .hasMessage("event 1: field 'payload_json.delay' is missing or null, but the stream's schema requires it"
              + " (column delay INT NOT NULL); also invalid: event 2 (payload_json.delay) (nothing of the request's 3"
              + " events was stored: a request is all-or-nothing)")
          .satisfies(e -> assertThat(((InvalidEventException) e).all())
              .extracting(InvalidEventException::index).containsExactly(1, 2));
      assertThat(ledger.describe(stream).eventCount()).isEqualTo(2);

      // evolution: an optional column with a default, and a NOT NULL one with a default
      List<StreamColumn> v2 = List.of(v1.get(0), v1.get(1), StreamColumn.parse("carrier:STRING DEFAULT \"AA\""),
          StreamColumn.parse("seats:INT NOT NULL DEFAULT 150"));
      assertThat(ledger.updateSchema(stream, v2).columns()).isEqualTo(v2);
      assertThat(admin.schemas().getAllSchemas(stream.topic())).hasSize(2);
      JsonNode carrier = registered(admin, stream).path("fields").get(2);
      assertThat(carrier.path("default").asText()).isEqualTo("AA");
      assertThat(carrier.path("type").toString()).isEqualTo("[\"string\",\"null\"]");
      // appends after the change are checked against it (a new appender, schemaless, on a topic with a schema)
      assertThatThrownBy(() -> ledger.append(stream, List.of(event("{\"delay\":1,\"seats\":\"many\"}"))))
          .hasMessageStartingWith("event 0: field 'payload_json.seats' must be a 32-bit integer");
      ledger.append(stream, List.of(event("{\"delay\":3,\"carrier\":\"UA\",\"seats\":200}"))).join();
      assertThat(ledger.describe(stream).eventCount()).isEqualTo(3);
      assertThat(ledger.read(stream, Optional.empty(), 10, 10_000)).hasSize(3);

      // incompatible changes are refused, naming the column; the registry and the stream are unchanged
      assertThatThrownBy(() -> ledger.updateSchema(stream, List.of(StreamColumn.parse("delay:STRING NOT NULL"),
          v1.get(1), v2.get(2), v2.get(3))))
          .isInstanceOf(LedgerException.IncompatibleSchema.class)
          .hasMessageContaining("column 'delay' cannot change its type from INT to STRING");
      assertThatThrownBy(() -> ledger.updateSchema(stream, List.of(v1.get(1), v2.get(2), v2.get(3))))
          .isInstanceOf(LedgerException.IncompatibleSchema.class)
          .hasMessageContaining("column 'delay' (delay INT NOT NULL) cannot be removed");
      assertThatThrownBy(() -> ledger.updateSchema(stream, List.of(v1.get(0), v1.get(1), v2.get(2), v2.get(3),
          StreamColumn.parse("gate:STRING NOT NULL"))))
          .isInstanceOf(LedgerException.IncompatibleSchema.class).hasMessageContaining("new column 'gate'");
      assertThat(admin.schemas().getAllSchemas(stream.topic())).hasSize(2);
      assertThat(ledger.describe(stream).columns()).isEqualTo(v2);

      // Removed, then added back with another DEFAULT or type: the same change in two steps was accepted, and
      // stored events were then read differently by new views and replays (tryout 14). It may come back as it was.
      List<StreamColumn> v3 = List.of(v1.get(0), v1.get(1), v2.get(3));
      assertThat(ledger.updateSchema(stream, v3).columns()).isEqualTo(v3);
      for (String changed : List.of("carrier:STRING DEFAULT \"UA\"", "carrier:STRING", "carrier:INT DEFAULT 1")) {
        assertThatThrownBy(() -> ledger.updateSchema(stream, List.of(v1.get(0), v1.get(1), v2.get(3),
            StreamColumn.parse(changed))))
            .isInstanceOf(LedgerException.IncompatibleSchema.class)
            .hasMessageContaining("column 'carrier' was STRING DEFAULT AA in an earlier schema of the stream");
      }
      assertThat(ledger.updateSchema(stream, v2).columns()).as("back as it was").isEqualTo(v2);
      List<StreamColumn> v5 = List.of(v1.get(0), v2.get(2), v2.get(3));
      assertThat(ledger.updateSchema(stream, v5).columns()).isEqualTo(v5);
      assertThatThrownBy(() -> ledger.updateSchema(stream, List.of(v1.get(0), v2.get(2), v2.get(3),
          StreamColumn.parse("origin:BOOLEAN"))))
          .isInstanceOf(LedgerException.IncompatibleSchema.class)
          .hasMessageContaining("column 'origin' was STRING without a DEFAULT in an earlier schema");
      assertThat(ledger.updateSchema(stream, v2).columns()).isEqualTo(v2);
    }
    // a restarted server reads the schema back from the topic
    try (PulsarLedger restarted = connect()) {
      assertThat(restarted.describe(stream).columns()).hasSize(4);
      assertThatThrownBy(() -> restarted.append(stream, List.of(event("{}"))))
          .hasMessageContaining("payload_json.delay");
    }
  }

  @Test
  void pulsarsOwnCompatibilityCheckBacksOursUp() throws Exception {
    StreamRef stream = new StreamRef(Testkit.uniqueName("t"), "checked");
    try (PulsarLedger ledger = connect();
         PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(Testkit.pulsar().adminUrl()).build()) {
      ledger.createStream(stream, List.of(StreamColumn.parse("n:BIGINT NOT NULL")));
      String changedType = AvroSchemas.record(stream, List.of(StreamColumn.parse("n:STRING NOT NULL")));
      // Pulsar (FULL, its default) refuses a type change itself: as an HTTP 500 naming Avro's check
      assertThatThrownBy(() -> admin.schemas().testCompatibility(stream.topic(), SchemaInfo.builder().name("checked")
          .type(SchemaType.JSON).schema(changedType.getBytes(StandardCharsets.UTF_8)).properties(Map.of()).build()))
          .hasMessageContaining("Unable to read schema");
      assertThat(PulsarSchemaRegistry.registryRefusal(new RuntimeException("\n --- An unexpected error occurred in the server ---\n\n"
          + "Message: Error during schema compatibility check with strategy FULL: Unable to read schema: \n{\n  x\n")))
          .isEqualTo("Error during schema compatibility check with strategy FULL: Unable to read schema:");
      String added = AvroSchemas.record(stream, List.of(StreamColumn.parse("n:BIGINT NOT NULL"),
          StreamColumn.parse("c:STRING DEFAULT \"AA\"")));
      assertThat(admin.schemas().testCompatibility(stream.topic(), SchemaInfo.builder().name("checked")
          .type(SchemaType.JSON).schema(added.getBytes(StandardCharsets.UTF_8)).properties(Map.of()).build())
          .isCompatibility()).isTrue();
    }
  }
}
