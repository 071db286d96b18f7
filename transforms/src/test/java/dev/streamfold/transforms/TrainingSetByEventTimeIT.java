package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Airports;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.SqlOracle;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.AirportEvents;
import dev.streamfold.transforms.fixtures.FlightEvents;
import dev.streamfold.transforms.fixtures.TrainingSetBuilds;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.transforms.training.FeatureSpec;
import dev.streamfold.transforms.training.TrainingSetExplanation;
import dev.streamfold.transforms.training.TrainingSetSpec;
import dev.streamfold.transforms.training.TrainingSetStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Training sets whose labels are the events of a stream, cut by event time ({@code --cut event-time}), on real Pulsar,
 * Redis and Flink: flights appended out of event-time order are the labels; features from a view over the flights
 * (with a time to live), a view over the airports and a view joining both. Airport corrections are appended after
 * every flight with an event time halfway through them: by event time the later flights see them, as served none
 * does. DuckDB computes every row from the raw events with window functions over (event time, ledger order); our fold
 * is not the oracle.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TrainingSetByEventTimeIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final java.time.format.DateTimeFormatter TEXT =
      java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
  /** A view over a union of both streams: cut through the gate (a union's inputs cannot be read in order). */
  private static final String MENTIONS = "SELECT code, COUNT(*) AS n FROM (SELECT origin AS code FROM flights"
      + " UNION ALL SELECT iata AS code FROM airports) u GROUP BY code";
  /** A view over a union of the label stream with itself: cut through the gate by event time, refused as served. */
  private static final String ROUTE_ENDS = "SELECT code, COUNT(*) AS n FROM (SELECT origin AS code FROM flights"
      + " UNION ALL SELECT destination AS code FROM flights) u GROUP BY code";
  private static final List<String> FEATURES = List.of("flights=origin_delays.flights",
      "avg_delay=origin_delays.avg_delay", "max_delay=origin_delays.max_delay", "recent=origin_delays.flights/2h",
      "airport_state=airport_state.state", "joined_flights=origin_state.flights",
      "joined_recent=origin_state.flights/2h", "mentions=mentions.n", "ends=route_ends.n");
  /**
   * DuckDB's rows by ledger sequence: each label flight (distance at least 300 miles) takes the count, mean and maximum
   * of the delays of the flights of its origin before it in event-time order (ties in ledger order), the count as
   * {@code recent} only when the latest of them is at most two hours older; the greatest state of its origin among the
   * airport events of an earlier event time; the joined view's count when both sides have a row (as {@code
   * joined_recent} only when its last change, by a flight or an airport event, is at most two hours older); the
   * union's count of those flights and airport events; the self-union's count of the flights before it from or to its
   * origin.
   */
  private static final String ORACLE = """
      WITH f AS (
        SELECT seq, origin, destination, delay, distance, event_time,
          COUNT(*) OVER w AS n, AVG(CAST(delay AS DOUBLE)) OVER w AS avg_delay, MAX(delay) OVER w AS max_delay,
          LAG(event_time) OVER (PARTITION BY origin ORDER BY event_time, seq) AS previous
        FROM flights
        WINDOW w AS (PARTITION BY origin ORDER BY event_time, seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)),
      s AS (
        SELECT f.seq, (SELECT MAX(state) FROM airports a WHERE a.iata = f.origin AND a.event_time < f.event_time) AS state,
          (SELECT COUNT(*) FROM airports a WHERE a.iata = f.origin AND a.event_time < f.event_time) AS airport_events,
          (SELECT MAX(event_time) FROM airports a WHERE a.iata = f.origin AND a.event_time < f.event_time) AS last_airport,
          (SELECT COUNT(*) FILTER (WHERE g.origin = f.origin) + COUNT(*) FILTER (WHERE g.destination = f.origin)
            FROM flights g WHERE g.event_time < f.event_time OR (g.event_time = f.event_time AND g.seq < f.seq)) AS ends
        FROM f)
      SELECT f.seq, f.delay >= 15 AS label, NULLIF(f.n, 0) AS flights, f.avg_delay, f.max_delay,
        CASE WHEN f.n > 0 AND f.event_time - f.previous <= INTERVAL 2 HOUR THEN f.n END AS recent,
        s.state AS airport_state, CASE WHEN f.n > 0 AND s.state IS NOT NULL THEN f.n END AS joined_flights,
        CASE WHEN f.n > 0 AND s.state IS NOT NULL AND f.event_time - GREATEST(f.previous, s.last_airport)
          <= INTERVAL 2 HOUR THEN f.n END AS joined_recent,
        NULLIF(f.n + s.airport_events, 0) AS mentions, NULLIF(s.ends, 0) AS ends
      FROM f JOIN s USING (seq)
      WHERE f.distance >= 300
      """;

  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static Path out;

  @BeforeAll
  static void start() throws Exception {
    harness = TransformsHarness.connect(Duration.ofMillis(50));
    ledger = harness.ledger();
    out = Files.createDirectories(Testkit.workDir().resolve("training-by-event-time"));
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  private static TrainingSetSpec spec(String tenant, String name, ReplayCursor to, TrainingSetSpec.Cut cut) {
    return new TrainingSetSpec(tenant, name, "flights", "origin", "delay >= 15", "distance >= 300",
        FEATURES.stream() // as served: a TTL only over the label stream, no union over it
            .filter(f -> cut != null || !f.contains("/") && !f.startsWith("ends="))
            .map(FeatureSpec::parse).toList(), to, out.resolve(tenant).resolve(name + ".jsonl").toString(),
        "test " + name, null, cut);
  }

  @Test
  void featuresAreTheFoldOfTheEventsBeforeEachLabelEventInEventTimeOrder() throws Exception {
    String tenant = Testkit.uniqueName("etrain");
    StreamRef flightStream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    StreamRef airportStream = AirportEvents.createStream(ledger, tenant);
    ledger.ensureTenant(tenant);
    List<Flights.Flight> flights = Flights.load(3_000);
    Set<String> origins = new TreeSet<>();
    flights.forEach(f -> origins.add(f.origin()));
    List<Airports.Airport> known = Airports.load().stream().filter(a -> origins.contains(a.iata()) && a.state() != null)
        .toList();
    AirportEvents.append(ledger, airportStream, known, 1_000L);
    // flights out of event-time order in the ledger: each batch of 500 appended in reverse
    List<Flights.Flight> inLedgerOrder = new ArrayList<>();
    List<Appended> appended = new ArrayList<>();
    for (int b = 0; b < flights.size(); b += 500) {
      List<Flights.Flight> batch = new ArrayList<>(flights.subList(b, b + 500));
      Collections.reverse(batch);
      inLedgerOrder.addAll(batch);
      appended.addAll(FlightEvents.append(ledger, flightStream, batch, 500));
    }
    // corrections appended after every flight, of an event time halfway through them (no flight shares it)
    List<Long> times = new ArrayList<>(flights.stream().map(Flights.Flight::eventTimeMs).sorted().toList());
    long halfway = times.get(times.size() / 2) + 500;
    List<Airports.Airport> moved = known.stream().filter(a -> !a.state().equals("ZZ")).limit(known.size() / 2)
        .map(a -> a.inState("ZZ")).toList();
    MessageId lastAirport = AirportEvents.append(ledger, airportStream, moved, halfway);
    Map<String, Integer> seqOf = new HashMap<>();
    for (int i = 0; i < appended.size(); i++) {
      seqOf.put(appended.get(i).messageId().toString(), i);
    }

    Map<String, Map<String, Object>> expected;
    try (SqlOracle duck = SqlOracle.open()) {
      List<List<?>> rows = new ArrayList<>();
      for (int i = 0; i < inLedgerOrder.size(); i++) {
        Flights.Flight f = inLedgerOrder.get(i);
        rows.add(Arrays.asList(i, f.origin(), f.destination(), f.delay(), f.distance(), text(f.eventTimeMs())));
      }
      duck.table("flights", List.of("seq:BIGINT", "origin:STRING", "destination:STRING", "delay:INT", "distance:INT",
          "event_time:TIMESTAMP"), rows);
      List<List<?>> airports = new ArrayList<>();
      known.forEach(a -> airports.add(Arrays.asList(a.iata(), a.state(), text(1_000L))));
      moved.forEach(a -> airports.add(Arrays.asList(a.iata(), a.state(), text(halfway))));
      duck.table("airports", List.of("iata:STRING", "state:STRING", "event_time:TIMESTAMP"), airports);
      expected = duck.rows(ORACLE, "seq");
    }

    TransformManager manager = harness.startManager(TransformsHarness.options("training-event-time-" + tenant)
        .tenants(Set.of(tenant)).taskSlots(8).build());
    try {
      manager.create(tenant, "origin_delays", AirportEvents.ORIGIN_DELAYS, List.of());
      manager.create(tenant, "airport_state", AirportEvents.AIRPORT_STATE, List.of());
      manager.create(tenant, "origin_state", AirportEvents.ORIGIN_STATE, List.of());
      manager.create(tenant, "mentions", MENTIONS, List.of());
      manager.create(tenant, "route_ends", ROUTE_ENDS, List.of());
      manager.create(tenant, "last_state", "SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata",
          List.of());
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ledger.lastTick(tenant)
          .filter(t -> t.covers("airports", lastAirport)).isPresent());

      TrainingSetExplanation plan = manager.explainTrainingSet(spec(tenant, "plan", ReplayCursor.latest(),
          TrainingSetSpec.Cut.EVENT_TIME));
      assertThat(plan.cutRule()).isEqualTo("event-time");
      assertThat(plan.features()).allSatisfy(f -> assertThat(f.cut()).isEqualTo("event-time"));
      assertThat(plan.columns()).containsExactly("message_id", "event_time", "entity", "label", "flights", "avg_delay",
          "max_delay", "recent", "airport_state", "joined_flights", "joined_recent", "mentions", "ends");
      assertThat(plan.tick()).isPositive();

      TrainingSetSpec byEventTime = spec(tenant, "by_event_time", ReplayCursor.latest(), TrainingSetSpec.Cut.EVENT_TIME);
      manager.createTrainingSet(byEventTime);
      // while it runs, no other build may write its file
      TrainingSetSpec sameOut = new TrainingSetSpec(tenant, "same_out", "flights", "origin", "delay >= 15", "",
          List.of(FeatureSpec.parse("origin_delays.flights")), ReplayCursor.latest(), byEventTime.output(), "test", null,
          null);
      assertThatThrownBy(() -> manager.createTrainingSet(sameOut)).isInstanceOf(TransformException.Conflict.class)
          .hasMessage("--out " + byEventTime.output() + ": training set 'by_event_time' is being built into it; wait"
              + " for it (`training-set status by_event_time`) or give another --out");
      TrainingSetStatus built = TrainingSetBuilds.awaitComplete(manager, byEventTime);
      List<JsonNode> rows = TrainingSetBuilds.jsonl(Path.of(built.output()));
      assertThat(rows).hasSize(expected.size());
      int seeCorrection = 0;
      int stale = 0;
      int joinedStale = 0;
      for (JsonNode row : rows) {
        String seq = String.valueOf(seqOf.get(row.get("message_id").asText()));
        Map<String, Object> want = expected.get(seq);
        assertThat(want).as("label event %s is one of DuckDB's", row.get("message_id")).isNotNull();
        assertThat(row.get("label").asBoolean()).isEqualTo(want.get("label"));
        for (String column : List.of("flights", "max_delay", "recent", "airport_state", "joined_flights",
            "joined_recent", "mentions", "ends")) {
          Object value = want.get(column);
          JsonNode got = row.get(column);
          assertThat(got.isNull() ? null : got.asText()).as("label event %s %s", seq, column)
              .isEqualTo(value == null ? null : value.toString());
        }
        if (want.get("avg_delay") == null) {
          assertThat(row.get("avg_delay").isNull()).as("label event %s avg_delay", seq).isTrue();
        } else {
          assertThat(row.get("avg_delay").asDouble()).as("label event %s avg_delay", seq)
              .isCloseTo(((Number) want.get("avg_delay")).doubleValue(), within(1e-9));
        }
        seeCorrection += "ZZ".equals(want.get("airport_state")) ? 1 : 0;
        stale += want.get("flights") != null && want.get("recent") == null ? 1 : 0;
        joinedStale += want.get("joined_flights") != null && want.get("joined_recent") == null ? 1 : 0;
      }
      assertThat(joinedStale).as("label events whose joined row last changed more than the time to live before")
          .isPositive();
      assertThat(seeCorrection).as("label events after the corrections' event time").isGreaterThan(300);
      assertThat(stale).as("label events whose origin's last flight is older than the time to live").isPositive();
      JsonNode manifest = JSON.readTree(Files.readString(Path.of(built.manifest())));
      assertThat(manifest.at("/cut_rule").asText()).isEqualTo("event-time");
      assertThat(manifest.at("/label_stream").asText()).isEqualTo("flights");
      assertThat(manifest.at("/range/tick").asLong()).isEqualTo(Long.parseLong(built.stopMessageId().substring(5)));
      assertThat(manifest.at("/features/4/cut").asText()).isEqualTo("event-time");

      // as served, no label event sees the corrections: they were appended after every flight
      TrainingSetStatus served = TrainingSetBuilds.build(manager, spec(tenant, "as_served", ReplayCursor.latest(), null));
      List<JsonNode> servedRows = TrainingSetBuilds.jsonl(Path.of(served.output()));
      assertThat(servedRows).hasSize(expected.size());
      assertThat(servedRows).noneSatisfy(r -> assertThat(r.get("airport_state").asText()).isEqualTo("ZZ"));
      assertThat(JSON.readTree(Files.readString(Path.of(served.manifest()))).at("/cut_rule").asText())
          .isEqualTo("as-served");

      // with --known-at nothing counts before its acknowledgement (2026), and every label's time is in 2001: every
      // feature is null (a label placed at its own acknowledgement time would see the flights and airports before it)
      TrainingSetStatus knownAt = TrainingSetBuilds.build(manager, spec(tenant, "known_at", ReplayCursor.latest(),
          TrainingSetSpec.Cut.EVENT_TIME_KNOWN_AT));
      List<JsonNode> knownRows = TrainingSetBuilds.jsonl(Path.of(knownAt.output()));
      assertThat(knownRows).hasSize(expected.size());
      for (JsonNode row : knownRows) {
        for (String column : List.of("flights", "avg_delay", "airport_state", "joined_flights", "mentions", "ends")) {
          assertThat(row.get(column).isNull()).as("known-at, label event %s %s", row.get("message_id"), column).isTrue();
        }
      }
      assertThat(JSON.readTree(Files.readString(Path.of(knownAt.manifest()))).at("/cut_rule").asText())
          .isEqualTo("event-time known-at");

      // as served, a union over the label stream alone has no tick to be cut at: refused
      TrainingSetSpec selfUnion = new TrainingSetSpec(tenant, "self_union", "flights", "origin", "delay >= 15", "",
          List.of(FeatureSpec.parse("route_ends.n")), ReplayCursor.latest(), "self.jsonl", "test", null, null);
      assertThatThrownBy(() -> manager.explainTrainingSet(selfUnion))
          .isInstanceOf(TransformException.InvalidTrainingSet.class)
          .hasMessageContaining("feature route_ends.n: view 'route_ends' unions rows (UNION ALL)")
          .hasMessageContaining("use --cut event-time");

      // refused before the build: a message-ID stop, and a view whose result depends on the order it folds in
      assertThatThrownBy(() -> manager.explainTrainingSet(spec(tenant, "at_id", new ReplayCursor(ReplayCursor.Kind.MESSAGE,
          Optional.of(appended.get(10).messageId()), 0, true), TrainingSetSpec.Cut.EVENT_TIME)))
          .isInstanceOf(TransformException.InvalidTrainingSet.class)
          .hasMessageContaining("with --cut event-time each feature is cut at its label's time")
          .hasMessageContaining("--to latest (its last tick, the default) or --to tick:N");
      TrainingSetSpec ordered = new TrainingSetSpec(tenant, "ordered", "flights", "origin", "delay >= 15", "",
          List.of(FeatureSpec.parse("last_state.state")), ReplayCursor.latest(), "ordered.jsonl", "test", null,
          TrainingSetSpec.Cut.EVENT_TIME_KNOWN_AT);
      assertThatThrownBy(() -> manager.explainTrainingSet(ordered))
          .isInstanceOf(TransformException.InvalidTrainingSet.class)
          .hasMessageContaining("feature last_state.state: view 'last_state' uses").hasMessageContaining("LAST_VALUE")
          .hasMessageContaining("--cut event-time cuts features by event time").hasMessageEndingWith("or --cut as-served");
    } finally {
      manager.close();
    }
  }

  private static String text(long ms) {
    return TEXT.format(LocalDateTime.ofInstant(Instant.ofEpochMilli(ms), ZoneOffset.UTC));
  }
}
