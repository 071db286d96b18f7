package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.transforms.runtime.RestartBackoff;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replay, virtual states, rollback and transformation updates on real Pulsar, Redis and a Flink
 * MiniCluster: every virtual state is compared with the live view's own recorded states, or with an
 * oracle over the appended events.
 */
@org.junit.jupiter.api.Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
class ReplayIT {
  private static final String COUNT_SQL = "SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin";

  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static ViewStore views;
  private static TransformManager manager;
  private static ReplayMatchesLive replayCheck;

  @BeforeAll
  static void start() {
    harness = TransformsHarness.start("replay-transforms", options -> options.taskSlots(16));
    ledger = harness.ledger();
    views = harness.views();
    manager = harness.manager();
    replayCheck = ReplayMatchesLive.since(ledger);
  }

  @AfterAll
  static void stop() {
    try {
      if (manager != null) {
        // every view left (SQL and Java folds, one rolled back and resumed, one updated to version 2: 6 when the whole
        // class runs) equals its replay to its committed position
        replayCheck.check(manager, views, 10).assertComparedAny();
      }
    } finally {
      if (harness != null) {
        harness.close();
      }
    }
  }

  private static StreamRef flightsStream(String tenant) {
    StreamRef stream = new StreamRef(tenant, "flights");
    List<StreamColumn> columns = new ArrayList<>();
    for (String c : Flights.COLUMNS) {
      columns.add(new StreamColumn(c.split(":")[0], c.split(":")[1]));
    }
    ledger.createStream(stream, columns);
    return stream;
  }

  private static List<Appended> append(StreamRef stream, List<Flights.Flight> flights) {
    List<EventEnvelope> batch = new ArrayList<>();
    for (Flights.Flight f : flights) {
      batch.add(new EventEnvelope(f.origin(), "flight", f.eventTimeMs(), f.json(), "", Map.of()));
    }
    return ledger.append(stream, batch).join();
  }

  private static void awaitLive(ViewName name, long events) {
    Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> {
      ViewMetadata m = views.liveMetadata(name).orElse(null);
      return m != null && m.phase() == ViewPhase.LIVE && m.eventsApplied() == events;
    });
  }

  private static VirtualStateStatus awaitComplete(String tenant, String name) {
    AtomicReference<VirtualStateStatus> last = new AtomicReference<>();
    Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100)).until(() -> {
      VirtualStateStatus status = manager.virtualState(tenant, name);
      last.set(status);
      ViewPhase phase = status.progress().map(ViewMetadata::phase).orElse(ViewPhase.STARTING);
      if (phase == ViewPhase.FAILED) {
        throw new AssertionError("replay " + name + " failed: " + status.progress().get().error());
      }
      return phase == ViewPhase.COMPLETE;
    });
    return last.get();
  }

  private static Map<String, Map<String, String>> rows(String tenant, String name) {
    return views.snapshot(new ViewName(tenant, name), 1).rows();
  }

  private static Flights.Flight flight(String origin, String date) {
    return new Flights.Flight(date, 5, 100, origin, "SFO");
  }

  /**
   * A view job that fails is restarted from its latest checkpoint: meanwhile its status says RESTARTING (not
   * FAILED, which a waiting client takes as final) with the cause, and a Java fold's cause names the class, the
   * event's message ID and the row key.
   */
  @Test
  void aFailedJobWaitingForItsRestartSaysSoWithItsCause() {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = new StreamRef(tenant, "numbers");
    ledger.createStream(stream, List.of());
    List<Appended> ids = ledger.append(stream, List.of(
        new EventEnvelope("a", "n", 1_000, "{\"group\":\"a\",\"n\":1}", "", Map.of()),
        new EventEnvelope("boom", "n", 2_000, "{\"group\":\"boom\",\"n\":2}", "", Map.of()))).join();
    manager.createFold(tenant, "sums", "numbers", dev.streamfold.transforms.fold.TestFolds.jar(),
        dev.streamfold.transforms.fold.TestFolds.Sum.class.getName());
    try {
      AtomicReference<ViewStatus> seen = new AtomicReference<>();
      Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50)).until(() -> {
        ViewStatus status = manager.status(tenant, "sums");
        seen.set(status);
        assertThat(status.jobState()).as("a job waiting for its restart is not FAILED").isNotEqualTo("FAILED");
        return status.jobState().equals("RESTARTING");
      });
      assertThat(seen.get().error()).startsWith("restart 1 of " + RestartBackoff.DEFAULT_MAX_RESTARTS + " after: "
          + dev.streamfold.transforms.fold.TestFolds.Sum.class.getName() + " failed on event " + ids.get(1).messageId()
          + " (row key 'boom'): java.lang.IllegalStateException: boom");
    } finally {
      manager.delete(tenant, "sums");
    }
  }

  /**
   * A replay plans the view's SQL against the stream's current columns. After a column the view uses was removed,
   * the replay failed with an internal error and left its virtual state BACKFILLING for good, its name taken
   * (tryout 14). Now: FAILED_PRECONDITION naming the cause, nothing left behind, and the same replay works once the
   * column is back as it was.
   */
  @Test
  void aReplayThatNoLongerPlansIsRefusedAndLeavesNothingBehind() {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = flightsStream(tenant);
    List<StreamColumn> columns = ledger.columns(stream);
    append(stream, List.of(flight("ATL", "2015-01-01T00:00:00"), flight("ATL", "2015-01-01T00:01:00")));
    manager.create(tenant, "delays", "SELECT origin, SUM(distance) AS d FROM flights GROUP BY origin", List.of());
    try {
      awaitLive(new ViewName(tenant, "delays"), 2);
      ledger.updateSchema(stream, columns.stream().filter(c -> !c.name().equals("distance")).toList());
      for (int attempt = 0; attempt < 2; attempt++) {
        assertThatThrownBy(() -> manager.replay(tenant, "delays", Optional.empty(), ReplayCursor.latest(),
            Optional.of("now")))
            .isInstanceOf(TransformException.Conflict.class)
            .hasMessageStartingWith("view 'delays' (version 1) cannot be replayed: its transformation does not plan"
                + " against the current columns of stream 'flights'")
            .hasMessageContaining("distance");
        assertThat(views.virtualState(new ViewName(tenant, "now"))).as("nothing left behind").isEmpty();
      }
      ledger.updateSchema(stream, columns);
      manager.replay(tenant, "delays", Optional.empty(), ReplayCursor.latest(), Optional.of("now"));
      awaitComplete(tenant, "now");
      assertThat(rows(tenant, "now").get("ATL")).containsEntry("d", "200");
    } finally {
      manager.delete(tenant, "delays");
    }
  }

  /**
   * Proof 1: replay to every position the live view was seen at gives exactly the rows it had then; for a
   * SQL transformation and for a Java one (a fold from an uploaded jar).
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"sql", "fold"})
  void replayToARecordedPositionEqualsTheLiveViewAtThatPosition(String kind) throws Exception {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = flightsStream(tenant);
    if (kind.equals("sql")) {
      manager.create(tenant, "delays", Flights.DELAYS_BY_ORIGIN_SQL, List.of());
    } else {
      manager.createFold(tenant, "delays", "flights", dev.streamfold.transforms.fold.TestFolds.jar(),
          dev.streamfold.transforms.fold.TestFolds.FlightsByOrigin.class.getName());
    }
    ViewName live = new ViewName(tenant, "delays");
    List<Flights.Flight> flights = Flights.load(50_000);

    // Record (position, rows) of the live view while ingestion runs; the snapshot script reads both at once.
    // Before each record the view has applied every batch but the last, so each records a new position.
    Map<String, ViewStore.Snapshot> recorded = new LinkedHashMap<>();
    for (int from = 0; from < flights.size(); from += 1_000) {
      append(stream, flights.subList(from, from + 1_000));
      if (from % 4_000 == 0) {
        long appliedBefore = from;
        Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(50)).until(() -> {
          ViewMetadata m = views.liveMetadata(live).orElse(null);
          return m != null && m.eventsApplied() >= appliedBefore;
        });
        ViewStore.Snapshot seen = views.snapshot(live, views.servedVersion(live));
        if (!seen.position().isEmpty()) {
          recorded.putIfAbsent(seen.position().texts().get(0), seen);
        }
      }
    }
    awaitLive(live, 50_000);
    ViewStore.Snapshot end = views.snapshot(live, views.servedVersion(live));
    recorded.put(end.position().texts().get(0), end);
    assertThat(recorded).hasSizeGreaterThanOrEqualTo(4);

    List<String> names = new ArrayList<>();
    for (String position : recorded.keySet()) {
      names.add(manager.replay(tenant, "delays", Optional.empty(), ReplayCursor.parse(position, true),
          Optional.empty()).state().name().view());
    }
    int i = 0;
    for (Map.Entry<String, ViewStore.Snapshot> seen : recorded.entrySet()) {
      String name = names.get(i++);
      assertThat(name).isEqualTo("delays@" + seen.getKey());
      VirtualStateStatus status = awaitComplete(tenant, name);
      ViewMetadata meta = status.progress().orElseThrow();
      assertThat(meta.position().texts()).as(name).containsExactly(seen.getKey());
      assertThat(meta.eventsApplied()).as(name).isEqualTo(seen.getValue().eventsApplied());
      assertThat(rows(tenant, name)).as(name).isEqualTo(seen.getValue().rows());
      assertThat(status.state().transformVersion()).isEqualTo(1);
      assertThat(status.state().fullHistory()).isTrue();
    }
    // The position form is readable like any view.
    String lastName = names.get(names.size() - 1);
    assertThat(views.row(new ViewName(tenant, lastName), "ATL")).isEqualTo(views.row(live, "ATL"));
  }

  /** Proof 2: message IDs inside one batched entry are exact cursors, as stops and as starts. */
  @Test
  void batchIndexesAreExactCursors() {
    String tenant = null;
    List<Appended> batch = null;
    for (int attempt = 0; attempt < 10 && batch == null; attempt++) { // a loaded machine may split the batch
      tenant = Testkit.uniqueName("t");
      StreamRef stream = flightsStream(tenant);
      append(stream, List.of(flight("ORD", "2015-01-01T00:00:00"), flight("LAS", "2015-01-01T00:00:00")));
      List<Flights.Flight> ten = new ArrayList<>();
      for (int k = 0; k < 10; k++) {
        ten.add(flight("LAS", "2015-01-02T00:00:0" + k));
      }
      List<Appended> ids = append(stream, ten);
      MessageId first = ids.get(0).messageId();
      boolean oneEntry = ids.stream().allMatch(a -> a.messageId().ledgerId() == first.ledgerId()
          && a.messageId().entryId() == first.entryId());
      append(stream, List.of(flight("LAS", "2015-01-03T00:00:00"), flight("ORD", "2015-01-03T00:00:00")));
      if (oneEntry) {
        batch = ids;
      }
    }
    assertThat(batch).as("10 events appended at once land in one batched entry").isNotNull();
    for (int k = 0; k < 10; k++) {
      assertThat(batch.get(k).messageId().batchIndex()).isEqualTo(k);
    }
    manager.create(tenant, "counts", COUNT_SQL, List.of());
    awaitLive(new ViewName(tenant, "counts"), 14);

    String id4 = batch.get(4).messageId().toString();
    String id5 = batch.get(5).messageId().toString();
    // One earlier LAS event, then batch indexes 0..: --before 4 applies 1 + 4, --to 4 applies 1 + 5, ...
    Map<String, Long> expectedLas = new LinkedHashMap<>();
    expectedLas.put("before4", 5L);
    expectedLas.put("to4", 6L);
    expectedLas.put("before5", 6L);
    expectedLas.put("to5", 7L);
    final String t = tenant;
    manager.replay(t, "counts", Optional.empty(), ReplayCursor.parse(id4, false), Optional.of("before4"));
    manager.replay(t, "counts", Optional.empty(), ReplayCursor.parse(id4, true), Optional.of("to4"));
    manager.replay(t, "counts", Optional.empty(), ReplayCursor.parse(id5, false), Optional.of("before5"));
    manager.replay(t, "counts", Optional.empty(), ReplayCursor.parse(id5, true), Optional.of("to5"));
    // From inside the batch to inside the batch: indexes 2..5 only.
    manager.replay(t, "counts", Optional.of(ReplayCursor.parse(batch.get(2).messageId().toString(), true)),
        ReplayCursor.parse(id5, true), Optional.of("from2to5"));
    expectedLas.forEach((name, n) -> {
      VirtualStateStatus status = awaitComplete(t, name);
      assertThat(rows(t, name).get("LAS")).as(name).containsEntry("n", Long.toString(n));
      assertThat(rows(t, name).get("ORD")).as(name).containsEntry("n", "1");
      assertThat(status.progress().orElseThrow().eventsApplied()).as(name).isEqualTo(n + 1);
    });
    assertThat(awaitComplete(t, "to5").progress().orElseThrow().position().texts()).containsExactly(id5);
    VirtualStateStatus window = awaitComplete(t, "from2to5");
    assertThat(window.state().fullHistory()).isFalse();
    assertThat(rows(t, "from2to5")).containsOnlyKeys("LAS");
    assertThat(rows(t, "from2to5").get("LAS")).containsEntry("n", "4");
    assertThatThrownBy(() -> manager.rollback(t, "counts", "from2to5"))
        .isInstanceOf(TransformException.Conflict.class).hasMessageContaining("not at the earliest event");
    // Batch index -1 names an entry that is not batched: refused on this one, saying which indexes it holds.
    MessageId first = batch.get(0).messageId();
    String entry = first.ledgerId() + ":" + first.entryId() + ":" + first.partition() + ":";
    for (boolean inclusive : new boolean[] {true, false}) {
      assertThatThrownBy(() -> manager.replay(t, "counts", Optional.empty(), ReplayCursor.parse(entry + "-1", inclusive),
          Optional.of("whole_entry")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("message ID " + entry + "-1 names no event of stream " + t + "/flights")
          .hasMessageContaining("is batched")
          .hasMessageContaining("it holds batch indexes 0 to 9 (" + entry + "0 to " + entry + "9; up to and including "
              + entry + "9 is the whole entry)");
    }
    assertThatThrownBy(() -> manager.replay(t, "counts", Optional.of(ReplayCursor.parse(entry + "-1", true)),
        ReplayCursor.parse(id5, true), Optional.of("whole_entry"))).hasMessageContaining("is batched");
  }

  /** Proof 3 and the cursor rules: empty stream, latest, time cursors, out-of-range message IDs. */
  @Test
  void cursorEdgesAreExactAndNeverHang() {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = flightsStream(tenant);
    manager.create(tenant, "counts", COUNT_SQL, List.of());
    ViewName live = new ViewName(tenant, "counts");

    manager.replay(tenant, "counts", Optional.empty(), ReplayCursor.latest(), Optional.of("empty"));
    VirtualStateStatus empty = awaitComplete(tenant, "empty");
    assertThat(rows(tenant, "empty")).isEmpty();
    assertThat(empty.progress().orElseThrow().eventsApplied()).isZero();
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.empty(),
        ReplayCursor.parse("1:2:-1:-1", true), Optional.of("x")))
        .isInstanceOf(TransformException.InvalidReplay.class)
        .hasMessageContaining(tenant + "/flights").hasMessageContaining("empty");

    List<Appended> ids = new ArrayList<>();
    for (int day = 1; day <= 9; day++) {
      ids.addAll(append(stream, List.of(flight("LAS", "2015-01-0" + day + "T12:00:00"),
          flight(day % 2 == 0 ? "ORD" : "JFK", "2015-01-0" + day + "T12:00:00"))));
    }
    awaitLive(live, 18);
    String latestName = manager.replay(tenant, "counts", Optional.empty(), ReplayCursor.latest(), Optional.empty())
        .state().name().view();
    assertThat(latestName).isEqualTo("counts@" + ids.get(17).messageId());
    awaitComplete(tenant, latestName);
    assertThat(rows(tenant, latestName)).isEqualTo(views.snapshot(live, views.servedVersion(live)).rows());

    // Event-time stops: --to includes the time itself, --before excludes it.
    manager.replay(tenant, "counts", Optional.empty(), ReplayCursor.parse("2015-01-03T12:00:00Z", true),
        Optional.of("to_jan3"));
    manager.replay(tenant, "counts", Optional.empty(), ReplayCursor.parse("2015-01-03T12:00:00Z", false),
        Optional.of("before_jan3"));
    manager.replay(tenant, "counts", Optional.empty(), ReplayCursor.parse("2014-01-01", true),
        Optional.of("before_everything"));
    manager.replay(tenant, "counts", Optional.empty(), ReplayCursor.parse("2030-01-01", true),
        Optional.of("past_the_end"));
    manager.replay(tenant, "counts", Optional.of(ReplayCursor.parse("2014-01-01", true)),
        ReplayCursor.parse(ids.get(3).messageId().toString(), true), Optional.of("from_before_everything"));
    manager.replay(tenant, "counts", Optional.of(ReplayCursor.parse("2015-01-08", true)),
        ReplayCursor.latest(), Optional.of("from_jan8"));
    assertThat(rows(tenant, awaitName(tenant, "to_jan3"))).isEqualTo(Map.of(
        "LAS", Map.of("origin", "LAS", "n", "3"), "JFK", Map.of("origin", "JFK", "n", "2"),
        "ORD", Map.of("origin", "ORD", "n", "1")));
    assertThat(rows(tenant, awaitName(tenant, "before_jan3"))).isEqualTo(Map.of(
        "LAS", Map.of("origin", "LAS", "n", "2"), "JFK", Map.of("origin", "JFK", "n", "1"),
        "ORD", Map.of("origin", "ORD", "n", "1")));
    assertThat(rows(tenant, awaitName(tenant, "before_everything"))).isEmpty();
    assertThat(rows(tenant, awaitName(tenant, "past_the_end"))).isEqualTo(rows(tenant, latestName));
    assertThat(rows(tenant, awaitName(tenant, "from_before_everything"))).isEqualTo(Map.of(
        "LAS", Map.of("origin", "LAS", "n", "2"), "JFK", Map.of("origin", "JFK", "n", "1"),
        "ORD", Map.of("origin", "ORD", "n", "1")));
    assertThat(rows(tenant, awaitName(tenant, "from_jan8"))).isEqualTo(Map.of(
        "LAS", Map.of("origin", "LAS", "n", "2"), "JFK", Map.of("origin", "JFK", "n", "1"),
        "ORD", Map.of("origin", "ORD", "n", "1")));

    MessageId last = ids.get(17).messageId();
    MessageId beyond = new MessageId(last.ledgerId(), last.entryId() + 1000, last.partition(), -1);
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.empty(), ReplayCursor.parse(beyond.toString(), true),
        Optional.of("beyond")))
        .isInstanceOf(TransformException.InvalidReplay.class)
        .hasMessageContaining("message ID " + beyond + " is not in stream " + tenant + "/flights")
        .hasMessageContaining(ids.get(0).messageId().toString())
        .hasMessageContaining(last.toString());
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.of(ReplayCursor.parse(ids.get(5).messageId().toString(), true)),
        ReplayCursor.parse(ids.get(2).messageId().toString(), true), Optional.of("backwards")))
        .isInstanceOf(TransformException.InvalidReplay.class).hasMessageContaining("after the stop");
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.of(ReplayCursor.parse(ids.get(5).messageId().toString(), true)),
        ReplayCursor.parse(ids.get(5).messageId().toString(), false), Optional.of("empty_window")))
        .isInstanceOf(TransformException.InvalidReplay.class)
        .hasMessageContaining("is not before the stop (--before) " + ids.get(5).messageId());
    // Event times: the start is the first event at or after its time, past the stop time, so the range is empty.
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.of(ReplayCursor.parse("2015-01-08T12:00:00", true)),
        ReplayCursor.parse("2015-01-08T06:00:00", true), Optional.of("backwards_in_time")))
        .isInstanceOf(TransformException.InvalidReplay.class)
        .hasMessage("the start (from 2015-01-08T12:00:00Z) is after the stop (to 2015-01-08T06:00:00Z): nothing to replay");
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.of(ReplayCursor.parse("2015-01-08", true)),
        ReplayCursor.parse("2015-01-08", false), Optional.of("empty_time_window")))
        .isInstanceOf(TransformException.InvalidReplay.class).hasMessageContaining("(before 2015-01-08T00:00:00Z)");
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.empty(), ReplayCursor.latest(),
        Optional.of("counts"))) // a view's own name is taken
        .isInstanceOf(TransformException.VirtualStateExists.class);
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.empty(), ReplayCursor.latest(),
        Optional.empty())) // and so is the position form, once replayed
        .isInstanceOf(TransformException.VirtualStateExists.class);
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.empty(),
        ReplayCursor.parse("2015-01-03", true), Optional.empty()))
        .isInstanceOf(TransformException.InvalidReplay.class).hasMessageContaining("--as");
    assertThatThrownBy(() -> manager.replay(tenant, "counts", Optional.empty(),
        ReplayCursor.parse(ids.get(3).messageId().toString(), true), Optional.of("counts@" + ids.get(5).messageId())))
        .as("a position-form name must say where the state stops")
        .isInstanceOf(TransformException.InvalidReplay.class).hasMessageContaining("position form")
        .hasMessageContaining("counts@" + ids.get(3).messageId());
    assertThat(manager.virtualStates(tenant)).extracting(s -> s.state().name().view())
        .contains("empty", "to_jan3", latestName);
    assertThat(manager.dropVirtualState(tenant, "empty")).isTrue();
    assertThat(manager.dropVirtualState(tenant, "empty")).isFalse();
    assertThat(views.virtualState(new ViewName(tenant, "empty"))).isEmpty();
  }

  private static String awaitName(String tenant, String name) {
    awaitComplete(tenant, name);
    return name;
  }

  /** Proof 4: rollback and resume switch readers atomically between two whole states. */
  @Test
  void rollbackAndResumeAreAtomicForReaders() throws Exception {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = flightsStream(tenant);
    List<Flights.Flight> flights = Flights.load(20_000);
    List<Appended> ids = append(stream, flights.subList(0, 10_000));
    append(stream, flights.subList(10_000, 20_000));
    manager.create(tenant, "delays", Flights.DELAYS_BY_ORIGIN_SQL, List.of());
    ViewName live = new ViewName(tenant, "delays");
    awaitLive(live, 20_000);
    String at = ids.get(9_999).messageId().toString();
    String state = manager.replay(tenant, "delays", Optional.empty(), ReplayCursor.parse(at, true), Optional.empty())
        .state().name().view();
    awaitComplete(tenant, state);
    assertThat(manager.dropVirtualState(tenant, "nope")).isFalse();
    List<String> keys = new ArrayList<>(Flights.delaysByOrigin(flights).keySet());
    Map<String, Map<String, String>> liveRows = views.snapshot(live, views.servedVersion(live)).rows();
    Map<String, Map<String, String>> pastRows = rows(tenant, state);
    Map<String, Flights.Delays> pastOracle = Flights.delaysByOrigin(flights.subList(0, 10_000));
    assertThat(pastRows.keySet()).isEqualTo(pastOracle.keySet());
    pastOracle.forEach((origin, d) -> {
      assertThat(pastRows.get(origin)).containsEntry("flights", Long.toString(d.flights()))
          .containsEntry("delayed", Long.toString(d.delayed()));
      assertThat(Double.parseDouble(pastRows.get(origin).get("avg_delay"))).isCloseTo(d.avgDelay(),
          org.assertj.core.api.Assertions.within(1e-9));
    });
    assertThat(pastRows).isNotEqualTo(liveRows);

    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong reads = new AtomicLong();
    AtomicLong pastReads = new AtomicLong();
    AtomicLong liveReads = new AtomicLong();
    AtomicReference<String> torn = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      while (running.get()) {
        List<Optional<Map<String, String>>> got = views.rows(live, keys);
        Map<String, Map<String, String>> seen = new TreeMap<>();
        for (int k = 0; k < keys.size(); k++) {
          int index = k;
          got.get(k).ifPresent(row -> seen.put(keys.get(index), row));
        }
        if (seen.equals(pastRows)) {
          pastReads.incrementAndGet();
        } else if (seen.equals(liveRows)) {
          liveReads.incrementAndGet();
        } else {
          torn.compareAndSet(null, "a read matched neither state: " + seen);
        }
        // and one single-row read, the HGETALL path
        Map<String, String> atl = views.row(live, "ATL").orElse(Map.of());
        if (!atl.equals(pastRows.get("ATL")) && !atl.equals(liveRows.get("ATL"))) {
          torn.compareAndSet(null, "a row matched neither state: " + atl);
        }
        reads.incrementAndGet();
      }
    });
    reader.start();
    for (int k = 0; k < 5; k++) {
      manager.rollback(tenant, "delays", state);
      assertThat(manager.status(tenant, "delays").rolledBackTo()).contains(state);
      awaitNextRead(pastReads); // the reader has read the rolled-back view
      assertThat(manager.resume(tenant, "delays")).isTrue();
      awaitNextRead(liveReads); // and the resumed one
    }
    manager.rollback(tenant, "delays", state);
    assertThat(views.metadata(live).orElseThrow().position().texts()).containsExactly(at);
    assertThat(views.liveMetadata(live).orElseThrow().eventsApplied()).isEqualTo(20_000);
    assertThatThrownBy(() -> manager.dropVirtualState(tenant, state))
        .isInstanceOf(TransformException.Conflict.class).hasMessageContaining("resume");
    awaitNextRead(pastReads);
    manager.resume(tenant, "delays");
    assertThat(manager.resume(tenant, "delays")).isFalse();
    running.set(false);
    reader.join();
    assertThat(torn.get()).isNull();
    assertThat(pastReads.get()).isPositive();
    assertThat(reads.get()).isGreaterThan(pastReads.get());
  }

  /** Wait (up to 1 minute) until the reader thread has counted one more read in {@code reads}. */
  private static void awaitNextRead(AtomicLong reads) {
    long before = reads.get();
    Awaitility.await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(10)).until(() -> reads.get() > before);
  }

  /** Proof 5: an update builds beside the served version and swaps in with no failed or empty read. */
  @Test
  void updateSwapsAtomicallyWhileIngestionRuns() throws Exception {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = flightsStream(tenant);
    List<Flights.Flight> flights = Flights.load(60_000);
    append(stream, flights.subList(0, 30_000));
    manager.create(tenant, "delays", COUNT_SQL, List.of());
    ViewName live = new ViewName(tenant, "delays");
    awaitLive(live, 30_000);

    assertThatThrownBy(() -> manager.update(tenant, "delays", "SELECT origin, COUNT(*) AS n FROM nowhere GROUP BY origin",
        List.of())).isInstanceOf(TransformException.InvalidSql.class);
    assertThat(manager.status(tenant, "delays").update()).isEmpty();
    assertThat(views.servedVersion(live)).isEqualTo(1);

    AtomicBoolean running = new AtomicBoolean(true);
    AtomicReference<String> problem = new AtomicReference<>();
    AtomicLong reads = new AtomicLong();
    Thread reader = new Thread(() -> {
      while (running.get()) {
        try {
          Optional<Map<String, String>> row = views.row(live, "ATL");
          if (row.isEmpty() || row.get().get("n") == null) {
            problem.compareAndSet(null, "empty read of ATL: " + row);
          }
          reads.incrementAndGet();
        } catch (RuntimeException e) {
          problem.compareAndSet(null, "read failed: " + e);
        }
      }
    });
    reader.start();
    Thread ingest = new Thread(() -> {
      for (int from = 30_000; from < 60_000; from += 1_000) {
        append(stream, flights.subList(from, from + 1_000));
      }
    });
    ingest.start();
    manager.replay(tenant, "delays", Optional.empty(), ReplayCursor.latest(), Optional.of("before_update"));
    String newSql = "SELECT origin, COUNT(*) AS n, MAX(delay) AS max_delay FROM flights GROUP BY origin";
    TransformDefinition next = manager.update(tenant, "delays", newSql, List.of());
    assertThat(next.version()).isEqualTo(2);
    assertThat(manager.status(tenant, "delays").update()).isPresent();
    // The job serves v2 in Redis the moment it is LIVE; the manager's housekeeping moves it into the catalog
    // later. Holding the manager's monitor keeps housekeeping from finishing the update, so what the
    // manager reports is read in that window: it must already be what reads (and VIEW.INFO) see.
    synchronized (manager) {
      Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100))
          .until(() -> views.servedVersion(live) >= 2);
      ViewStatus swapped = manager.status(tenant, "delays");
      assertThat(swapped.servedVersion()).isEqualTo(2);
      // The view hash describes the version it names from the moment it names it (the serve writes both; a
      // tryout saw v1's columns for ~2.5 s, until housekeeping finished the update).
      io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(Testkit.redis().uri());
      try (var connection = raw.connect()) {
        assertThat(connection.sync().hget("sf:{" + tenant + ":delays}:view", "columns"))
            .as("v2's columns").contains("max_delay");
      } finally {
        raw.shutdown();
      }
      assertThat(swapped.definition().version()).as("the served version, not the one the catalog still holds")
          .isEqualTo(2);
      assertThat(swapped.definition().sql()).isEqualTo(newSql);
      assertThat(swapped.update()).as("a served update is no longer in progress").isEmpty();
      assertThat(swapped.building().map(ViewMetadata::version)).as("the figures of the served version")
          .isEqualTo(views.metadata(live).map(ViewMetadata::version)).contains(2);
      assertThat(swapped.building().map(ViewMetadata::phase)).contains(ViewPhase.LIVE);
      assertThat(manager.get(tenant, "delays").version()).isEqualTo(2);
      assertThat(manager.list(tenant)).extracting(TransformDefinition::version).containsExactly(2);
    }
    ingest.join();
    Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100))
        .until(() -> manager.get(tenant, "delays").version() == 2 && manager.status(tenant, "delays").update().isEmpty());
    awaitLive(live, 60_000);
    running.set(false);
    reader.join();
    assertThat(problem.get()).isNull();
    assertThat(reads.get()).isPositive();
    assertThat(views.servedVersion(live)).isEqualTo(2);
    Awaitility.await("the old version is retired").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> views.metadata(live, 1).isEmpty());
    Map<String, long[]> oracle = new TreeMap<>();
    for (Flights.Flight f : flights) {
      long[] acc = oracle.computeIfAbsent(f.origin(), o -> new long[] {0, Long.MIN_VALUE});
      acc[0]++;
      acc[1] = Math.max(acc[1], f.delay());
    }
    Map<String, Map<String, String>> expected = new TreeMap<>();
    oracle.forEach((origin, acc) -> expected.put(origin,
        Map.of("origin", origin, "n", Long.toString(acc[0]), "max_delay", Long.toString(acc[1]))));
    assertThat(views.snapshot(live, 2).rows()).isEqualTo(expected);
    assertThat(views.row(live, "ATL").orElseThrow().keySet()).containsExactly("origin", "n", "max_delay");
    assertThat(manager.status(tenant, "delays").definition().sql()).isEqualTo(newSql);
    awaitComplete(tenant, "before_update");
    assertThatThrownBy(() -> manager.rollback(tenant, "delays", "before_update"))
        .as("a state of the old SQL does not silently replace the new version's rows")
        .isInstanceOf(TransformException.Conflict.class).hasMessageContaining("other SQL");
  }
}
