package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Airports;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.SqlOracle;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.FlightEvents;
import dev.streamfold.transforms.fixtures.TrainingSetBuilds;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.transforms.training.FeatureSpec;
import dev.streamfold.transforms.training.TrainingSetExplanation;
import dev.streamfold.transforms.training.TrainingSetSpec;
import dev.streamfold.transforms.training.TrainingSetStatus;
import dev.streamfold.views.ViewStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Training sets whose features read other streams than the label stream, on real Pulsar, Redis and Flink with the
 * tenant clock ticking every 50 ms: flights are the labels; features come from a view over the flights (cut just
 * before each label event), a view over the airports and a view joining both (cut at the last tick before the label
 * event). Airports move to another state while flights arrive. DuckDB computes every row from the raw events and the
 * clock's ticks (ASOF joins on the tick); our fold is not the oracle.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TrainingSetAcrossStreamsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The origin's flights so far and its airport's state, keyed by origin: a join of both streams. */
  static final String ORIGIN_STATE = "SELECT f.origin, a.state, f.n AS flights"
      + " FROM (SELECT origin, COUNT(*) AS n FROM flights GROUP BY origin) f"
      + " JOIN (SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata) a ON f.origin = a.iata";
  /**
   * DuckDB's rows: per label event (ordered by {@code seq}, in {@code tick}), the flights of its origin before it in
   * the flights' ledger order, and the airport's latest state and its origin's flights as of the end of the tick
   * before the label event's tick (an airport or flight counts when its own tick is at most that one).
   */
  private static final String ORACLE = """
      WITH labels AS (SELECT *, tick * 1000000000 AS cut FROM flights),
      airports_ordered AS (SELECT iata, state, tick * 1000000000 + seq AS ord FROM airports),
      by_origin AS (
        SELECT l.message_id, l.seq,
          COUNT(*) OVER (PARTITION BY l.origin ORDER BY l.seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS so_far
        FROM labels l),
      with_state AS (
        SELECT l.message_id, l.origin, l.tick, a.state
        FROM labels l ASOF LEFT JOIN airports_ordered a ON a.iata = l.origin AND l.cut > a.ord)
      SELECT w.message_id, NULLIF(b.so_far, 0) AS origin_flights, w.state AS airport_state,
        CASE WHEN w.state IS NULL THEN NULL ELSE (SELECT NULLIF(COUNT(*), 0) FROM flights f2
          WHERE f2.origin = w.origin AND f2.tick <= w.tick - 1) END AS joined_flights,
        CASE WHEN w.state IS NULL OR (SELECT COUNT(*) FROM flights f3 WHERE f3.origin = w.origin AND f3.tick <= w.tick - 1) = 0
          THEN NULL ELSE w.state END AS joined_state
      FROM with_state w JOIN by_origin b ON b.message_id = w.message_id
      """;

  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static ViewStore views;
  private static Path out;

  @BeforeAll
  static void start() throws Exception {
    harness = TransformsHarness.connect(Duration.ofMillis(50));
    ledger = harness.ledger();
    views = harness.views();
    out = Files.createDirectories(Testkit.workDir().resolve("training-across-streams"));
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  private static TransformManager manager(String tenant) {
    return harness.startManager(TransformsHarness.options("training-across-" + tenant).tenants(Set.of(tenant)).taskSlots(8)
        .build());
  }


  private static TrainingSetSpec spec(String tenant, String name, List<String> features, ReplayCursor to, String file) {
    return new TrainingSetSpec(tenant, name, "flights", "origin", "delay >= 15", "",
        features.stream().map(FeatureSpec::parse).toList(), to, out.resolve(tenant).resolve(file).toString(),
        "test " + name);
  }

  /** An appended event: its message ID, its stream's ordinal and the row the oracle's table holds of it. */
  private record Sent(MessageId id, long seq, List<Object> row) {}

  @Test
  void featuresFromOtherStreamsAreTheirViewsAtTheLastTickBeforeEachLabelEvent() throws Exception {
    String tenant = Testkit.uniqueName("xtrain");
    StreamRef flightStream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    StreamRef airportStream = new StreamRef(tenant, "airports");
    ledger.createStream(airportStream, Airports.COLUMNS.stream()
        .map(c -> new StreamColumn(c.split(":")[0], c.split(":")[1])).toList(), 0, 0);
    ledger.ensureTenant(tenant);
    List<Flights.Flight> flights = Flights.load(6_000);
    Set<String> origins = new java.util.TreeSet<>();
    flights.forEach(f -> origins.add(f.origin()));
    // the airports of half the origins first; the other half (and corrections) arrive among the flights
    List<Airports.Airport> known = Airports.load().stream().filter(a -> origins.contains(a.iata()) && a.state() != null)
        .toList();
    List<Sent> airports = new ArrayList<>();
    List<Sent> sentFlights = new ArrayList<>();
    appendAirports(airportStream, known.subList(0, known.size() / 2), airports);

    TransformManager manager = manager(tenant);
    try {
      manager.create(tenant, "origin_delays", "SELECT origin, COUNT(*) AS flights FROM flights GROUP BY origin", List.of());
      manager.create(tenant, "airport_state", "SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata",
          List.of());
      manager.create(tenant, "origin_state", ORIGIN_STATE, List.of());

      // 30 batches of 200 flights, 30 ms apart (so ticks of 50 ms hold flights, airports or both); the other half
      // of the airports arrives over the first ten batches, and from batch 15 on, airports move to state ZZ
      int rest = known.size() / 2;
      for (int b = 0; b < 30; b++) {
        List<Flights.Flight> batch = flights.subList(b * 200, (b + 1) * 200);
        List<Appended> ids = FlightEvents.append(ledger, flightStream, batch, 200);
        for (int i = 0; i < batch.size(); i++) {
          sentFlights.add(new Sent(ids.get(i).messageId(), sentFlights.size(),
              Arrays.asList(batch.get(i).origin(), batch.get(i).delay())));
        }
        if (b < 10) {
          int from = rest + (known.size() - rest) * b / 10;
          int to = rest + (known.size() - rest) * (b + 1) / 10;
          appendAirports(airportStream, known.subList(from, to), airports);
        } else if (b >= 15 && b % 3 == 0) {
          appendAirports(airportStream, known.subList(b, b + 15).stream().map(a -> a.inState("ZZ")).toList(), airports);
        }
        Thread.sleep(30);
      }
      MessageId lastFlight = sentFlights.get(sentFlights.size() - 1).id();
      MessageId lastAirport = airports.get(airports.size() - 1).id();
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ledger.lastTick(tenant)
          .filter(t -> t.covers("flights", lastFlight) && t.covers("airports", lastAirport)).isPresent());

      List<String> features = List.of("origin_flights=origin_delays.flights", "airport_state=airport_state.state",
          "joined_flights=origin_state.flights", "joined_state=origin_state.state");
      TrainingSetExplanation plan = manager.explainTrainingSet(spec(tenant, "plan", features, ReplayCursor.latest(),
          "plan.jsonl"));
      assertThat(plan.features()).extracting(TrainingSetExplanation.Feature::cut)
          .containsExactly("event", "tick", "tick", "tick");
      assertThat(plan.tick()).isPositive();

      TrainingSetStatus built = TrainingSetBuilds.build(manager, spec(tenant, "delayed", features, ReplayCursor.latest(), "delayed.jsonl"));
      assertThat(built.rows()).isEqualTo(flights.size());
      List<JsonNode> rows = TrainingSetBuilds.jsonl(Path.of(built.output()));
      List<Tick> ticks = ledger.ticks(tenant, 0, (int) ledger.lastTick(tenant).orElseThrow().number());
      Map<String, Map<String, Object>> expected = oracle(ticks, sentFlights, airports);
      assertThat(rows).hasSize(expected.size());
      int moved = 0;
      int joined = 0;
      for (int i = 0; i < rows.size(); i++) {
        JsonNode row = rows.get(i);
        String id = row.get("message_id").asText();
        assertThat(id).isEqualTo(sentFlights.get(i).id().toString());
        Map<String, Object> want = expected.get(id);
        for (String column : List.of("origin_flights", "airport_state", "joined_flights", "joined_state")) {
          Object value = want.get(column);
          JsonNode got = row.get(column);
          assertThat(got.isNull() ? null : got.asText()).as("row %d (%s) %s", i, id, column)
              .isEqualTo(value == null ? null : value.toString());
        }
        moved += "ZZ".equals(want.get("airport_state")) ? 1 : 0;
        joined += want.get("joined_flights") != null ? 1 : 0;
      }
      assertThat(moved).as("rows after an airport moved see its new state").isPositive();
      assertThat(joined).as("rows with the joined view's value").isGreaterThan(rows.size() / 2);
      JsonNode manifest = JSON.readTree(Files.readString(Path.of(built.manifest())));
      assertThat(manifest.at("/cut_rule").asText()).isEqualTo("as-served");
      assertThat(manifest.at("/range/tick").asLong()).isEqualTo(plan.tick());
      assertThat(manifest.at("/features/0/cut").asText()).isEqualTo("event");
      assertThat(manifest.at("/features/2/cut").asText()).isEqualTo("tick");

      // Cut at a label event halfway: the rows up to it are the same rows (a row never depends on the stop)
      int half = 3_000;
      TrainingSetStatus prefix = TrainingSetBuilds.build(manager, spec(tenant, "half", features,
          ReplayCursor.parse(sentFlights.get(half).id().toString(), true), "half.jsonl"));
      List<String> prefixLines = Files.readAllLines(Path.of(prefix.output()));
      assertThat(prefixLines).hasSize(half + 1);
      assertThat(prefixLines).isEqualTo(Files.readAllLines(Path.of(built.output())).subList(0, half + 1));

      // the same stop as a tick, as latest and as its message ID: the same rows, ticks and manifest but for the stop
      long haltTick = manifest.at("/range/tick").asLong();
      TrainingSetStatus atTick = TrainingSetBuilds.build(manager, spec(tenant, "at_tick", features, ReplayCursor.tick(haltTick, true),
          "at-tick.jsonl"));
      JsonNode atTickManifest = JSON.readTree(Files.readString(Path.of(atTick.manifest())));
      assertThat(atTickManifest.at("/range/stop").asText()).isEqualTo("to tick:" + haltTick);
      assertThat(atTickManifest.at("/range/tick").asLong()).as("the first tick covering the stop").isEqualTo(haltTick);
      assertThat(manifest.at("/range/stop").asText()).isEqualTo("to latest");
      assertThat(Files.readAllBytes(Path.of(atTick.output()))).isEqualTo(Files.readAllBytes(Path.of(built.output())));

      // bad stops and features are refused, naming what is wrong
      MessageId airportId = airports.get(0).id();
      assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "bad", features,
          ReplayCursor.parse(airportId.toString(), true), "bad.jsonl")))
          .isInstanceOf(TransformException.InvalidReplay.class).hasMessageContaining("is not in stream");
      assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "bad", List.of("nope.x"), ReplayCursor.latest(),
          "bad.jsonl")))
          .isInstanceOf(TransformException.NotFound.class).hasMessageContaining("feature nope.x");

      // a label stream no tick covers yet: an empty training set, not an error
      StreamRef empty = FlightEvents.createStream(ledger, new StreamRef(tenant, "later_flights"));
      TrainingSetStatus none = TrainingSetBuilds.build(manager, new TrainingSetSpec(tenant, "none", empty.stream(), "origin", "delay >= 15",
          "", List.of(FeatureSpec.parse("airport_state.state")), ReplayCursor.latest(),
          out.resolve(tenant).resolve("none.jsonl").toString(), "test none"));
      assertThat(none.rows()).isZero();
      assertThat(Files.size(Path.of(none.output()))).isZero();

      // a time to live on a feature cut at ticks is refused, naming the feature
      assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "ttl", List.of("airport_state.state/1h"),
          ReplayCursor.latest(), "ttl.jsonl")))
          .isInstanceOf(TransformException.InvalidTrainingSet.class)
          .hasMessageContaining("feature airport_state.state/1h:")
          .hasMessageContaining("time to live");
    } finally {
      manager.close();
    }
  }

  private static void appendAirports(StreamRef stream, List<Airports.Airport> batch, List<Sent> sent) {
    if (batch.isEmpty()) {
      return;
    }
    List<Appended> ids = ledger.append(stream, batch.stream()
        .map(a -> new EventEnvelope(a.iata(), "airport", 1_000L, a.json(), "", Map.of())).toList()).join();
    for (int i = 0; i < batch.size(); i++) {
      sent.add(new Sent(ids.get(i).messageId(), sent.size(), Arrays.asList(batch.get(i).iata(), batch.get(i).state())));
    }
  }

  /** DuckDB's rows by message ID, from the events and the first tick covering each (read from the clock). */
  private static Map<String, Map<String, Object>> oracle(List<Tick> ticks, List<Sent> flights, List<Sent> airports) {
    try (SqlOracle duck = SqlOracle.open()) {
      duck.table("flights", List.of("message_id:STRING", "seq:BIGINT", "tick:BIGINT", "origin:STRING", "delay:INT"),
          withTicks(ticks, "flights", flights));
      duck.table("airports", List.of("message_id:STRING", "seq:BIGINT", "tick:BIGINT", "iata:STRING", "state:STRING"),
          withTicks(ticks, "airports", airports));
      return duck.rows(ORACLE, "message_id");
    }
  }

  /** Each event as message ID, seq, the number of the first tick covering it, then its row. */
  private static List<List<?>> withTicks(List<Tick> ticks, String stream, List<Sent> sent) {
    List<List<?>> rows = new ArrayList<>();
    int t = 0;
    for (Sent s : sent) {
      while (!ticks.get(t).covers(stream, s.id())) {
        t++;
      }
      List<Object> row = new ArrayList<>(List.of(s.id().toString(), s.seq(), ticks.get(t).number()));
      row.addAll(s.row());
      rows.add(row);
    }
    return rows;
  }

}
