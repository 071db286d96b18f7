package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.FlightEvents;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.transforms.training.FeatureSpec;
import dev.streamfold.transforms.training.TrainingSetSpec;
import dev.streamfold.transforms.training.TrainingSetStatus;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewStore;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several replays of one view and a training-set build over a partitioned stream at once, of different
 * lengths so that they start while others end (a replay's end deletes its subscription), in an order that
 * alternates, round after round: each must be exact. A replay starting while the broker was busy with others
 * failed now and then with {@code Disconnected from server}: the connector's enumerator positioned the
 * subscription with a consumer (subscribe, seek, close), closed it while the seek's disconnect had it
 * resubscribing, and the Pulsar client then closed the whole connection, failing the next partition's
 * lookup; bounded sources now create their subscription with the admin API
 * ({@link dev.streamfold.transforms.source.PresetSubscriptionEnumerator}, issue 36).
 */
class ConcurrentPartitionedReplaysIT {
  private static final int PARTITIONS = 4;
  private static final int EVENTS = 6_000;
  private static final int ROUNDS = Integer.getInteger("concurrentReplays.rounds", 10);
  /** Replays per round and their stops, as a count of the first events (the last is every event). */
  private static final int[] STOPS = {500, 2_000, 3_500, EVENTS};
  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static ViewStore views;

  @BeforeAll
  static void start() {
    harness = TransformsHarness.connect();
    ledger = harness.ledger();
    views = harness.views();
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  @Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
  void concurrentReplaysOfAPartitionedStreamAreExactWhateverOrderTheyEndIn() throws Exception {
    String tenant = Testkit.uniqueName("cr");
    StreamRef stream = new StreamRef(tenant, "flights");
    assertThat(ledger.createStream(stream, FlightEvents.columns(), 0, PARTITIONS)).isTrue();
    List<Flights.Flight> flights = Flights.load().subList(0, EVENTS);
    List<MessageId> ids = FlightEvents.messageIds(FlightEvents.append(ledger, stream, flights));

    TransformManager manager = harness.startManager(TransformsHarness.options("concurrent-replays-" + tenant)
        .parallelism(2).taskSlots(8).tenants(Set.of(tenant)).build());
    try {
      manager.create(tenant, "delays_by_origin", Flights.DELAYS_BY_ORIGIN_SQL, List.of());
      for (int round = 0; round < ROUNDS; round++) {
        Map<String, Integer> started = new LinkedHashMap<>();
        // Alternate which replay starts first, so that short ones end while long ones start and the reverse.
        for (int i = 0; i < STOPS.length; i++) {
          int stop = STOPS[round % 2 == 0 ? i : STOPS.length - 1 - i];
          String name = "r" + round + "_" + stop;
          ReplayCursor to = stop == EVENTS ? ReplayCursor.latest() : ReplayCursor.parse(vectorOfFirst(ids, stop), true);
          manager.replay(tenant, "delays_by_origin", Optional.empty(), to, Optional.of(name));
          started.put(name, stop);
        }
        String set = "ts" + round;
        java.nio.file.Path out = Testkit.workDir().resolve("concurrent-replays-training").resolve(tenant)
            .resolve(set + ".jsonl");
        manager.createTrainingSet(new TrainingSetSpec(tenant, set, "flights", "origin", "delay >= 15", "",
            List.of(FeatureSpec.parse("delays_by_origin.flights")), ReplayCursor.latest(), out.toString(), "test"));
        int r = round;
        started.forEach((name, stop) -> {
          ViewMetadata done = awaitComplete(manager, tenant, name, r);
          assertThat(done.eventsApplied()).as("round %d, replay %s", r, name).isEqualTo((long) stop);
          assertEqualsOracle(views.snapshot(new ViewName(tenant, name), 1).rows(), flights.subList(0, stop));
        });
        Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> {
          TrainingSetStatus status = manager.trainingSet(tenant, set);
          if (status.phase().equals(TrainingSetStatus.FAILED)) {
            throw new AssertionError("round " + r + ": training set " + set + " failed: " + status.error());
          }
          return status.phase().equals(TrainingSetStatus.COMPLETE);
        });
        assertThat(manager.trainingSet(tenant, set).rows()).as("round %d, training set rows", r).isEqualTo((long) EVENTS);
        assertThat(java.nio.file.Files.readAllLines(out).stream().filter(l -> !l.isBlank()).count())
            .as("round %d, training set file", r).isEqualTo((long) EVENTS);
        started.keySet().forEach(name -> manager.dropVirtualState(tenant, name));
      }
    } finally {
      manager.close();
    }
  }

  /** The position vector of the first {@code n} events: each partition's last message ID among them. */
  private static String vectorOfFirst(List<MessageId> ids, int n) {
    Map<Integer, MessageId> last = new LinkedHashMap<>();
    ids.subList(0, n).forEach(id -> last.put(id.partition(), id));
    return String.join(",", last.values().stream().sorted(Comparator.comparingInt(MessageId::partition))
        .map(Object::toString).toList());
  }

  private static ViewMetadata awaitComplete(TransformManager manager, String tenant, String name, int round) {
    ViewMetadata[] last = new ViewMetadata[1];
    Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> {
      VirtualStateStatus status = manager.virtualState(tenant, name);
      ViewMetadata m = status.progress().orElse(null);
      if (m != null && m.phase() == ViewPhase.FAILED) {
        throw new AssertionError("round " + round + ": replay " + name + " failed: " + m.error());
      }
      last[0] = m;
      return m != null && m.phase() == ViewPhase.COMPLETE;
    });
    return last[0];
  }

  private static void assertEqualsOracle(Map<String, Map<String, String>> rows, List<Flights.Flight> flights) {
    Map<String, Flights.Delays> oracle = Flights.delaysByOrigin(flights);
    assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(oracle.keySet());
    oracle.forEach((origin, expected) -> {
      Map<String, String> row = rows.get(origin);
      assertThat(Long.parseLong(row.get("flights"))).as(origin + " flights").isEqualTo(expected.flights());
      assertThat(Long.parseLong(row.get("delayed"))).as(origin + " delayed").isEqualTo(expected.delayed());
      assertThat(Double.parseDouble(row.get("avg_delay"))).as(origin + " avg_delay")
          .isCloseTo(expected.avgDelay(), within(1e-9));
    });
  }
}
