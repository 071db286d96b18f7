package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.streamfold.core.StreamRef;
import dev.streamfold.deploy.process.FlinkSessionCluster;
import dev.streamfold.deploy.process.ManagedProcess;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.FlightEvents;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.fold.TestFolds;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewMetadata;
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
 * Issue 10: view jobs on a real Flink session cluster — a JobManager and TaskManagers as their own JVMs —
 * submitted over its REST API by the same transform manager code that runs the embedded MiniCluster. A
 * TaskManager is killed (SIGKILL) during the backfill and a new one started; the view must still equal the
 * in-test fold of the ledger, exactly (Flink restores the job from its last checkpoint and the view sink's
 * commits are exactly-once). A Java transformation's jar travels to the cluster with its job.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RemoteFlinkIT {
  private static final int EVENTS = 150_000;
  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static ViewStore views;
  private static FlinkSessionCluster flink;
  private static ManagedProcess taskManager;
  private static TransformManager manager;
  private static ReplayMatchesLive replayCheck;

  @BeforeAll
  static void start() {
    flink = FlinkSessionCluster.start(Testkit.workDir().resolve("flink-session"),
        System.getProperty("java.class.path"), 4);
    taskManager = flink.startTaskManager();
    harness = TransformsHarness.start("remote-transforms",
        options -> options.taskSlots(4).flinkRestAddress(flink.restAddress()));
    ledger = harness.ledger();
    views = harness.views();
    manager = harness.manager();
    replayCheck = ReplayMatchesLive.since(ledger);
  }

  @AfterAll
  static void stop() {
    try {
      if (manager != null) {
        // the SQL and the Java view, restored after their TaskManager was killed, equal their replays (run on the
        // session cluster) to their committed positions
        replayCheck.check(manager, views, 10).assertComparedAny();
      }
    } finally {
      closeAll();
    }
  }

  private static void closeAll() {
    try {
      if (harness != null) {
        harness.close();
      }
    } finally {
      if (flink != null) {
        flink.close();
      }
    }
  }

  private static ViewMetadata live(ViewName name) {
    return views.liveMetadata(name).orElse(null);
  }

  @Test
  void aKilledTaskManagerDuringBackfillLeavesTheViewExact() {
    String tenant = Testkit.uniqueName("remote");
    StreamRef stream = new StreamRef(tenant, "flights");
    FlightEvents.createStream(ledger, stream);
    List<Flights.Flight> flights = Flights.load(EVENTS);
    FlightEvents.append(ledger, stream, flights, 5_000);

    manager.create(tenant, "delays", Flights.DELAYS_BY_ORIGIN_SQL, List.of());
    // the fold is paced (at least 7.5 s for 150,000 events, 15 checkpoints), so the kill below falls inside its
    // backfill on any machine; the SQL view may already be LIVE by then and is restored just the same
    manager.createFold(tenant, "by_origin", "flights", TestFolds.jar(), TestFolds.PacedFlightsByOrigin.class.getName());
    ViewName delays = new ViewName(tenant, "delays");
    ViewName byOrigin = new ViewName(tenant, "by_origin");

    // Kill a TaskManager while the backfill is under way (some events committed, not all).
    Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(50)).until(() -> {
      ViewMetadata m = views.metadata(byOrigin, 1).orElse(null);
      return m != null && m.eventsApplied() > 0;
    });
    long appliedAtKill = views.metadata(byOrigin, 1).map(ViewMetadata::eventsApplied).orElse(0L);
    try {
      flink.kill(taskManager);
    } finally {
      // replaced whatever the assertion says: the replay check after all tests runs on this cluster
      taskManager = flink.startTaskManager();
    }
    assertThat(appliedAtKill).as("the kill came during the backfill").isLessThan(EVENTS);

    try {
      Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200)).until(() -> {
        ViewMetadata a = live(delays);
        ViewMetadata b = live(byOrigin);
        return a != null && b != null && a.phase() == ViewPhase.LIVE && b.phase() == ViewPhase.LIVE
            && a.eventsApplied() == EVENTS && b.eventsApplied() == EVENTS;
      });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("views not LIVE with all " + EVENTS + " events after the TaskManager was replaced:\n"
          + manager.status(tenant, "delays") + "\n" + manager.status(tenant, "by_origin"), e);
    }
    assertThat(manager.status(tenant, "delays").jobState()).isEqualTo("RUNNING");

    Map<String, Flights.Delays> oracle = Flights.delaysByOrigin(flights);
    Map<String, Map<String, String>> rows = views.snapshot(delays, views.servedVersion(delays)).rows();
    assertThat(rows).hasSize(oracle.size());
    Map<String, Map<String, String>> folded = views.snapshot(byOrigin, views.servedVersion(byOrigin)).rows();
    assertThat(folded).hasSize(oracle.size());
    long[] totalDelay = new long[1];
    oracle.forEach((origin, expected) -> {
      Map<String, String> row = rows.get(origin);
      assertThat(Long.parseLong(row.get("flights"))).as(origin).isEqualTo(expected.flights());
      assertThat(Long.parseLong(row.get("delayed"))).as(origin).isEqualTo(expected.delayed());
      assertThat(Double.parseDouble(row.get("avg_delay"))).as(origin).isCloseTo(expected.avgDelay(), within(1e-9));
      assertThat(folded.get(origin)).as(origin).containsEntry("flights", Long.toString(expected.flights()));
      totalDelay[0] += Long.parseLong(folded.get(origin).get("total_delay"));
    });
    assertThat(totalDelay[0]).isEqualTo(flights.stream().mapToLong(Flights.Flight::delay).sum());
  }
}
