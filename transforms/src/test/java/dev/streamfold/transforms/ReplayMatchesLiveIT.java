package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.FlightEvents;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.fixtures.ViewAwaits;
import dev.streamfold.transforms.fold.TestFolds;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ReplayMatchesLive} on real Pulsar, Redis and a Flink MiniCluster: it compares SQL and Java views of an
 * unpartitioned and a partitioned stream with their replays, skips a view with nothing to replay, and fails,
 * naming the view, its position and the key, when one row of a live view is changed behind the job's back.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ReplayMatchesLiveIT {
  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static ViewStore views;
  private static TransformManager manager;

  @BeforeAll
  static void start() {
    harness = TransformsHarness.start("replay-check-transforms", options -> options.taskSlots(8));
    ledger = harness.ledger();
    views = harness.views();
    manager = harness.manager();
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  /** Run a Redis command on a connection of its own: a write no view job made. */
  private static void redis(java.util.function.Consumer<io.lettuce.core.api.sync.RedisCommands<String, String>> write) {
    io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(Testkit.redis().uri());
    try (var connection = raw.connect()) {
      write.accept(connection.sync());
    } finally {
      raw.shutdown();
    }
  }

  @Test
  void comparesEveryReplayableViewAndFailsOnOneChangedRow() {
    ReplayMatchesLive check = ReplayMatchesLive.since(ledger);
    String tenant = Testkit.uniqueName("t");
    List<Flights.Flight> flights = Flights.load(3_000);
    StreamRef plain = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"), 0);
    StreamRef partitioned = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights4"), 4);
    FlightEvents.createStream(ledger, new StreamRef(tenant, "quiet"), 0);
    FlightEvents.append(ledger, plain, flights.subList(0, 2_000), 2_000);
    FlightEvents.append(ledger, partitioned, flights.subList(0, 2_000), 2_000);
    manager.create(tenant, "a_delays", Flights.DELAYS_BY_ORIGIN_SQL, List.of());
    manager.createFold(tenant, "b_fold", "flights", TestFolds.jar(), TestFolds.FlightsByOrigin.class.getName());
    manager.create(tenant, "c_partitioned", "SELECT origin, COUNT(*) AS n, MAX(delay) AS max_delay FROM flights4"
        + " GROUP BY origin", List.of());
    manager.create(tenant, "d_quiet", "SELECT origin, COUNT(*) AS n FROM quiet GROUP BY origin", List.of());
    FlightEvents.append(ledger, plain, flights.subList(2_000, 3_000), 1_000);
    FlightEvents.append(ledger, partitioned, flights.subList(2_000, 3_000), 1_000);
    ViewName delays = new ViewName(tenant, "a_delays");
    ViewAwaits.awaitLive(views, delays, 3_000);
    ViewAwaits.awaitLive(views, new ViewName(tenant, "b_fold"), 3_000);
    ViewAwaits.awaitLive(views, new ViewName(tenant, "c_partitioned"), 3_000);
    Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() ->
        views.liveMetadata(new ViewName(tenant, "d_quiet")).map(m -> m.phase() == ViewPhase.LIVE).orElse(false));

    ReplayMatchesLive.Report report = check.check(manager, views, 10);
    assertThat(report.compared()).containsExactly(tenant + "/a_delays", tenant + "/b_fold", tenant + "/c_partitioned");
    assertThat(report.skipped()).containsExactly(tenant + "/d_quiet: nothing applied: no position to replay to");
    assertThat(manager.virtualStates(tenant)).as("every virtual state of the check is dropped").isEmpty();

    // One row changed behind the job's back (its value), one added: the check names both keys.
    String rows = "sf:{" + tenant + ":a_delays:" + views.servedVersion(delays) + "}:r:";
    String keys = "sf:{" + tenant + ":a_delays:" + views.servedVersion(delays) + "}:keys";
    String flightsAtAtl = views.row(delays, "ATL").orElseThrow().get("flights");
    String position = views.liveMetadata(delays).orElseThrow().position().toString();
    redis(r -> {
      r.hset(rows + "ATL", "flights", "1" + flightsAtAtl);
      r.hset(rows + "ZZZ", Map.of("origin", "ZZZ", "flights", "1"));
      r.sadd(keys, "ZZZ");
    });
    assertThatThrownBy(() -> check.check(manager, views, 1))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("differs from the live view for 1 of 1 views")
        .hasMessageContaining(tenant + "/a_delays (version 1, replayed with version 1) at " + position)
        .hasMessageContaining("key 'ATL': flights live '1" + flightsAtAtl + "', replay '" + flightsAtAtl + "'")
        .hasMessageContaining("key 'ZZZ': only in the live view");
    assertThat(manager.virtualStates(tenant)).as("dropped after a mismatch too").isEmpty();

    // Put back, it matches again (and the cap skips the rest, saying so).
    redis(r -> {
      r.hset(rows + "ATL", "flights", flightsAtAtl);
      r.del(rows + "ZZZ");
      r.srem(keys, "ZZZ");
    });
    ReplayMatchesLive.Report again = check.check(manager, views, 1);
    assertThat(again.compared()).containsExactly(tenant + "/a_delays");
    assertThat(again.skipped()).contains(tenant + "/b_fold: over the cap of 1 views per check");
  }
}
