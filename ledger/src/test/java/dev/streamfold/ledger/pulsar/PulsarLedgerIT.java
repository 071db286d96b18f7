package dev.streamfold.ledger.pulsar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.InvalidEventException;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Testkit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The ledger on a real Pulsar standalone broker. */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class PulsarLedgerIT {
  private static final List<StreamColumn> COLUMNS = List.of(new StreamColumn("n", "BIGINT"));

  private static PulsarLedger connect() {
    return PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl()));
  }

  private static EventEnvelope event(int n, String idempotencyKey) {
    return new EventEnvelope("k" + (n % 7), "", 1000L + n, "{\"n\":" + n + "}", idempotencyKey, Map.of());
  }

  /** Every event of a stream, read back with a plain Pulsar reader: payload text in ledger order. */
  private static List<String> readAll(StreamRef stream) throws Exception {
    List<String> payloads = new ArrayList<>();
    try (PulsarClient client = PulsarClient.builder().serviceUrl(Testkit.pulsar().serviceUrl()).build();
         Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(stream.topic())
             .startMessageId(org.apache.pulsar.client.api.MessageId.earliest).create()) {
      while (reader.hasMessageAvailable()) {
        Message<byte[]> m = reader.readNext(10, TimeUnit.SECONDS);
        payloads.add(new String(m.getValue()));
      }
    }
    return payloads;
  }

  @Test
  void createsDescribesAndAppendsInOrder() throws Exception {
    try (PulsarLedger ledger = connect()) {
      StreamRef stream = new StreamRef(Testkit.uniqueName("t"), "numbers");
      assertThat(ledger.createStream(stream, COLUMNS)).isTrue();
      assertThat(ledger.createStream(stream, COLUMNS)).isFalse();
      assertThatThrownBy(() -> ledger.createStream(stream, List.of(new StreamColumn("m", "INT"))))
          .isInstanceOf(LedgerException.StreamExists.class).hasMessageContaining("n BIGINT");
      assertThat(ledger.listStreams(stream.tenant())).containsExactly(stream);
      assertThat(ledger.describe(stream).eventCount()).isZero();

      List<EventEnvelope> events = new ArrayList<>();
      for (int i = 0; i < 2_500; i++) {
        events.add(event(i, ""));
      }
      List<Appended> appended = ledger.append(stream, events).join();
      List<MessageId> ids = appended.stream().map(Appended::messageId).toList();
      assertThat(ids).doesNotHaveDuplicates().isSorted();
      StreamInfo info = ledger.describe(stream);
      assertThat(info.eventCount()).isEqualTo(2_500);
      assertThat(info.latest()).contains(ids.get(ids.size() - 1));
      assertThat(info.columns()).isEqualTo(COLUMNS);
      List<String> stored = readAll(stream);
      assertThat(stored).hasSize(2_500);
      assertThat(stored.get(1234)).isEqualTo("{\"n\":1234}");
    }
  }

  @Test
  void rejectsUnknownStreamsAndMalformedEventsWithoutAppending() throws Exception {
    try (PulsarLedger ledger = connect()) {
      StreamRef stream = new StreamRef(Testkit.uniqueName("t"), "numbers");
      assertThatThrownBy(() -> ledger.append(stream, List.of(event(1, ""))))
          .isInstanceOf(LedgerException.StreamNotFound.class).hasMessageContaining("'numbers'");
      ledger.createStream(stream, COLUMNS);
      EventEnvelope bad = new EventEnvelope("k", "", 1, "{\"n\":\"one\"}", "", Map.of());
      assertThatThrownBy(() -> ledger.append(stream, List.of(event(0, ""), bad)))
          .isInstanceOf(InvalidEventException.class).hasMessageStartingWith("event 1: field 'payload_json.n'");
      assertThat(readAll(stream)).isEmpty();
    }
  }

  /** On an unpartitioned stream and on one of 3 partitions (keys k0..k6 spread over them). */
  @ParameterizedTest(name = "partitions {0}")
  @ValueSource(ints = {0, 3})
  void aRetriedIdempotencyKeyIsStoredOnceAndAnsweredWithTheFirstMessageId(int partitions) throws Exception {
    StreamRef stream = new StreamRef(Testkit.uniqueName("t"), "payments");
    Map<String, MessageId> first = new java.util.HashMap<>();
    try (PulsarLedger ledger = connect()) {
      ledger.createStream(stream, COLUMNS, 0, partitions);
      for (int i = 0; i < 1_000; i += 100) {
        List<EventEnvelope> batch = new ArrayList<>();
        for (int j = i; j < i + 100; j++) {
          batch.add(event(j, "pay-" + j));
        }
        List<Appended> appended = ledger.append(stream, batch).join();
        for (int j = 0; j < 100; j++) {
          assertThat(appended.get(j).repeat()).isFalse();
          first.put("pay-" + (i + j), appended.get(j).messageId());
        }
        // two immediate retries of the same batch
        for (int retry = 0; retry < 2; retry++) {
          List<Appended> again = ledger.append(stream, batch).join();
          for (int j = 0; j < 100; j++) {
            assertThat(again.get(j)).isEqualTo(new Appended(first.get("pay-" + (i + j)), true));
          }
        }
      }
      // a batch [repeat, new, new] stores the two new events
      List<Appended> mixed = ledger.append(stream, List.of(event(5, "pay-5"), event(1_000, "pay-1000"),
          event(1_001, "pay-1001"))).join();
      assertThat(mixed.get(0)).isEqualTo(new Appended(first.get("pay-5"), true));
      assertThat(mixed.subList(1, 3)).noneMatch(Appended::repeat);
      // the same key twice in one request: stored once
      List<Appended> twice = ledger.append(stream, List.of(event(1_002, "pay-1002"), event(1_002, "pay-1002"))).join();
      assertThat(twice.get(1)).isEqualTo(new Appended(twice.get(0).messageId(), true));
      first.put("pay-1000", mixed.get(1).messageId());
      first.put("pay-1001", mixed.get(2).messageId());
      first.put("pay-1002", twice.get(0).messageId());
    }
    assertThat(readAll(stream)).hasSize(1_003);
    if (partitions > 0) {
      assertThat(first.values().stream().map(MessageId::partition).distinct()).hasSize(partitions);
    }

    // A restart with the index intact: it resumes from its high-water mark (one message ID per partition).
    try (PulsarLedger restarted = connect()) {
      List<Appended> again = restarted.append(stream, List.of(event(7, "pay-7"), event(999, "pay-999"))).join();
      assertThat(again).containsExactly(new Appended(first.get("pay-7"), true), new Appended(first.get("pay-999"), true));
    }

    // Crash between the append and the index write: drop the index topic; a new ledger instance (a
    // restarted server) recovers every key from the events themselves.
    try (PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(Testkit.pulsar().adminUrl()).build()) {
      admin.topics().delete(IdempotencyIndex.topic(stream), true);
    }
    try (PulsarLedger restarted = connect()) {
      List<EventEnvelope> retries = new ArrayList<>();
      for (int j = 0; j < 1_003; j++) {
        retries.add(event(j, "pay-" + j));
      }
      List<Appended> third = restarted.append(stream, retries).join();
      for (int j = 0; j < 1_003; j++) {
        assertThat(third.get(j)).isEqualTo(new Appended(first.get("pay-" + j), true));
      }
    }
    List<String> stored = readAll(stream);
    assertThat(stored).hasSize(1_003);
    assertThat(new HashSet<>(stored)).hasSize(1_003); // payloads n=0..1002, each stored once
  }

  /**
   * An idempotency key reused for another event was answered as a repeat: the client got an acknowledgement
   * and the first event's message ID for an event that was never stored. It is refused now, with the whole
   * request, by comparing fingerprints; also after the index was rebuilt from the events, and within one request.
   * Events stored before fingerprints existed keep the old rule (the key alone decides).
   */
  @Test
  void anIdempotencyKeyReusedForAnotherEventIsRefusedWithItsRequest() throws Exception {
    StreamRef stream = new StreamRef(Testkit.uniqueName("t"), "payments");
    MessageId firstId;
    try (PulsarLedger ledger = connect()) {
      ledger.createStream(stream, COLUMNS);
      EventEnvelope first = new EventEnvelope("k", "paid", 5_000, "{\"n\":1}", "pay-1", Map.of("h", "1"));
      firstId = ledger.append(stream, List.of(first)).join().get(0).messageId();
      // the same event again, its headers in another order too: a repeat
      assertThat(ledger.append(stream, List.of(new EventEnvelope("k", "paid", 5_000, "{\"n\":1}", "pay-1",
          new java.util.TreeMap<>(Map.of("h", "1"))))).join()).containsExactly(new Appended(firstId, true));
      // each field changed in turn: refused, nothing of the request stored
      List<EventEnvelope> others = List.of(
          new EventEnvelope("other", "paid", 5_000, "{\"n\":1}", "pay-1", Map.of("h", "1")),
          new EventEnvelope("k", "refunded", 5_000, "{\"n\":1}", "pay-1", Map.of("h", "1")),
          new EventEnvelope("k", "paid", 5_001, "{\"n\":1}", "pay-1", Map.of("h", "1")),
          new EventEnvelope("k", "paid", 5_000, "{\"n\":2}", "pay-1", Map.of("h", "1")),
          new EventEnvelope("k", "paid", 5_000, "{\"n\":1}", "pay-1", Map.of("h", "2")),
          new EventEnvelope("k", "paid", 5_000, "{\"n\":1}", "pay-1", Map.of()));
      for (EventEnvelope other : others) {
        assertThatThrownBy(() -> ledger.append(stream, List.of(event(10, "pay-10"), other)).join())
            .hasRootCauseInstanceOf(InvalidEventException.class)
            .rootCause().hasMessageStartingWith("event 1: field 'idempotency_key' was already used for another event"
                + " at message ID " + firstId).hasMessageContaining("nothing of the request's 2 events was stored");
      }
      // one key for two different events of one request
      assertThatThrownBy(() -> ledger.append(stream, List.of(event(11, "pay-11"), event(12, "pay-11"))).join())
          .rootCause().isInstanceOf(InvalidEventException.class)
          .hasMessageStartingWith("event 1: field 'idempotency_key' is used by event 0 of this request for another event");
      assertThat(readAll(stream)).containsExactly("{\"n\":1}");
      // the stored event's headers do not show the fingerprint
      assertThat(ledger.read(stream, java.util.Optional.empty(), 10, 10_000).get(0).event().headers())
          .isEqualTo(Map.of("h", "1"));
    }

    // An event stored before fingerprints existed (no sf.fingerprint property), and the index rebuilt from
    // the events: the fingerprint of pay-1 comes back from its event; pay-old has none, so the key alone decides.
    try (PulsarClient client = PulsarClient.builder().serviceUrl(Testkit.pulsar().serviceUrl()).build();
         org.apache.pulsar.client.api.Producer<byte[]> old = client.newProducer(Schema.BYTES).topic(stream.topic()).create()) {
      old.newMessage().key("k").value("{\"n\":3}".getBytes()).property(EventEnvelope.IDEMPOTENCY_KEY_PROPERTY, "pay-old")
          .send();
    }
    try (PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(Testkit.pulsar().adminUrl()).build()) {
      admin.topics().delete(IdempotencyIndex.topic(stream), true);
    }
    try (PulsarLedger restarted = connect()) {
      assertThatThrownBy(() -> restarted.append(stream, List.of(
          new EventEnvelope("k", "paid", 5_000, "{\"n\":9}", "pay-1", Map.of("h", "1")))).join())
          .rootCause().isInstanceOf(InvalidEventException.class).hasMessageContaining("at message ID " + firstId);
      List<Appended> again = restarted.append(stream, List.of(
          new EventEnvelope("k", "paid", 5_000, "{\"n\":1}", "pay-1", Map.of("h", "1")),
          new EventEnvelope("k", "", 0, "{\"n\":4}", "pay-old", Map.of()))).join();
      assertThat(again.get(0)).isEqualTo(new Appended(firstId, true));
      assertThat(again.get(1).repeat()).isTrue();
    }
    // a restart with the index intact (entries "<message ID> <fingerprint>") still refuses a reuse
    try (PulsarLedger restarted = connect()) {
      assertThatThrownBy(() -> restarted.append(stream, List.of(
          new EventEnvelope("k", "paid", 5_000, "{\"n\":9}", "pay-1", Map.of("h", "1")))).join())
          .rootCause().isInstanceOf(InvalidEventException.class).hasMessageContaining("at message ID " + firstId);
    }
    assertThat(readAll(stream)).containsExactly("{\"n\":1}", "{\"n\":3}");
  }
}
