package dev.streamfold.ledger.pulsar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.clock.TickIndex;
import dev.streamfold.ledger.clock.TickSlice;
import dev.streamfold.ledger.pulsar.clock.ClockTail;
import dev.streamfold.ledger.pulsar.clock.TickSliceReader;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Testkit;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.PulsarClient;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tenant's one order on a real broker: two streams (one of 3 partitions) receive batched appends at the same
 * time while the clock ticks every 50 ms; reading every tick's slice ({@link ClockTail}, {@link TickSliceReader})
 * hands over each acknowledged event exactly once, with its own payload, in the tick it first appears in (checked
 * by {@link TickIndex}, which reads only the ticks), in the order (tick, stream, partition, message ID); a reader
 * started at a later tick, of one stream only, hands over exactly that stream's rest.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TickOrderIT {
  private static final List<StreamColumn> COLUMNS = List.of(new StreamColumn("n", "BIGINT"));
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** One event as read: the tick it was read in, its stream and message ID. */
  private record Read(long tick, String stream, MessageId id) {}

  private static final Comparator<Read> CLOCK_ORDER = Comparator.comparingLong(Read::tick)
      .thenComparing(Read::stream).thenComparingInt(r -> r.id().partition()).thenComparing(Read::id);

  /** Append {@code batches} batches concurrently with the caller; each acknowledged message ID with its payload. */
  private static CompletableFuture<Map<MessageId, String>> append(PulsarLedger ledger, StreamRef stream, int batches,
      int perBatch) {
    return CompletableFuture.supplyAsync(() -> {
      Map<MessageId, String> payloads = new HashMap<>();
      for (int b = 0; b < batches; b++) {
        List<EventEnvelope> events = new ArrayList<>();
        for (int n = b * perBatch; n < (b + 1) * perBatch; n++) {
          events.add(new EventEnvelope("k" + (n % 7), "", 1000L + n, "{\"n\":" + n + "}", "", Map.of()));
        }
        List<Appended> acks = ledger.append(stream, events).join();
        for (int i = 0; i < acks.size(); i++) {
          payloads.put(acks.get(i).messageId(), events.get(i).payloadJson());
        }
      }
      return payloads;
    });
  }

  private static List<Read> readSlices(PulsarClient client, String tenant, Set<String> streams, Tick from, long lastTick,
      Map<String, Map<MessageId, String>> payloads) {
    List<Read> read = new ArrayList<>();
    try (ClockTail clock = new ClockTail(client, tenant, from.number());
         TickSliceReader slices = new TickSliceReader(client, tenant, streams, TIMEOUT)) {
      Tick previous = from;
      while (previous.number() < lastTick) {
        Tick tick = clock.next(TIMEOUT).orElseThrow(() -> new AssertionError("no tick after " + clock.lastTick()));
        slices.read(TickSlice.of(previous, tick), (range, id, message) -> {
          assertThat(new String(message.getData(), StandardCharsets.UTF_8)).as(range.stream() + " " + id)
              .isEqualTo(payloads.get(range.stream()).get(id));
          read.add(new Read(tick.number(), range.stream(), id));
        });
        previous = tick;
      }
      assertThat(clock.next(Duration.ofMillis(200))).as("no tick after the last one").isEmpty();
    }
    return read;
  }

  @Test
  void everyAcknowledgedEventIsReadOnceInTheTickThatFirstCoversItInTheClocksOrder() throws Exception {
    String tenant = Testkit.uniqueName("order");
    StreamRef orders = new StreamRef(tenant, "orders");
    StreamRef customers = new StreamRef(tenant, "customers");
    try (PulsarLedger ledger = PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(),
            Testkit.pulsar().adminUrl()).withClockInterval(Duration.ofMillis(50)));
         PulsarClient client = PulsarClient.builder().serviceUrl(Testkit.pulsar().serviceUrl()).build()) {
      ledger.createStream(orders, COLUMNS, 0, 3);
      ledger.createStream(customers, COLUMNS, 0, 0);
      ledger.ensureTenant(tenant);
      CompletableFuture<Map<MessageId, String>> orderAcks = append(ledger, orders, 30, 50);
      CompletableFuture<Map<MessageId, String>> customerAcks = append(ledger, customers, 30, 20);
      Map<String, Map<MessageId, String>> payloads = Map.of("orders", orderAcks.get(2, TimeUnit.MINUTES),
          "customers", customerAcks.get(2, TimeUnit.MINUTES));
      assertThat(payloads.get("orders")).hasSize(1_500);
      assertThat(payloads.get("customers")).hasSize(600);
      Awaitility.await().atMost(TIMEOUT).until(() -> ledger.lastTick(tenant).filter(t -> payloads.entrySet().stream()
          .allMatch(e -> e.getValue().keySet().stream().allMatch(id -> t.covers(e.getKey(), id)))).isPresent());

      List<Tick> ticks = ledger.ticks(tenant, 0, 1_000_000);
      TickIndex index = new TickIndex(ticks);
      long lastTick = ticks.get(ticks.size() - 1).number();
      assertThat(ticks.size()).as("ticks taken while the events arrived").isGreaterThan(2);

      List<Read> all = readSlices(client, tenant, Set.of("orders", "customers"), Tick.ZERO, lastTick, payloads);
      assertThat(all).hasSize(2_100);
      assertThat(all).isSortedAccordingTo(CLOCK_ORDER);
      for (Read r : all) {
        assertThat(index.firstCovering(r.stream(), r.id())).as(r.toString()).hasValue(r.tick());
      }
      assertThat(all.stream().filter(r -> r.stream().equals("orders")).map(Read::id))
          .containsExactlyInAnyOrderElementsOf(payloads.get("orders").keySet());
      assertThat(all.stream().filter(r -> r.stream().equals("customers")).map(Read::id))
          .containsExactlyInAnyOrderElementsOf(payloads.get("customers").keySet());

      // a restart at a later tick, reading one stream: exactly that stream's events of the later ticks
      Tick middle = ticks.get(ticks.size() / 2 - 1);
      List<Read> rest = readSlices(client, tenant, Set.of("customers"), middle, lastTick, payloads);
      assertThat(rest).isEqualTo(all.stream()
          .filter(r -> r.stream().equals("customers") && r.tick() > middle.number()).toList());
    }
  }
}
