package dev.streamfold.transforms.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.clock.TickIndex;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Airports;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ClockedLedgerSource} in a real Flink job on a real broker: the flights (2 partitions) and the airports,
 * appended at the same time while the clock ticks every 50 ms, come out of one source as every acknowledged event
 * once, with its payload, stream and first covering tick (checked by {@link TickIndex} over the recorded ticks,
 * not by the source's code), in the order (tick, stream, partition, message ID); a source started after a tick,
 * as a restored job's is, continues exactly where a source that stopped after that tick ended.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClockedLedgerSourceIT {

  /** One event as the job saw it. */
  private record Seen(long tick, String stream, MessageId id, String payload) {}

  private static final Comparator<Seen> CLOCK_ORDER = Comparator.comparingLong(Seen::tick)
      .thenComparing(Seen::stream).thenComparingInt(r -> r.id().partition()).thenComparing(Seen::id);

  private static List<StreamColumn> columns(List<String> spec) {
    return spec.stream().map(c -> new StreamColumn(c.split(":")[0], c.split(":")[1])).toList();
  }

  private static CompletableFuture<Map<MessageId, String>> append(PulsarLedger ledger, StreamRef stream,
      List<EventEnvelope> events, int perBatch) {
    return CompletableFuture.supplyAsync(() -> {
      Map<MessageId, String> payloads = new HashMap<>();
      for (int from = 0; from < events.size(); from += perBatch) {
        List<EventEnvelope> batch = events.subList(from, Math.min(events.size(), from + perBatch));
        List<Appended> acks = ledger.append(stream, batch).join();
        for (int i = 0; i < acks.size(); i++) {
          payloads.put(acks.get(i).messageId(), batch.get(i).payloadJson());
        }
      }
      return payloads;
    });
  }

  /**
   * Run a bounded source to its end: the events it emits, after checking that each tick after {@code afterTick}
   * through {@code stopAfterTick} ends with its marker, in order, and that every event is of the tick after the
   * last marker.
   */
  private static List<Seen> run(ClockedLedgerSource source, long afterTick, long stopAfterTick) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1);
    List<Seen> seen = new ArrayList<>();
    long[] lastMarker = {afterTick};
    try (CloseableIterator<SourceEvent> events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "clocked")
        .executeAndCollect("clocked source")) {
      events.forEachRemaining(e -> {
        assertThat(e.tick).as("tick of %s", e.endOfTick ? "a marker" : e.messageId).isEqualTo(lastMarker[0] + 1);
        if (e.endOfTick) {
          lastMarker[0] = e.tick;
        } else {
          seen.add(new Seen(e.tick, e.stream, e.position(), e.payloadText()));
        }
      });
    }
    assertThat(lastMarker[0]).as("the last tick's marker").isEqualTo(stopAfterTick);
    return seen;
  }

  @Test
  void twoStreamsComeOutInTheClocksOrderAndARestartAfterATickContinuesExactly() throws Exception {
    String tenant = Testkit.uniqueName("clocked");
    StreamRef flights = new StreamRef(tenant, "flights");
    StreamRef airports = new StreamRef(tenant, "airports");
    try (PulsarLedger ledger = PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(),
        Testkit.pulsar().adminUrl()).withClockInterval(Duration.ofMillis(50)))) {
      ledger.createStream(flights, columns(Flights.COLUMNS), 0, 2);
      ledger.createStream(airports, columns(Airports.COLUMNS), 0, 0);
      ledger.ensureTenant(tenant);
      List<EventEnvelope> flightEvents = Flights.load(6_000).stream()
          .map(f -> new EventEnvelope(f.origin(), "flight", f.eventTimeMs(), f.json(), "", Map.of())).toList();
      List<EventEnvelope> airportEvents = Airports.load().stream()
          .map(a -> new EventEnvelope(a.iata(), "airport", 1_000L, a.json(), "", Map.of())).toList();
      CompletableFuture<Map<MessageId, String>> flightAcks = append(ledger, flights, flightEvents, 200);
      CompletableFuture<Map<MessageId, String>> airportAcks = append(ledger, airports, airportEvents, 100);
      Map<String, Map<MessageId, String>> payloads = Map.of("flights", flightAcks.get(2, TimeUnit.MINUTES),
          "airports", airportAcks.get(2, TimeUnit.MINUTES));
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ledger.lastTick(tenant).filter(t -> payloads
          .entrySet().stream().allMatch(e -> e.getValue().keySet().stream().allMatch(id -> t.covers(e.getKey(), id))))
          .isPresent());
      List<Tick> ticks = ledger.ticks(tenant, 0, 1_000_000);
      TickIndex index = new TickIndex(ticks);
      long last = ticks.get(ticks.size() - 1).number();
      assertThat(last).as("ticks taken while the events arrived").isGreaterThan(2);

      String serviceUrl = Testkit.pulsar().serviceUrl();
      List<Seen> all = run(ClockedLedgerSource.builder(serviceUrl, tenant, Set.of("flights", "airports"))
          .stopAfterTick(last).build(), 0, last);
      assertThat(all).hasSize(flightEvents.size() + airportEvents.size());
      assertThat(all).isSortedAccordingTo(CLOCK_ORDER);
      for (Seen s : all) {
        assertThat(index.firstCovering(s.stream(), s.id())).as(s.stream() + " " + s.id()).hasValue(s.tick());
        assertThat(s.payload()).as(s.stream() + " " + s.id()).isEqualTo(payloads.get(s.stream()).get(s.id()));
      }
      assertThat(all.stream().filter(s -> s.stream().equals("flights")).map(Seen::id))
          .containsExactlyInAnyOrderElementsOf(payloads.get("flights").keySet());

      long middle = last / 2;
      List<Seen> before = run(ClockedLedgerSource.builder(serviceUrl, tenant, Set.of("flights", "airports"))
          .stopAfterTick(middle).build(), 0, middle);
      List<Seen> after = run(ClockedLedgerSource.builder(serviceUrl, tenant, Set.of("flights", "airports"))
          .afterTick(middle).stopAfterTick(last).build(), middle, last);
      List<Seen> joined = new ArrayList<>(before);
      joined.addAll(after);
      assertThat(joined).isEqualTo(all);
      assertThat(before).allMatch(s -> s.tick() <= middle);

      List<Seen> airportsOnly = run(ClockedLedgerSource.builder(serviceUrl, tenant, Set.of("airports"))
          .stopAfterTick(last).payloadBytes(true).build(), 0, last);
      assertThat(airportsOnly).isEqualTo(all.stream().filter(s -> s.stream().equals("airports")).toList());
    }
  }
}
