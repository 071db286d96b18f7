package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.FlightEvents;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.fixtures.ViewAwaits;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A SQL view job on real Pulsar, real Redis and a real Flink MiniCluster, checked against an oracle. */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ViewJobIT {
  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static ViewStore views;
  private static TransformManager manager;
  private static ReplayMatchesLive replayCheck;

  @BeforeAll
  static void start() {
    harness = TransformsHarness.start("transforms", options -> options.taskSlots(8));
    ledger = harness.ledger();
    views = harness.views();
    manager = harness.manager();
    replayCheck = ReplayMatchesLive.since(ledger);
  }

  @AfterAll
  static void stop() {
    try {
      if (manager != null) {
        // every view left (3 when the whole class runs, one of them built by a manager closed since) equals its
        // replay to its committed position
        replayCheck.check(manager, views, 10).assertComparedAny();
      }
    } finally {
      if (harness != null) {
        harness.close();
      }
    }
  }

  private static void assertEqualsOracle(ViewName name, List<Flights.Flight> flights) {
    Map<String, Flights.Delays> oracle = Flights.delaysByOrigin(flights);
    assertThat(views.metadata(name).orElseThrow().rows()).isEqualTo(oracle.size());
    oracle.forEach((origin, expected) -> {
      Map<String, String> row = views.row(name, origin).orElseThrow(() -> new AssertionError("no row " + origin));
      assertThat(row.keySet()).containsExactly("origin", "flights", "avg_delay", "delayed");
      assertThat(Long.parseLong(row.get("flights"))).as(origin + " flights").isEqualTo(expected.flights());
      assertThat(Long.parseLong(row.get("delayed"))).as(origin + " delayed").isEqualTo(expected.delayed());
      assertThat(Double.parseDouble(row.get("avg_delay"))).as(origin + " avg_delay")
          .isCloseTo(expected.avgDelay(), within(1e-9));
    });
  }

  @Test
  void backfillsThenTailsAndEqualsThePlainGroupBy() {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    List<Flights.Flight> flights = Flights.load();
    FlightEvents.append(ledger, stream, flights.subList(0, 20_000));

    TransformDefinition definition = manager.create(tenant, "delays_by_origin", Flights.DELAYS_BY_ORIGIN_SQL, List.of());
    assertThat(definition.keyColumns()).containsExactly("origin");
    assertThat(definition.columns()).containsExactly(Map.entry("origin", "STRING"), Map.entry("flights", "BIGINT"),
        Map.entry("avg_delay", "DOUBLE"), Map.entry("delayed", "INT"));
    ViewName name = new ViewName(tenant, "delays_by_origin");
    ViewAwaits.awaitLive(views, name, 1, 20_000);
    ViewMetadata backfilled = views.metadata(name).orElseThrow();
    assertThat(backfilled.backfillTargetEvents()).isEqualTo(20_000);
    assertThat(backfilled.position().texts()).containsExactly(backfilled.backfillTarget().toString());
    assertEqualsOracle(name, flights.subList(0, 20_000));

    FlightEvents.append(ledger, stream, flights.subList(20_000, 21_000));
    ViewAwaits.awaitLive(views, name, 1, 21_000);
    assertEqualsOracle(name, flights);
    assertThat(manager.status(tenant, "delays_by_origin").jobState()).isEqualTo("RUNNING");
  }

  @Test
  void aRetractedRowDisappearsFromTheView() {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    List<Flights.Flight> flights = Flights.load().subList(0, 2_000);
    ViewName name = new ViewName(tenant, "rare_origins");
    manager.create(tenant, "rare_origins",
        "SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin HAVING COUNT(*) < 10", List.of());
    FlightEvents.append(ledger, stream, flights);
    ViewAwaits.awaitLive(views, name, 1, 2_000);
    Map<String, Flights.Delays> oracle = Flights.delaysByOrigin(flights);
    long rare = oracle.values().stream().filter(d -> d.flights() < 10).count();
    assertThat(rare).isPositive().isLessThan(oracle.size());
    assertThat(views.metadata(name).orElseThrow().rows()).isEqualTo(rare);
    oracle.forEach((origin, d) -> {
      if (d.flights() < 10) {
        assertThat(views.row(name, origin)).as(origin).hasValueSatisfying(
            row -> assertThat(row).containsEntry("n", Long.toString(d.flights())));
      } else {
        assertThat(views.row(name, origin)).as(origin + " had " + d.flights() + " flights").isEmpty();
      }
    });
  }

  @Test
  void rejectsBadSqlBeforeAnythingRuns() {
    String tenant = Testkit.uniqueName("t");
    FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    assertThatThrownBy(() -> manager.create(tenant, "v1", "SELEC origin FROM flights", List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("SELEC");
    assertThatThrownBy(() -> manager.create(tenant, "v2", "SELECT nope, COUNT(*) FROM flights GROUP BY nope", List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("nope");
    assertThatThrownBy(() -> manager.create(tenant, "v3", "SELECT origin, COUNT(*) FROM missing GROUP BY origin", List.of()))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("missing");
    assertThatThrownBy(() -> manager.create(tenant, "v4", Flights.DELAYS_BY_ORIGIN_SQL, List.of("nope")))
        .isInstanceOf(TransformException.InvalidSql.class)
        .hasMessageContaining("key column 'nope'");
    assertThat(manager.list(tenant)).isEmpty();
    assertThat(views.views(tenant)).isEmpty();
  }

  @Test
  void catalogSurvivesARestartAndTheViewResumesFromItsCheckpoint() throws Exception {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    List<Flights.Flight> flights = Flights.load();
    FlightEvents.append(ledger, stream, flights.subList(0, 5_000));
    Path dataDir = Testkit.workDir().resolve("restart-" + tenant);
    TransformOptions options = TransformOptions.builder(Testkit.redis().uri(), dataDir).checkpointInterval(Duration.ofMillis(300))
        .taskSlots(4).tenants(java.util.Set.of(tenant)).build();
    ViewName name = new ViewName(tenant, "delays_by_origin");
    try (TransformManager first = new TransformManager(ledger, views, options)) {
      first.start();
      first.create(tenant, "delays_by_origin", Flights.DELAYS_BY_ORIGIN_SQL, List.of());
      ViewAwaits.awaitLive(views, name, 1, 5_000);
      // let at least one more checkpoint complete after the commit
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> hasCheckpoint(dataDir));
    }
    FlightEvents.append(ledger, stream, flights.subList(5_000, 8_000));
    try (TransformManager second = new TransformManager(ledger, views, options)) {
      second.start();
      assertThat(second.get(tenant, "delays_by_origin").version()).isEqualTo(1);
      ViewAwaits.awaitLive(views, name, 1, 8_000);
      assertEqualsOracle(name, flights.subList(0, 8_000));
      assertThat(second.delete(tenant, "delays_by_origin")).isTrue();
    }
    assertThat(views.views(tenant)).doesNotContain("delays_by_origin");
  }

  @Test
  void withoutACheckpointTheViewIsRebuiltAsANewVersionAndSwappedInWhenCaughtUp() throws Exception {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    List<Flights.Flight> flights = Flights.load(20_000);
    FlightEvents.append(ledger, stream, flights.subList(0, 5_000));
    Path dataDir = Testkit.workDir().resolve("rebuild-" + tenant);
    TransformOptions options = TransformOptions.builder(Testkit.redis().uri(), dataDir).checkpointInterval(Duration.ofMillis(300))
        .taskSlots(4).tenants(java.util.Set.of(tenant)).build();
    ViewName name = new ViewName(tenant, "delays_by_origin");
    try (TransformManager first = new TransformManager(ledger, views, options)) {
      first.start();
      first.create(tenant, "delays_by_origin", Flights.DELAYS_BY_ORIGIN_SQL, List.of());
      ViewAwaits.awaitLive(views, name, 1, 5_000);
    }
    long servedBefore = Long.parseLong(views.row(name, "ATL").orElseThrow().get("flights"));
    // lose every checkpoint: the next start cannot resume version 1
    try (var files = java.nio.file.Files.walk(dataDir.resolve("checkpoints"))) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    FlightEvents.append(ledger, stream, flights.subList(5_000, 20_000));
    try (TransformManager second = new TransformManager(ledger, views, options)) {
      second.start();
      assertThat(second.get(tenant, "delays_by_origin").version()).isEqualTo(2);
      // readers keep seeing version 1 (never a half-built version 2) until version 2 is LIVE
      AtomicLong last = new AtomicLong(servedBefore);
      Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(20)).until(() -> {
        // a read bracketed by two checks that version 1 is served came from version 1 (versions only go up)
        int servedFirst = views.servedVersion(name);
        long flightsNow = Long.parseLong(views.row(name, "ATL").orElseThrow().get("flights"));
        int servedAfter = views.servedVersion(name);
        if (servedFirst == 1 && servedAfter == 1) {
          assertThat(flightsNow).isEqualTo(servedBefore);
        }
        last.set(flightsNow);
        return servedAfter != 1;
      });
      ViewAwaits.awaitLive(views, name, 2, 20_000);
      assertThat(views.servedVersion(name)).isEqualTo(2);
      assertThat(Long.parseLong(views.row(name, "ATL").orElseThrow().get("flights"))).isGreaterThanOrEqualTo(last.get());
      assertEqualsOracle(name, flights);
      // housekeeping (every 250 ms) retires the versions below the served one
      Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(views.metadata(name, 1)).as("version 1 is dropped once version 2 is served").isEmpty());
    }
  }

  private static boolean hasCheckpoint(Path dir) throws java.io.IOException {
    try (var files = java.nio.file.Files.walk(dir)) {
      return files.anyMatch(p -> p.getFileName().toString().equals("_metadata"));
    }
  }
}
