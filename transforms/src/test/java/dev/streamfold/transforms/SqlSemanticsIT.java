package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.fixtures.ViewAwaits;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewStore;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The SQL semantics a view pins down (README, "SQL semantics"), each on real Pulsar, Redis and Flink:
 * event-time windows with deterministic watermarks, late events, ordering of LAST_VALUE, retractions.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SqlSemanticsIT {
  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static ViewStore views;
  private static TransformManager manager;
  private static ReplayMatchesLive replayCheck;

  @BeforeAll
  static void start() {
    // the server's slots: window buffers need managed memory per slot
    harness = TransformsHarness.start("semantics-transforms",
        options -> options.taskSlots(TransformOptions.DEFAULT_TASK_SLOTS));
    ledger = harness.ledger();
    views = harness.views();
    manager = harness.manager();
    replayCheck = ReplayMatchesLive.since(ledger);
  }

  @AfterAll
  static void stop() {
    try {
      if (manager != null) {
        // every view of the semantics above (event-time windows, LAST_VALUE, HAVING retractions, keys holding the
        // separator) equals its replay to its committed position
        replayCheck.check(manager, views, 12).assertComparedAny();
      }
    } finally {
      if (harness != null) {
        harness.close();
      }
    }
  }

  private static long at(String time) {
    return LocalDateTime.parse("2015-01-01T" + time).toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  private static Appended click(StreamRef stream, String page, String time, Integer value) {
    String payload = "{\"page\":\"" + page.replace("\\", "\\\\") + "\"" + (value == null ? "" : ",\"v\":" + value) + "}";
    return ledger.append(stream, List.of(new EventEnvelope(page.isEmpty() ? "empty" : page, "click", at(time), payload,
        "", Map.of()))).join().get(0);
  }

  private static Appended clickRaw(StreamRef stream, String payload) {
    return ledger.append(stream, List.of(new EventEnvelope("raw", "click", at("10:00:00"), payload, "", Map.of())))
        .join().get(0);
  }

  private static Map<String, Map<String, String>> rows(ViewName name) {
    return views.snapshot(name, views.servedVersion(name)).rows();
  }

  private static StreamRef clicks(String tenant, long watermarkDelayMs) {
    StreamRef stream = new StreamRef(tenant, "clicks");
    ledger.createStream(stream, List.of(new StreamColumn("page", "STRING"), new StreamColumn("v", "INT")), watermarkDelayMs);
    return stream;
  }

  @Test
  void tumblingWindowsCloseOnTheWatermarkOfTheEventsInLedgerOrder() {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = clicks(tenant, 10_000);
    assertThat(ledger.describe(stream).watermarkDelayMs()).isEqualTo(10_000);
    String sql = "SELECT page, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(_event_time),"
        + " INTERVAL '1' MINUTE)) GROUP BY page, window_start, window_end";
    assertThatThrownBy(() -> manager.create(tenant, "per_minute", sql, List.of()))
        .isInstanceOf(TransformException.InvalidSql.class).hasMessageContaining("window_start");
    manager.create(tenant, "per_minute", sql, List.of("page", "window_start"));
    ViewName view = new ViewName(tenant, "per_minute");

    click(stream, "a", "00:00:05", null);
    click(stream, "a", "00:00:30", null);
    click(stream, "b", "00:00:40", null);
    click(stream, "a", "00:01:05", null); // watermark 00:00:55: the first minute is still open
    ViewAwaits.awaitLive(views, view, 4);
    assertThat(rows(view)).isEmpty();
    Appended closing = click(stream, "a", "00:01:15", null); // watermark 00:01:05 closes the first minute
    click(stream, "a", "00:00:50", null); // behind the watermark, its window closed: not counted, but counted as behind
    click(stream, "a", "00:02:20", null); // watermark 00:02:10 closes the second minute
    ViewMetadata meta = ViewAwaits.awaitLive(views, view, 7);
    assertThat(meta.eventsBehindWatermark()).isEqualTo(1);
    assertThat(rows(view)).isEqualTo(Map.of(
        "a|2015-01-01T00:00:00", Map.of("page", "a", "window_start", "2015-01-01T00:00:00", "n", "2"),
        "b|2015-01-01T00:00:00", Map.of("page", "b", "window_start", "2015-01-01T00:00:00", "n", "1"),
        "a|2015-01-01T00:01:00", Map.of("page", "a", "window_start", "2015-01-01T00:01:00", "n", "2")));

    // A replay closes exactly the windows the live view had closed at that position: the end of a replay
    // is not the end of time.
    String state = manager.replay(tenant, "per_minute", Optional.empty(),
        ReplayCursor.parse(closing.messageId().toString(), true), Optional.empty()).state().name().view();
    Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> manager.virtualState(tenant, state).progress()
        .map(m -> m.phase() == ViewPhase.COMPLETE || m.phase() == ViewPhase.FAILED).orElse(false));
    assertThat(manager.virtualState(tenant, state).progress().orElseThrow().phase()).isEqualTo(ViewPhase.COMPLETE);
    assertThat(views.snapshot(new ViewName(tenant, state), 1).rows()).isEqualTo(Map.of(
        "a|2015-01-01T00:00:00", Map.of("page", "a", "window_start", "2015-01-01T00:00:00", "n", "2"),
        "b|2015-01-01T00:00:00", Map.of("page", "b", "window_start", "2015-01-01T00:00:00", "n", "1")));
  }

  @Test
  void lastValueFollowsLedgerOrderAndHavingRetractsRows() {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = clicks(tenant, 0);
    manager.create(tenant, "latest", "SELECT page, LAST_VALUE(v) AS v FROM clicks GROUP BY page", List.of());
    manager.create(tenant, "rare", "SELECT page, COUNT(*) AS n FROM clicks GROUP BY page HAVING COUNT(*) < 3",
        List.of());
    manager.create(tenant, "counts", "SELECT page, COUNT(*) AS events, COUNT(v) AS with_v FROM clicks GROUP BY page",
        List.of());
    // Out of order in event time: the later event is appended first; LAST_VALUE takes the ledger's last.
    click(stream, "a", "10:00:00", 2);
    click(stream, "a", "09:00:00", 1);
    click(stream, "b", "09:00:00", null);
    click(stream, "a", "11:00:00", null);
    for (String v : List.of("latest", "rare", "counts")) {
      ViewAwaits.awaitLive(views, new ViewName(tenant, v), 4);
    }
    assertThat(rows(new ViewName(tenant, "latest"))).isEqualTo(Map.of(
        "a", Map.of("page", "a", "v", "1"), "b", Map.of("page", "b")));
    assertThat(rows(new ViewName(tenant, "rare"))).as("a reached 3 events: its row is deleted")
        .isEqualTo(Map.of("b", Map.of("page", "b", "n", "1")));
    assertThat(rows(new ViewName(tenant, "counts"))).as("COUNT(*) counts NULLs, COUNT(v) does not").isEqualTo(Map.of(
        "a", Map.of("page", "a", "events", "3", "with_v", "2"), "b", Map.of("page", "b", "events", "1", "with_v", "0")));
    // Live and replay agree on both.
    String state = manager.replay(tenant, "latest", Optional.empty(), ReplayCursor.latest(), Optional.of("latest_replayed"))
        .state().name().view();
    Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> manager.virtualState(tenant, state).progress()
        .map(m -> m.phase() == ViewPhase.COMPLETE).orElse(false));
    assertThat(views.snapshot(new ViewName(tenant, state), 1).rows()).isEqualTo(rows(new ViewName(tenant, "latest")));
  }

  /**
   * LAST_VALUE skips NULLs (Flink's semantics); the two ways the README gives for "NULL means cleared": a
   * sentinel through LAST_VALUE (ledger order, as LAST_VALUE), and the Top-1 row per key by event time.
   */
  @Test
  void nullMeansClearedWithASentinelOrTheLatestRow() {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = clicks(tenant, 0);
    manager.create(tenant, "last_value", "SELECT page, LAST_VALUE(v) AS v FROM clicks GROUP BY page", List.of());
    manager.create(tenant, "sentinel", "SELECT page, NULLIF(LAST_VALUE(COALESCE(v, -2147483648)), -2147483648) AS v"
        + " FROM clicks GROUP BY page", List.of());
    manager.create(tenant, "latest_row", "SELECT page, v FROM (SELECT page, v, ROW_NUMBER() OVER (PARTITION BY page"
        + " ORDER BY _event_time DESC) AS rn FROM clicks) WHERE rn = 1", List.of("page"));
    click(stream, "a", "10:00:00", 2);
    click(stream, "a", "09:00:00", 1);
    click(stream, "a", "10:30:00", null); // last in the ledger and latest in event time: cleared
    click(stream, "d", "11:00:00", null);
    click(stream, "d", "10:00:00", 3); // last in the ledger, not latest in event time
    click(stream, "t", "12:00:00", 5);
    click(stream, "t", "12:00:00", 6); // the same event time
    for (String v : List.of("last_value", "sentinel", "latest_row")) {
      ViewAwaits.awaitLive(views, new ViewName(tenant, v), 7);
    }
    assertThat(rows(new ViewName(tenant, "last_value"))).as("the last non-NULL value in ledger order").isEqualTo(Map.of(
        "a", Map.of("page", "a", "v", "1"), "d", Map.of("page", "d", "v", "3"), "t", Map.of("page", "t", "v", "6")));
    assertThat(rows(new ViewName(tenant, "sentinel"))).as("the last value in ledger order, NULL included").isEqualTo(
        Map.of("a", Map.of("page", "a"), "d", Map.of("page", "d", "v", "3"), "t", Map.of("page", "t", "v", "6")));
    assertThat(rows(new ViewName(tenant, "latest_row"))).as("the row of the latest event time, NULL included")
        .isEqualTo(Map.of("a", Map.of("page", "a"), "d", Map.of("page", "d"), "t", Map.of("page", "t", "v", "5")));
  }

  /**
   * NULL, the empty string and values holding the separator are different keys and get different rows. A
   * plain join of the parts gave NULL and "" one row (each group overwrote the other's), and ("x|y", "z")
   * and ("x", "y|z") one row.
   */
  @Test
  void everyKeyValueHasItsOwnRowNullEmptyAndSeparatorsIncluded() {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = clicks(tenant, 0);
    manager.create(tenant, "by_page", "SELECT page, COUNT(*) AS n FROM clicks GROUP BY page", List.of());
    manager.create(tenant, "by_page_v", "SELECT page, CAST(v AS STRING) AS v, COUNT(*) AS n FROM clicks"
        + " GROUP BY page, CAST(v AS STRING)", List.of("page", "v"));
    click(stream, "", "10:00:00", 1);
    click(stream, "", "10:00:00", 1);
    clickRaw(stream, "{\"v\":1}"); // page NULL
    click(stream, "x|y", "10:00:00", null);
    click(stream, "x", "10:00:00", null);
    click(stream, "back\\slash", "10:00:00", null);
    ViewAwaits.awaitLive(views, new ViewName(tenant, "by_page"), 6);
    ViewAwaits.awaitLive(views, new ViewName(tenant, "by_page_v"), 6);
    assertThat(rows(new ViewName(tenant, "by_page"))).isEqualTo(Map.of(
        "", Map.of("page", "", "n", "2"),
        "\\N", Map.of("n", "1"),
        "x\\|y", Map.of("page", "x|y", "n", "1"),
        "x", Map.of("page", "x", "n", "1"),
        "back\\\\slash", Map.of("page", "back\\slash", "n", "1")));
    assertThat(rows(new ViewName(tenant, "by_page_v")).keySet())
        .containsExactlyInAnyOrder("|1", "\\N|1", "x\\|y|\\N", "x|\\N", "back\\\\slash|\\N");
  }
}
