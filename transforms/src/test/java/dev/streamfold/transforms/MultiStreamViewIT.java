package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.clock.TickIndex;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Airports;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.SqlOracle;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.FlightEvents;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.fixtures.ViewAwaits;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A view over two streams, flights (2 partitions) joined with airports, on real Pulsar, Redis and Flink, with the
 * tenant clock ticking every 50 ms: after the backfill, at snapshots taken while both streams receive events
 * (airport corrections moving airports to another state among them), and after a restart, every row equals DuckDB's
 * answer to the same SQL over exactly the events the view's committed tick covers (read from the view's own
 * snapshot, atomically with its rows); a replay to one of those ticks equals the live view's snapshot at it, and
 * a rollback serves it.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class MultiStreamViewIT {
  /** Delays by state: each side grouped by the join key, the airport's latest state taken within its stream. */
  static final String DELAYS_BY_STATE = "SELECT a.state, SUM(f.n) AS flights, SUM(f.delay) AS delay"
      + " FROM (SELECT origin, COUNT(*) AS n, SUM(CAST(delay AS BIGINT)) AS delay FROM flights GROUP BY origin) f"
      + " JOIN (SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata) a ON f.origin = a.iata"
      + " GROUP BY a.state";
  /** The same in DuckDB: the latest state is the one of the airport event with the highest ordinal. */
  private static final String ORACLE = "SELECT a.state, SUM(f.n) AS flights, SUM(f.delay) AS delay"
      + " FROM (SELECT origin, COUNT(*) AS n, SUM(CAST(delay AS BIGINT)) AS delay FROM flights GROUP BY origin) f"
      + " JOIN (SELECT iata, arg_max(COALESCE(state, ''), seq) AS state FROM airports GROUP BY iata) a"
      + " ON f.origin = a.iata GROUP BY a.state";

  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static ViewStore views;

  /** An appended event: its stream's message ID and what the oracle's table holds of it. */
  private record Sent(MessageId id, List<Object> row) {}

  @BeforeAll
  static void start() throws Exception {
    harness = TransformsHarness.connect(Duration.ofMillis(50));
    ledger = harness.ledger();
    views = harness.views();
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  private static TransformManager manager(String tenant) {
    return harness.startManager(TransformsHarness.options("multi-stream-" + tenant).tenants(Set.of(tenant)).parallelism(2).taskSlots(8)
        .build());
  }

  private static List<Sent> appendFlights(StreamRef stream, List<Flights.Flight> flights, int batch) {
    List<Appended> ids = FlightEvents.append(ledger, stream, flights, batch);
    List<Sent> sent = new ArrayList<>();
    for (int i = 0; i < flights.size(); i++) {
      sent.add(new Sent(ids.get(i).messageId(), Arrays.asList(flights.get(i).origin(), flights.get(i).delay())));
    }
    return sent;
  }

  /** Append airports one batch a call; {@code seq} orders them as their stream's ledger does (one partition). */
  private static List<Sent> appendAirports(StreamRef stream, List<Airports.Airport> airports, long firstSeq, int batch) {
    List<Sent> sent = new ArrayList<>();
    for (int from = 0; from < airports.size(); from += batch) {
      List<Airports.Airport> part = airports.subList(from, Math.min(airports.size(), from + batch));
      List<Appended> ids = ledger.append(stream, part.stream()
          .map(a -> new EventEnvelope(a.iata(), "airport", 1_000L, a.json(), "", Map.of())).toList()).join();
      for (int i = 0; i < part.size(); i++) {
        sent.add(new Sent(ids.get(i).messageId(), Arrays.asList(part.get(i).iata(), part.get(i).state(),
            firstSeq + from + i)));
      }
    }
    return sent;
  }

  /** DuckDB's rows over exactly the events {@code position} covers. */
  private static Map<String, Map<String, Object>> oracle(ClockPosition position, List<Sent> flights, List<Sent> airports) {
    try (SqlOracle duck = SqlOracle.open()) {
      duck.table("flights", List.of("origin:STRING", "delay:INT"), covered(position, "flights", flights));
      duck.table("airports", List.of("iata:STRING", "state:STRING", "seq:BIGINT"), covered(position, "airports", airports));
      return duck.rows(ORACLE, "state");
    }
  }

  private static List<List<?>> covered(ClockPosition position, String stream, List<Sent> sent) {
    List<List<?>> rows = new ArrayList<>();
    for (Sent s : sent) {
      if (position.position(stream).reached(s.id())) {
        rows.add(s.row());
      }
    }
    return rows;
  }

  /** Every row of the snapshot equals the oracle's over the events of the snapshot's tick; the tick's events. */
  private static long assertEqualsOracleAtItsTick(ViewName name, List<Sent> flights, List<Sent> airports) {
    return assertEqualsOracleAtItsTick(name, views.snapshot(name, 1), flights, airports);
  }

  /**
   * As {@link #assertEqualsOracleAtItsTick(ViewName, List, List)}, for a snapshot taken earlier: {@code flights} and
   * {@code airports} must hold every event appended before it was taken.
   */
  private static long assertEqualsOracleAtItsTick(ViewName name, ViewStore.Snapshot snapshot, List<Sent> flights,
      List<Sent> airports) {
    ClockPosition at = snapshot.clockPosition();
    assertThat(at.isNone()).as("a view over two streams commits at ticks").isFalse();
    Map<String, Map<String, Object>> expected = oracle(at, flights, airports);
    assertThat(snapshot.rows().keySet()).as("states at " + at).containsExactlyInAnyOrderElementsOf(expected.keySet());
    expected.forEach((state, row) -> {
      Map<String, String> actual = snapshot.rows().get(state);
      assertThat(actual.get("flights")).as(state + " flights at tick " + at.tick()).isEqualTo(String.valueOf(row.get("flights")));
      assertThat(actual.get("delay")).as(state + " delay at tick " + at.tick()).isEqualTo(String.valueOf(row.get("delay")));
    });
    long events = covered(at, "flights", flights).size() + covered(at, "airports", airports).size();
    assertThat(snapshot.eventsApplied()).as("events applied at tick " + at.tick()).isEqualTo(events);
    if (at.tick() > 0) {
      Tick tick = ledger.ticks(name.tenant(), at.tick() - 1, 1).get(0);
      assertThat(at).as("the committed position is the tick's own").isEqualTo(ClockPosition.at(tick,
          List.of("airports", "flights")));
    }
    return events;
  }

  private static void awaitComplete(TransformManager manager, ViewName state) {
    Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> {
      ViewPhase phase = manager.virtualState(state.tenant(), state.view()).progress().map(ViewMetadata::phase)
          .orElse(ViewPhase.STARTING);
      assertThat(phase).as(() -> String.valueOf(manager.virtualState(state.tenant(), state.view()).progress()))
          .isNotEqualTo(ViewPhase.FAILED);
      return phase == ViewPhase.COMPLETE;
    });
  }

  @Test
  void aJoinOfTwoStreamsEqualsDuckDbAtEveryCommittedTickThroughCorrectionsAndARestart() throws Exception {
    String tenant = Testkit.uniqueName("multi");
    StreamRef flightStream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"), 2);
    StreamRef airportStream = new StreamRef(tenant, "airports");
    ledger.createStream(airportStream, Airports.COLUMNS.stream()
        .map(c -> new StreamColumn(c.split(":")[0], c.split(":")[1])).toList(), 0, 0);
    ledger.ensureTenant(tenant);
    List<Flights.Flight> all = Flights.load(32_000);
    List<Airports.Airport> airportList = Airports.load();
    List<Sent> flights = Collections.synchronizedList(new ArrayList<>(appendFlights(flightStream, all.subList(0, 20_000),
        1_000)));
    List<Sent> airports = Collections.synchronizedList(new ArrayList<>(appendAirports(airportStream, airportList, 0, 500)));
    ViewName name = new ViewName(tenant, "delays_by_state");

    TransformManager manager = manager(tenant);
    try {
      TransformDefinition definition = manager.create(tenant, "delays_by_state", DELAYS_BY_STATE, List.of());
      assertThat(definition.streams()).containsExactly("airports", "flights");
      ViewMetadata live = ViewAwaits.awaitLive(views, name, 1, 20_000 + airportList.size());
      assertThat(live.clockPosition().tick()).isGreaterThanOrEqualTo(live.backfillTargetClock().tick());
      assertThat(live.position().isEmpty()).isTrue();
      assertEqualsOracleAtItsTick(name, flights, airports);

      // Move the airports of the three busiest origins to another state while flights keep arriving
      Map<String, Long> byOrigin = new TreeMap<>();
      all.subList(0, 20_000).forEach(f -> byOrigin.merge(f.origin(), 1L, Long::sum));
      List<String> busiest = byOrigin.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
          .limit(3).map(Map.Entry::getKey).toList();
      List<Airports.Airport> corrections = airportList.stream().filter(a -> busiest.contains(a.iata()))
          .map(a -> a.inState("ZZ")).toList();
      assertThat(corrections).hasSize(3);
      CompletableFuture<Void> flightsArriving = CompletableFuture.runAsync(() -> {
        for (int from = 20_000; from < 30_000; from += 500) { // 500 flights every ~100 ms, over several checkpoints
          flights.addAll(appendFlights(flightStream, all.subList(from, from + 500), 100));
          try {
            Thread.sleep(100);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        }
      });
      Thread.sleep(300);
      airports.addAll(appendAirports(airportStream, corrections, airportList.size(), 1));
      // snapshots while both streams receive events, checked once every event appended is known with its ID
      List<ViewStore.Snapshot> snapshots = new ArrayList<>();
      while (!flightsArriving.isDone()) {
        snapshots.add(views.snapshot(name, 1));
        Thread.sleep(250);
      }
      flightsArriving.get(2, TimeUnit.MINUTES);
      List<Long> checked = new ArrayList<>();
      for (ViewStore.Snapshot snapshot : snapshots) {
        checked.add(assertEqualsOracleAtItsTick(name, snapshot, flights, airports));
      }
      assertThat(checked.stream().distinct().count()).as("distinct ticks checked while events arrived: " + checked)
          .isGreaterThan(2);
      ViewAwaits.awaitLive(views, name, 1, 30_000 + airportList.size() + 3);
      assertEqualsOracleAtItsTick(name, flights, airports);
      assertThat(views.row(name, "ZZ")).as("the corrected airports' flights moved to their new state").isPresent();
      System.out.println("[multi-stream] snapshots checked while both streams received events, events at each: " + checked);

      // A replay to a tick seen while events arrived equals the live view at that tick; a rollback serves it
      ViewStore.Snapshot seen = snapshots.get(snapshots.size() / 2);
      long tick = seen.clockPosition().tick();
      manager.replay(tenant, "delays_by_state", Optional.empty(), ReplayCursor.parse("tick:" + tick, true),
          Optional.of("at_tick"));
      ViewName atTick = new ViewName(tenant, "at_tick");
      awaitComplete(manager, atTick);
      ViewStore.Snapshot replayed = views.snapshot(atTick, 1);
      assertThat(replayed.clockPosition()).isEqualTo(seen.clockPosition());
      assertThat(replayed.eventsApplied()).isEqualTo(seen.eventsApplied());
      assertThat(replayed.rows()).isEqualTo(seen.rows());
      manager.rollback(tenant, "delays_by_state", "at_tick");
      String someState = seen.rows().keySet().iterator().next();
      assertThat(views.row(name, someState)).hasValue(seen.rows().get(someState));
      manager.resume(tenant, "delays_by_state");

      // One instant across views: a view over flights alone, replayed to the same tick, counts the flights it covers
      manager.create(tenant, "flights_by_origin", "SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin", List.of());
      ViewAwaits.awaitLive(views, new ViewName(tenant, "flights_by_origin"), 1, 30_000);
      manager.replay(tenant, "flights_by_origin", Optional.empty(), ReplayCursor.parse("tick:" + tick, true),
          Optional.of("origins_at_tick"));
      ViewName originsAtTick = new ViewName(tenant, "origins_at_tick");
      awaitComplete(manager, originsAtTick);
      Map<String, String> expectedCounts = new TreeMap<>();
      for (List<?> flight : covered(seen.clockPosition(), "flights", flights)) {
        expectedCounts.merge((String) flight.get(0), "1", (a, b) -> Long.toString(Long.parseLong(a) + 1));
      }
      Map<String, String> counts = new TreeMap<>();
      views.snapshot(originsAtTick, 1).rows().forEach((origin, row) -> counts.put(origin, row.get("n")));
      assertThat(counts).as("flights by origin at tick " + tick).isEqualTo(expectedCounts);

      // A replay to a message ID of either stream stops at the first tick covering it (--before: the tick before);
      // to a time, at the last tick recorded at or before it
      TickIndex clock = new TickIndex(ledger.ticks(tenant, 0, 1_000_000));
      MessageId correction = airports.get(airports.size() - 1).id();
      long covering = clock.firstCovering("airports", correction).orElseThrow();
      manager.replay(tenant, "delays_by_state", Optional.empty(), ReplayCursor.parse(correction.toString(), true),
          Optional.of("at_correction"));
      ViewName atCorrection = new ViewName(tenant, "at_correction");
      awaitComplete(manager, atCorrection);
      assertThat(views.snapshot(atCorrection, 1).clockPosition().tick()).isEqualTo(covering);
      assertEqualsOracleAtItsTick(atCorrection, flights, airports);
      MessageId aFlight = flights.get(flights.size() / 2).id();
      assertThat(manager.replay(tenant, "delays_by_state", Optional.empty(), ReplayCursor.parse(aFlight.toString(), false),
          Optional.of("before_flight")).state().stop()).isEqualTo("to tick:" + (clock.firstCovering("flights", aFlight)
          .orElseThrow() - 1));
      Tick seenTick = clock.ticks().stream().filter(t -> t.number() == tick).findFirst().orElseThrow();
      assertThat(manager.replay(tenant, "delays_by_state", Optional.empty(),
          ReplayCursor.parse(java.time.Instant.ofEpochMilli(seenTick.timeMs()).toString(), true), Optional.of("by_time"))
          .state().stop()).isEqualTo("to tick:" + tick);
      assertThatThrownBy(() -> manager.replay(tenant, "delays_by_state", Optional.empty(),
          ReplayCursor.parse("999999:0:-1:-1", true), Optional.of("elsewhere"))).isInstanceOf(TransformException.InvalidReplay.class)
          .hasMessageContaining("message ID 999999:0:-1:-1 is in none of the streams view 'delays_by_state' reads");
      assertThatThrownBy(() -> manager.replay(tenant, "delays_by_state", Optional.empty(),
          ReplayCursor.parse("tick:999999999", true), Optional.of("too_far"))).isInstanceOf(TransformException.InvalidReplay.class)
          .hasMessageContaining("has no tick 999999999 yet");
    } finally {
      manager.close();
    }

    // Restart: the job resumes after the committed tick, from its retained checkpoint, with events appended while down
    flights.addAll(appendFlights(flightStream, all.subList(30_000, 32_000), 500));
    TransformManager restarted = manager(tenant);
    try {
      ViewAwaits.awaitLive(views, name, 1, 32_000 + airportList.size() + 3);
      assertEqualsOracleAtItsTick(name, flights, airports);
    } finally {
      restarted.close();
    }
  }

  /** Clicks per section and minute: a window over the clicks alone, joined with each page's latest section. */
  static final String CLICKS_PER_SECTION = "SELECT c.window_start, p.section, SUM(c.n) AS n FROM (SELECT page,"
      + " window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(_event_time),"
      + " INTERVAL '1' MINUTE)) GROUP BY page, window_start, window_end) c JOIN (SELECT page, LAST_VALUE(section) AS"
      + " section FROM pages GROUP BY page) p ON c.page = p.page GROUP BY c.window_start, p.section";

  private static MessageId append(StreamRef stream, String key, String time, String payload) {
    return ledger.append(stream, List.of(new EventEnvelope(key, "e", java.time.Instant.parse(time).toEpochMilli(), payload,
        "", Map.of()))).join().get(0).messageId();
  }

  private static MessageId click(StreamRef clicks, String page, String time) {
    return append(clicks, page, "2015-01-01T" + time + "Z", "{\"page\":\"" + page + "\"}");
  }

  private static Map<String, String> counts(ViewName name) {
    Map<String, String> counts = new TreeMap<>();
    views.snapshot(name, 1).rows().forEach((key, row) -> counts.put(row.get("window_start").substring(11, 16) + " "
        + row.get("section"), row.get("n")));
    return counts;
  }

  /**
   * Event-time windows over one stream of a view over several streams close on that stream's own watermark (its
   * events in ledger order, less its watermark delay), whatever the other stream holds: the pages' events lie in
   * 2026, and a watermark over both streams would have closed every minute of 2015 at once. A late click is dropped;
   * a page moving to another section moves its closed windows' counts; a replay to the view's tick closes the same
   * windows. Expected counts are worked out by hand from the events.
   */
  @Test
  void windowsOverOneStreamCloseOnThatStreamsOwnWatermarkWhateverTheOtherStreamHolds() throws Exception {
    String tenant = Testkit.uniqueName("mwin");
    StreamRef clicks = new StreamRef(tenant, "clicks");
    ledger.createStream(clicks, List.of(new StreamColumn("page", "STRING")), 10_000);
    StreamRef pages = new StreamRef(tenant, "pages");
    ledger.createStream(pages, List.of(new StreamColumn("page", "STRING"), new StreamColumn("section", "STRING")), 0);
    ledger.ensureTenant(tenant);
    append(pages, "a", "2026-01-01T00:00:00Z", "{\"page\":\"a\",\"section\":\"news\"}");
    append(pages, "b", "2026-01-01T00:00:00Z", "{\"page\":\"b\",\"section\":\"sports\"}");
    click(clicks, "a", "00:00:05");
    click(clicks, "a", "00:00:30");
    click(clicks, "b", "00:00:40");
    click(clicks, "a", "00:01:05"); // the clicks' watermark is 00:00:55: the first minute is still open
    ViewName name = new ViewName(tenant, "clicks_per_section");
    TransformManager manager = manager(tenant);
    try {
      manager.create(tenant, "clicks_per_section", CLICKS_PER_SECTION, List.of("window_start", "section"));
      ViewAwaits.awaitLive(views, name, 1, 6);
      assertThat(counts(name)).as("no minute of the clicks closed yet").isEmpty();
      click(clicks, "a", "00:01:15"); // watermark 00:01:05 closes the first minute
      click(clicks, "a", "00:00:50"); // behind the watermark: its window closed, dropped
      click(clicks, "a", "00:02:20"); // watermark 00:02:10 closes the second minute
      assertThat(ViewAwaits.awaitLive(views, name, 1, 9).eventsBehindWatermark()).as("the late click").isEqualTo(1);
      assertThat(counts(name)).isEqualTo(Map.of("00:00 news", "2", "00:00 sports", "1", "00:01 news", "2"));
      append(pages, "b", "2026-01-02T00:00:00Z", "{\"page\":\"b\",\"section\":\"news\"}");
      ViewAwaits.awaitLive(views, name, 1, 10);
      assertThat(counts(name)).as("page b moved to news").isEqualTo(Map.of("00:00 news", "3", "00:01 news", "2"));
      append(pages, "c", "2025-06-01T00:00:00Z", "{\"page\":\"c\",\"section\":\"sports\"}");
      assertThat(ViewAwaits.awaitLive(views, name, 1, 11).eventsBehindWatermark())
          .as("a page behind the pages' watermark is not late: no window reads the pages").isEqualTo(1);

      ViewStore.Snapshot live = views.snapshot(name, 1);
      manager.replay(tenant, "clicks_per_section", Optional.empty(), ReplayCursor.parse("tick:"
          + live.clockPosition().tick(), true), Optional.of("replayed"));
      ViewName replayed = new ViewName(tenant, "replayed");
      awaitComplete(manager, replayed);
      assertThat(views.snapshot(replayed, 1).rows()).as("the replay closes the same windows").isEqualTo(live.rows());
      assertThat(views.metadata(replayed, 1).orElseThrow().eventsBehindWatermark()).as("and drops the same late click")
          .isEqualTo(1);
    } finally {
      manager.close();
    }
  }

  /**
   * Event-time windows over one partitioned stream run in the tenant clock's order, which gives its partitions one
   * order for the watermark: hourly clicks per page over 3 partitions, with a watermark delay longer than the span
   * of the clicks' event times (so none is late whatever the order), then, in a later tick, one click far later that
   * closes every hour before it. The view commits at ticks and equals a plain count per page and hour of the other clicks; a
   * replay to its tick closes the same windows.
   */
  @Test
  void windowsOverAPartitionedStreamRunInTheClocksOrderAndCloseExactly() throws Exception {
    String tenant = Testkit.uniqueName("pwin");
    StreamRef clicks = new StreamRef(tenant, "clicks");
    ledger.createStream(clicks, List.of(new StreamColumn("page", "STRING")), java.time.Duration.ofDays(2).toMillis(), 3);
    ledger.ensureTenant(tenant);
    Map<String, String> expected = new TreeMap<>();
    java.util.Random random = new java.util.Random(26);
    List<EventEnvelope> batch = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      String page = "p" + random.nextInt(20);
      int hour = random.nextInt(24); // 2015-01-01, any hour, in any order
      long at = java.time.Instant.parse("2015-01-01T00:00:00Z").toEpochMilli() + hour * 3_600_000L + random.nextInt(3_600_000);
      batch.add(new EventEnvelope(page, "click", at, "{\"page\":\"" + page + "\"}", "", Map.of()));
      expected.merge(page + String.format(" %02d", hour), "1", (a, b) -> Long.toString(Long.parseLong(a) + 1));
    }
    List<MessageId> ids = new ArrayList<>();
    for (int from = 0; from < batch.size(); from += 500) {
      ledger.append(clicks, batch.subList(from, from + 500)).join().forEach(a -> ids.add(a.messageId()));
    }
    // The clock orders a tick's events by partition: a later event of a lower partition in the same tick would raise
    // the watermark before the higher partitions' events of that tick are read (the delay must cover that skew
    // too). So the closing click goes into a later tick than every other click.
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ledger.lastTick(tenant)
        .filter(tick -> ids.stream().allMatch(id -> tick.covers("clicks", id))).isPresent());
    // three days later: the watermark passes every hour of 2015-01-01; this click's own hour stays open
    append(clicks, "p0", "2015-01-04T00:30:00Z", "{\"page\":\"p0\"}");
    ViewName name = new ViewName(tenant, "hourly");
    TransformManager manager = manager(tenant);
    try {
      TransformDefinition definition = manager.create(tenant, "hourly", "SELECT page, window_start, COUNT(*) AS n FROM"
          + " TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(_event_time), INTERVAL '1' HOUR)) GROUP BY page, window_start,"
          + " window_end", List.of("page", "window_start"));
      assertThat(definition.readsInClockOrder()).isTrue();
      ViewMetadata live = ViewAwaits.awaitLive(views, name, 1, 3_001);
      assertThat(live.clockPosition().tick()).as("commits at ticks").isPositive();
      Map<String, String> counts = new TreeMap<>();
      views.snapshot(name, 1).rows().forEach((key, row) -> counts.put(row.get("page") + " "
          + row.get("window_start").substring(11, 13), row.get("n")));
      assertThat(counts).isEqualTo(expected);

      ViewStore.Snapshot snapshot = views.snapshot(name, 1);
      manager.replay(tenant, "hourly", Optional.empty(), ReplayCursor.parse("tick:" + snapshot.clockPosition().tick(),
          true), Optional.of("replayed"));
      ViewName replayed = new ViewName(tenant, "replayed");
      awaitComplete(manager, replayed);
      assertThat(views.snapshot(replayed, 1).rows()).isEqualTo(snapshot.rows());
    } finally {
      manager.close();
    }
  }
}
