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
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Training sets whose labels are the rows of a file (CSV and Parquet), each feature cut by event time at the row's
 * time, on real Pulsar, Redis and Flink: features from a view over the flights (with a time to live), a view over the
 * airports and a view joining both. DuckDB computes every row from the raw events with window functions and an
 * {@code ASOF JOIN}; our fold is not the oracle. With {@code --known-at}, corrections acknowledged after a row's time
 * are left out even though their event time is earlier.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TrainingSetFromFileIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final java.time.format.DateTimeFormatter TEXT =
      java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final List<String> FEATURES = List.of("flights=origin_delays.flights",
      "avg_delay=origin_delays.avg_delay", "max_delay=origin_delays.max_delay", "recent=origin_delays.flights/2h",
      "airport_state=airport_state.state", "joined_flights=origin_state.flights");
  /**
   * DuckDB's rows by label id: per (origin, event time) the running count, sum and maximum of the delays over every
   * flight of that origin at or before it (window functions); each label takes the latest at or before its time (ASOF
   * JOIN, inclusive), null when there is none, and its count as {@code recent} only when that latest flight is at most
   * two hours older than the label. The airport's state is the greatest of its states (every airport event is older
   * than every label); the joined view's row exists when both sides do.
   */
  private static final String ORACLE = """
      WITH per_time AS (
        SELECT origin, event_time,
          SUM(COUNT(*)) OVER w AS flights, SUM(SUM(delay)) OVER w AS delay_sum, SUM(COUNT(delay)) OVER w AS delays,
          MAX(MAX(delay)) OVER w AS max_delay
        FROM flights GROUP BY origin, event_time
        WINDOW w AS (PARTITION BY origin ORDER BY event_time ROWS UNBOUNDED PRECEDING)),
      states AS (SELECT iata, MAX(state) AS state FROM airports GROUP BY iata)
      SELECT l.id, p.flights, p.delay_sum / p.delays AS avg_delay, p.max_delay,
        CASE WHEN l.ts - p.event_time <= INTERVAL 2 HOUR THEN p.flights END AS recent,
        s.state AS airport_state, CASE WHEN s.state IS NOT NULL THEN p.flights END AS joined_flights
      FROM labels l
      ASOF LEFT JOIN per_time p ON p.origin = l.origin AND l.ts >= p.event_time
      LEFT JOIN states s ON s.iata = l.origin
      """;

  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static Path out;

  @BeforeAll
  static void start() throws Exception {
    harness = TransformsHarness.connect(Duration.ofMillis(50));
    ledger = harness.ledger();
    out = Files.createDirectories(Testkit.workDir().resolve("training-from-file"));
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  private static TransformManager manager(String tenant) {
    return harness.startManager(TransformsHarness.options("training-file-" + tenant).tenants(Set.of(tenant)).taskSlots(8)
        .build());
  }

  private static TrainingSetSpec spec(String tenant, String name, List<String> features, Path labels, boolean knownAt,
      String file) {
    return new TrainingSetSpec(tenant, name, "", "origin", "", "", features.stream().map(FeatureSpec::parse).toList(),
        ReplayCursor.latest(), out.resolve(tenant).resolve(file).toString(), "test " + name,
        new TrainingSetSpec.FileLabels(labels.toString(), "ts"),
        knownAt ? TrainingSetSpec.Cut.EVENT_TIME_KNOWN_AT : TrainingSetSpec.Cut.EVENT_TIME);
  }

  @Test
  void featuresAreTheFoldOfTheEventsAtOrBeforeEachRowsTime() throws Exception {
    String tenant = Testkit.uniqueName("ftrain");
    StreamRef flightStream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    StreamRef airportStream = AirportEvents.createStream(ledger, tenant);
    ledger.ensureTenant(tenant);
    List<Flights.Flight> flights = Flights.load(6_000);
    Set<String> origins = new TreeSet<>();
    flights.forEach(f -> origins.add(f.origin()));
    List<Airports.Airport> known = Airports.load().stream().filter(a -> origins.contains(a.iata()) && a.state() != null)
        .toList();
    // flights out of event-time order in the ledger: each batch of 500 appended in reverse
    List<Appended> lastIds = List.of();
    for (int b = 0; b < flights.size(); b += 500) {
      List<Flights.Flight> batch = new ArrayList<>(flights.subList(b, b + 500));
      java.util.Collections.reverse(batch);
      lastIds = FlightEvents.append(ledger, flightStream, batch, 500);
    }
    MessageId lastFlight = lastIds.get(lastIds.size() - 1).messageId();
    MessageId lastAirport = AirportEvents.append(ledger, airportStream, known.subList(0, known.size() - 10), 1_000L);

    // labels: 2,000 sampled flights' origins at their time, a minute before, or seven after (ties with flights kept)
    Random random = new Random(27);
    List<List<?>> labels = new ArrayList<>();
    StringBuilder csv = new StringBuilder("id,origin,ts,note\n");
    for (int i = 0; i < 2_000; i++) {
      Flights.Flight f = flights.get(random.nextInt(flights.size()));
      long ts = f.eventTimeMs() + 60_000L * List.of(0, -1, 7).get(random.nextInt(3));
      String origin = i % 50 == 7 ? "NOWHERE" : f.origin();
      String time = TEXT.format(LocalDateTime.ofInstant(Instant.ofEpochMilli(ts), ZoneOffset.UTC));
      labels.add(Arrays.asList(i, origin, time));
      csv.append(i).append(',').append(origin).append(',').append(time).append(",\"n, ")
          .append(i % 3).append("\"\n");
    }
    Path dir = Files.createDirectories(out.resolve(tenant));
    Path labelsCsv = Files.writeString(dir.resolve("labels.csv"), csv);
    Path labelsParquet = dir.resolve("labels.parquet");
    Map<String, Map<String, Object>> expected;
    try (SqlOracle duck = SqlOracle.open()) {
      duck.table("flights", List.of("origin:STRING", "delay:INT", "event_time:TIMESTAMP"), flights.stream()
          .<List<?>>map(f -> Arrays.asList(f.origin(), f.delay(), TEXT.format(LocalDateTime.ofInstant(
              Instant.ofEpochMilli(f.eventTimeMs()), ZoneOffset.UTC)))).toList());
      duck.table("airports", List.of("iata:STRING", "state:STRING"), known.subList(0, known.size() - 10).stream()
          .<List<?>>map(a -> Arrays.asList(a.iata(), a.state())).toList());
      duck.table("labels", List.of("id:BIGINT", "origin:STRING", "ts:TIMESTAMP"), labels);
      duck.execute("COPY (SELECT id, origin, ts, id % 2 = 0 AS even FROM labels ORDER BY id) TO '" + labelsParquet
          + "' (FORMAT PARQUET)");
      expected = duck.rows(ORACLE, "id");
    }

    TransformManager manager = manager(tenant);
    try {
      manager.create(tenant, "origin_delays", AirportEvents.ORIGIN_DELAYS, List.of());
      manager.create(tenant, "airport_state", AirportEvents.AIRPORT_STATE, List.of());
      manager.create(tenant, "origin_state", AirportEvents.ORIGIN_STATE, List.of());
      manager.create(tenant, "last_state", "SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata",
          List.of());
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ledger.lastTick(tenant)
          .filter(t -> t.covers("flights", lastFlight) && t.covers("airports", lastAirport)).isPresent());

      TrainingSetExplanation plan = manager.explainTrainingSet(spec(tenant, "plan", FEATURES, labelsCsv, false,
          "plan.jsonl"));
      assertThat(plan.cutRule()).isEqualTo("event-time");
      assertThat(plan.labelRows()).isEqualTo(2_000);
      assertThat(plan.columns()).containsExactly("id", "origin", "ts", "note", "flights", "avg_delay", "max_delay",
          "recent", "airport_state", "joined_flights");
      assertThat(plan.types().subList(0, 4)).containsExactly("BIGINT", "STRING", "TIMESTAMP", "STRING");

      TrainingSetStatus fromCsv = TrainingSetBuilds.build(manager, spec(tenant, "from_csv", FEATURES, labelsCsv, false,
          "from-csv.jsonl"));
      assertThat(fromCsv.rows()).isEqualTo(2_000);
      List<JsonNode> rows = TrainingSetBuilds.jsonl(Path.of(fromCsv.output()));
      assertThat(rows).hasSize(2_000);
      int nonNull = 0;
      int stale = 0;
      long previous = Long.MIN_VALUE;
      for (JsonNode row : rows) {
        long ts = Instant.parse(row.get("ts").asText()).toEpochMilli();
        assertThat(ts).as("rows in time order").isGreaterThanOrEqualTo(previous);
        previous = ts;
        String id = row.get("id").asText();
        Map<String, Object> want = expected.get(id);
        assertThat(row.get("note").asText()).isEqualTo("n, " + Long.parseLong(id) % 3);
        for (String column : List.of("flights", "max_delay", "recent", "airport_state", "joined_flights")) {
          Object value = want.get(column);
          JsonNode got = row.get(column);
          assertThat(got.isNull() ? null : got.asText()).as("label %s %s", id, column)
              .isEqualTo(value == null ? null : value.toString());
        }
        if (want.get("avg_delay") == null) {
          assertThat(row.get("avg_delay").isNull()).as("label %s avg_delay", id).isTrue();
        } else {
          assertThat(row.get("avg_delay").asDouble()).as("label %s avg_delay", id)
              .isCloseTo(((Number) want.get("avg_delay")).doubleValue(), within(1e-9));
        }
        nonNull += want.get("joined_flights") != null ? 1 : 0;
        stale += want.get("flights") != null && want.get("recent") == null ? 1 : 0;
      }
      assertThat(nonNull).as("rows with the joined view's value").isGreaterThan(1_000);
      assertThat(stale).as("rows whose origin's last flight is older than the time to live").isPositive();
      JsonNode manifest = JSON.readTree(Files.readString(Path.of(fromCsv.manifest())));
      assertThat(manifest.at("/cut_rule").asText()).isEqualTo("event-time");
      assertThat(manifest.at("/labels_file/rows").asLong()).isEqualTo(2_000);
      assertThat(manifest.at("/labels_file/sha256").asText()).hasSize(64);
      assertThat(manifest.at("/features/0/cut").asText()).isEqualTo("event-time");

      // the same labels from Parquet (timestamps in microseconds, another label column): the same features
      TrainingSetStatus fromParquet = TrainingSetBuilds.build(manager, spec(tenant, "from_parquet", FEATURES,
          labelsParquet, false, "from-parquet.jsonl"));
      List<JsonNode> parquetRows = TrainingSetBuilds.jsonl(Path.of(fromParquet.output()));
      assertThat(parquetRows).hasSize(2_000);
      for (int i = 0; i < rows.size(); i++) {
        JsonNode a = rows.get(i);
        JsonNode b = parquetRows.get(i);
        assertThat(b.get("id").asLong()).isEqualTo(a.get("id").asLong());
        assertThat(b.get("even").asBoolean()).isEqualTo(a.get("id").asLong() % 2 == 0);
        for (String column : List.of("ts", "flights", "avg_delay", "recent", "airport_state", "joined_flights")) {
          assertThat(b.get(column)).as("row %d %s", i, column).isEqualTo(a.get(column));
        }
      }

      // views that depend on the order events are folded in, or not SQL, are refused, saying why
      assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "bad", List.of("last_state.state"), labelsCsv,
          false, "bad.jsonl")))
          .isInstanceOf(TransformException.InvalidTrainingSet.class)
          .hasMessageContaining("feature last_state.state:").hasMessageContaining("LAST_VALUE")
          .hasMessageContaining("event-time order");
      // a join value of another type than the view's key
      assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "bad", List.of("origin_delays.flights@id"),
          labelsCsv, false, "bad.jsonl")))
          .isInstanceOf(TransformException.InvalidTrainingSet.class)
          .hasMessageContaining("its join value id is BIGINT").hasMessageContaining("keyed by origin STRING");
      assertThat(Files.exists(out.resolve(tenant).resolve("bad.jsonl"))).isFalse();
      // the output may not overwrite the labels file
      assertThatThrownBy(() -> manager.createTrainingSet(new TrainingSetSpec(tenant, "self", "", "origin", "", "",
          List.of(FeatureSpec.parse("origin_delays.flights")), ReplayCursor.latest(), labelsCsv.toString(), "test",
          new TrainingSetSpec.FileLabels(labelsCsv.toString(), "ts"), null)))
          .hasMessageContaining("it is the labels file");

      // a tenant token's labels file must be in the server's training-sets/<tenant>/, wherever the path points
      Path home = Path.of(manager.explainTrainingSet(new TrainingSetSpec(tenant, "where", "", "origin", "", "",
          List.of(FeatureSpec.parse("origin_delays.flights")), ReplayCursor.latest(), "where.jsonl", "test",
          new TrainingSetSpec.FileLabels(labelsCsv.toString(), "ts"), null)).output()).getParent().resolve(tenant);
      TrainingSetSpec outside = confined(spec(tenant, "outside", FEATURES, labelsCsv, false, "o.jsonl"), tenant);
      assertThatThrownBy(() -> manager.explainTrainingSet(outside))
          .hasMessageContaining("with a tenant token a labels file is read from the server's training-sets/" + tenant);
      Path inside = Files.copy(labelsCsv, Files.createDirectories(home).resolve("labels.csv"));
      assertThat(manager.explainTrainingSet(confined(spec(tenant, "inside", FEATURES, inside, false, "i.jsonl"), tenant))
          .labelRows()).isEqualTo(2_000);
    } finally {
      manager.close();
    }
  }

  /** The spec as a tenant token's request makes it: its labels file confined to the tenant's directory. */
  private static TrainingSetSpec confined(TrainingSetSpec spec, String tenant) {
    TrainingSetSpec.FileLabels labels = spec.labelsFile();
    return new TrainingSetSpec(spec.tenant(), spec.name(), "", spec.entity(), "", "", spec.features(), spec.to(),
        spec.output(), spec.command(), new TrainingSetSpec.FileLabels(labels.path(), labels.timeColumn(), tenant),
        spec.cut());
  }

  @Test
  void knownAtLeavesOutEventsAcknowledgedAfterTheRowsTime() throws Exception {
    String tenant = Testkit.uniqueName("ktrain");
    StreamRef airportStream = AirportEvents.createStream(ledger, tenant);
    ledger.ensureTenant(tenant);
    List<Airports.Airport> some = Airports.load().stream().filter(a -> a.state() != null && !a.state().equals("ZZ"))
        .limit(40).toList();
    AirportEvents.append(ledger, airportStream, some, 1_000L);
    long firstAcked = System.currentTimeMillis();
    Thread.sleep(200);
    long between = System.currentTimeMillis();
    Thread.sleep(200);
    // corrections with the same (early) event time, acknowledged later: every airport moves to ZZ
    MessageId last = AirportEvents.append(ledger, airportStream,
        some.subList(0, 20).stream().map(a -> a.inState("ZZ")).toList(), 1_000L);
    long secondAcked = System.currentTimeMillis();
    Path dir = Files.createDirectories(out.resolve(tenant));
    StringBuilder jsonl = new StringBuilder();
    List<List<?>> labels = new ArrayList<>();
    for (int i = 0; i < some.size(); i++) {
      long ts = i % 2 == 0 ? between : secondAcked + 1;
      jsonl.append("{\"id\":").append(i).append(",\"origin\":\"").append(some.get(i).iata()).append("\",\"ts\":\"")
          .append(Instant.ofEpochMilli(ts)).append("\"}\n");
      labels.add(Arrays.asList(i, some.get(i).iata(), ts));
    }
    Path labelsFile = Files.writeString(dir.resolve("labels.jsonl"), jsonl);
    TransformManager manager = manager(tenant);
    try {
      manager.create(tenant, "airport_state", AirportEvents.AIRPORT_STATE, List.of());
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ledger.lastTick(tenant)
          .filter(t -> t.covers("airports", last)).isPresent());
      List<String> features = List.of("airport_state.state");
      Map<String, Map<String, Object>> knownAt;
      Map<String, Map<String, Object>> byEventTime;
      try (SqlOracle duck = SqlOracle.open()) {
        List<List<?>> events = new ArrayList<>();
        some.forEach(a -> events.add(Arrays.asList(a.iata(), a.state(), firstAcked)));
        some.subList(0, 20).forEach(a -> events.add(Arrays.asList(a.iata(), "ZZ", secondAcked)));
        duck.table("airports", List.of("iata:STRING", "state:STRING", "acked:BIGINT"), events);
        duck.table("labels", List.of("id:BIGINT", "origin:STRING", "ts:BIGINT"), labels);
        knownAt = duck.rows("SELECT l.id, (SELECT MAX(state) FROM airports a WHERE a.iata = l.origin AND a.acked <= l.ts)"
            + " AS state FROM labels l", "id");
        byEventTime = duck.rows("SELECT l.id, (SELECT MAX(state) FROM airports a WHERE a.iata = l.origin) AS state"
            + " FROM labels l", "id");
      }
      for (boolean known : List.of(true, false)) {
        TrainingSetStatus built = TrainingSetBuilds.build(manager, spec(tenant, "k" + known, features, labelsFile, known,
            "k" + known + ".jsonl"));
        Map<String, Map<String, Object>> expected = known ? knownAt : byEventTime;
        int moved = 0;
        for (JsonNode row : TrainingSetBuilds.jsonl(Path.of(built.output()))) {
          Object want = expected.get(row.get("id").asText()).get("state");
          assertThat(row.get("airport_state__state").asText()).as("known-at %s, label %s", known, row.get("id"))
              .isEqualTo(want);
          moved += "ZZ".equals(want) ? 1 : 0;
        }
        assertThat(moved).isEqualTo(known ? 10 : 20);
        JsonNode manifest = JSON.readTree(Files.readString(Path.of(built.manifest())));
        assertThat(manifest.at("/cut_rule").asText()).isEqualTo(known ? "event-time known-at" : "event-time");
      }
    } finally {
      manager.close();
    }
  }


}
