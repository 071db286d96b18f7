package dev.streamfold.transforms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.transforms.fixtures.FlightEvents;
import dev.streamfold.transforms.fixtures.TrainingSetBuilds;
import dev.streamfold.transforms.fixtures.TransformsHarness;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.transforms.training.FeatureSpec;
import dev.streamfold.transforms.training.TrainingSetSpec;
import dev.streamfold.transforms.training.TrainingSetStatus;
import dev.streamfold.views.ViewStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Point-in-time training sets on real Pulsar, Redis and a Flink MiniCluster, checked row by row against
 * oracles computed from the appended events in ledger order.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TrainingSetIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TransformsHarness harness;
  private static PulsarLedger ledger;
  private static ViewStore views;
  private static TransformManager manager;
  private static Path out;
  private static ReplayMatchesLive replayCheck;

  @BeforeAll
  static void start() throws Exception {
    harness = TransformsHarness.start("training-transforms", options -> options.taskSlots(16));
    ledger = harness.ledger();
    views = harness.views();
    manager = harness.manager();
    replayCheck = ReplayMatchesLive.since(ledger);
    out = Files.createDirectories(Testkit.workDir().resolve("training-out"));
  }

  @AfterAll
  static void stop() {
    try {
      if (manager != null) {
        // the views the features were read from (5 when the whole class runs, one with a HAVING that retracts rows)
        // equal their replays to their committed positions
        replayCheck.check(manager, views, 10).assertComparedAny();
      }
    } finally {
      if (harness != null) {
        harness.close();
      }
    }
  }


  private static TrainingSetSpec spec(String tenant, String name, String label, String where, List<String> features,
      ReplayCursor to, String file) {
    List<FeatureSpec> parsed = features.stream().map(FeatureSpec::parse).toList();
    return new TrainingSetSpec(tenant, name, "flights", "origin", label, where, parsed, to,
        out.resolve(tenant).resolve(file).toString(), "test " + name);
  }


  /** Proofs 1, 2, 3, 5 and 6 on 20,000 real flights. */
  @Test
  void featuresAreTheViewsJustBeforeEachLabelEventInLedgerOrder() throws Exception {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    List<Flights.Flight> flights = Flights.load(20_000);
    List<Appended> ids = FlightEvents.append(ledger, stream, flights);
    manager.create(tenant, "origin_counts", "SELECT origin, COUNT(*) AS flights FROM flights GROUP BY origin", List.of());
    manager.create(tenant, "dest_delays",
        "SELECT destination, COUNT(*) AS flights, SUM(delay) AS total_delay FROM flights GROUP BY destination", List.of());

    List<String> features = List.of("origin_counts.flights", "dest_delays.total_delay@destination");
    TrainingSetStatus first = TrainingSetBuilds.build(manager, spec(tenant, "delayed", "delay >= 15", "", features, ReplayCursor.latest(),
        "delayed.jsonl"));
    assertThat(first.rows()).isEqualTo(20_000);
    assertThat(first.eventsRead()).isEqualTo(20_000);
    assertThat(first.stopMessageId()).isEqualTo(ids.get(19_999).messageId().toString());
    List<JsonNode> rows = TrainingSetBuilds.jsonl(Path.of(first.output()));
    assertThat(rows).hasSize(20_000);

    // Oracles in ledger (append) order: the label event itself never counts.
    Map<String, Long> originSoFar = new HashMap<>();
    Map<String, Long> destDelaySoFar = new HashMap<>();
    for (int i = 0; i < flights.size(); i++) {
      Flights.Flight f = flights.get(i);
      JsonNode row = rows.get(i);
      assertThat(row.get("message_id").asText()).isEqualTo(ids.get(i).messageId().toString());
      assertThat(row.get("entity").asText()).isEqualTo(f.origin());
      assertThat(row.get("label").asBoolean()).isEqualTo(f.delay() >= 15);
      assertThat(row.get("event_time").asText()).isEqualTo(java.time.Instant.ofEpochMilli(f.eventTimeMs()).toString());
      Long before = originSoFar.get(f.origin());
      if (before == null) {
        assertThat(row.get("origin_counts__flights").isNull()).as("row %d: no earlier %s event: null, never 0", i, f.origin()).isTrue();
      } else {
        assertThat(row.get("origin_counts__flights").asLong()).as("row %d flights_so_far", i).isEqualTo(before);
      }
      Long dest = destDelaySoFar.get(f.destination());
      if (dest == null) {
        assertThat(row.get("dest_delays__total_delay").isNull()).as("row %d", i).isTrue();
      } else {
        assertThat(row.get("dest_delays__total_delay").asLong()).as("row %d dest delay", i).isEqualTo(dest);
      }
      originSoFar.merge(f.origin(), 1L, Long::sum);
      destDelaySoFar.merge(f.destination(), (long) f.delay(), Long::sum);
    }

    // The same set as Parquet: schema, count and values match; built twice: byte-identical.
    String stopAt = first.stopMessageId();
    TrainingSetStatus parquet = TrainingSetBuilds.build(manager, spec(tenant, "delayed_pq", "delay >= 15", "", features,
        ReplayCursor.parse(stopAt, true), "delayed.parquet"));
    Path parquetFile = Path.of(parquet.output());
    byte[] firstBytes = Files.readAllBytes(parquetFile);
    List<Group> groups = new ArrayList<>();
    MessageType schema;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(parquetFile))) {
      schema = reader.getFooter().getFileMetaData().getSchema();
      org.apache.parquet.column.page.PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> records = new ColumnIOFactory().getColumnIO(schema)
            .getRecordReader(pages, new GroupRecordConverter(schema));
        for (long r = 0; r < pages.getRowCount(); r++) {
          groups.add(records.read());
        }
      }
    }
    assertThat(schema.getFields()).extracting(t -> t.getName()).containsExactly("message_id", "event_time", "entity",
        "label", "origin_counts__flights", "dest_delays__total_delay");
    assertThat(schema.getType("event_time").asPrimitiveType().getPrimitiveTypeName())
        .isEqualTo(PrimitiveType.PrimitiveTypeName.INT64);
    assertThat(schema.getType("event_time").getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS));
    assertThat(schema.getType("label").asPrimitiveType().getPrimitiveTypeName())
        .isEqualTo(PrimitiveType.PrimitiveTypeName.BOOLEAN);
    assertThat(schema.getType("origin_counts__flights").asPrimitiveType().getPrimitiveTypeName())
        .isEqualTo(PrimitiveType.PrimitiveTypeName.INT64);
    assertThat(groups).hasSize(20_000);
    for (int i = 0; i < groups.size(); i += 97) {
      Group g = groups.get(i);
      JsonNode row = rows.get(i);
      assertThat(g.getString("message_id", 0)).isEqualTo(row.get("message_id").asText());
      assertThat(g.getLong("event_time", 0)).isEqualTo(flights.get(i).eventTimeMs());
      assertThat(g.getBoolean("label", 0)).isEqualTo(row.get("label").asBoolean());
      if (row.get("origin_counts__flights").isNull()) {
        assertThat(g.getFieldRepetitionCount("origin_counts__flights")).isZero();
      } else {
        assertThat(g.getLong("origin_counts__flights", 0)).isEqualTo(row.get("origin_counts__flights").asLong());
      }
    }
    JsonNode manifest = JSON.readTree(Files.readString(Path.of(parquet.manifest())));
    assertThat(manifest.at("/range/to").asText()).isEqualTo(stopAt);
    assertThat(manifest.at("/features/0/transform_version").asInt()).isEqualTo(1);
    assertThat(manifest.at("/rows").asLong()).isEqualTo(20_000);
    assertThat(manifest.at("/command").asText()).isEqualTo("test delayed_pq");

    // Proof 2: a correction for an already-labelled origin and time, appended later, changes nothing when
    // the set is rebuilt to the same position (proof 6: byte-identical).
    Flights.Flight corrected = flights.get(100);
    FlightEvents.append(ledger, stream, List.of(new Flights.Flight(corrected.date(), 0, corrected.distance(), corrected.origin(),
        corrected.destination())));
    TrainingSetStatus again = TrainingSetBuilds.build(manager, spec(tenant, "delayed_pq", "delay >= 15", "", features,
        ReplayCursor.parse(stopAt, true), "delayed.parquet"));
    assertThat(again.rows()).isEqualTo(20_000);
    assertThat(Files.readAllBytes(parquetFile)).isEqualTo(firstBytes);
    TrainingSetStatus jsonAgain = TrainingSetBuilds.build(manager, spec(tenant, "delayed_again", "delay >= 15", "", features,
        ReplayCursor.parse(stopAt, true), "delayed-again.jsonl"));
    assertThat(Files.readAllBytes(Path.of(jsonAgain.output()))).isEqualTo(Files.readAllBytes(Path.of(first.output())));
    TrainingSetStatus latest = TrainingSetBuilds.build(manager, spec(tenant, "delayed_latest", "delay >= 15", "delay >= 15", features,
        ReplayCursor.latest(), "delayed-latest.csv"));
    long delayed = flights.stream().filter(f -> f.delay() >= 15).count();
    assertThat(latest.rows()).as("--where keeps only label events").isEqualTo(delayed);
    assertThat(Files.readAllLines(Path.of(latest.output())).get(0))
        .isEqualTo("message_id,event_time,entity,label,origin_counts__flights,dest_delays__total_delay");
  }

  /** Proof 4: a value exactly TTL old is kept; one millisecond older is null. */
  @Test
  void timeToLiveBoundary() throws Exception {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    manager.create(tenant, "origin_counts", "SELECT origin, COUNT(*) AS flights FROM flights GROUP BY origin", List.of());
    // The feature row of origin XXX changes once, at 10:00:00; label events (origin LBL, destination XXX) come later.
    List<Appended> ttlIds = FlightEvents.append(ledger, stream, List.of(
        new Flights.Flight("2015-01-01T10:00:00", 0, 1, "XXX", "YYY"),
        new Flights.Flight("2015-01-01T10:00:59", 0, 1, "LBL", "XXX"),
        new Flights.Flight("2015-01-01T10:01:00", 0, 1, "LBL", "XXX"),
        new Flights.Flight("2015-01-01T10:01:01", 0, 1, "LBL", "XXX"),
        new Flights.Flight("2015-01-01T09:00:00", 0, 1, "LBL", "XXX")));
    TrainingSetStatus set = TrainingSetBuilds.build(manager, spec(tenant, "ttl", "distance", "origin = 'LBL'",
        List.of("origin_counts.flights@destination/60s", "all_flights=origin_counts.flights@destination"), ReplayCursor.latest(),
        "ttl.jsonl"));
    List<JsonNode> rows = TrainingSetBuilds.jsonl(Path.of(set.output()));
    assertThat(rows).extracting(r -> r.get("event_time").asText()).containsExactly("2015-01-01T10:00:59Z",
        "2015-01-01T10:01:00Z", "2015-01-01T10:01:01Z", "2015-01-01T09:00:00Z");
    assertThat(rows.get(0).get("origin_counts__flights").asLong()).as("59 s old").isEqualTo(1);
    assertThat(rows.get(1).get("origin_counts__flights").asLong()).as("exactly 60 s old: kept").isEqualTo(1);
    assertThat(rows.get(2).get("origin_counts__flights").isNull()).as("61 s old: expired").isTrue();
    // A label event earlier in event time but later in the ledger sees the value (age is negative, not stale).
    assertThat(rows.get(3).get("origin_counts__flights").asLong()).isEqualTo(1);
    // The same column without a TTL, under its own name.
    assertThat(rows).extracting(r -> r.get("all_flights").asLong()).containsExactly(1L, 1L, 1L, 1L);

    // The range of a set built --before a message ID ends at the event before it, and the status and
    // manifest say so: rebuilding --to that ID gives the same set.
    TrainingSetStatus before = TrainingSetBuilds.build(manager, spec(tenant, "ttl_before", "distance", "origin = 'LBL'",
        List.of("origin_counts.flights@destination/60s"), ReplayCursor.parse(ttlIds.get(3).messageId().toString(), false),
        "ttl-before.jsonl"));
    assertThat(before.rows()).isEqualTo(2);
    assertThat(before.stopMessageId()).isEqualTo(ttlIds.get(2).messageId().toString());
    assertThat(JSON.readTree(Files.readString(Path.of(before.manifest()))).at("/range/to").asText())
        .isEqualTo(ttlIds.get(2).messageId().toString());
  }

  /**
   * A view whose SQL filters its aggregates (HAVING) drops a row with an update that has no after-image: Flink emits
   * only the UPDATE_BEFORE. The feature is then null, as the live view (which deletes the row) would read, until the
   * row passes the filter again.
   */
  @Test
  void aRowTheViewsSqlFiltersOutIsNullUntilItComesBack() throws Exception {
    String tenant = Testkit.uniqueName("t");
    StreamRef stream = FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    manager.create(tenant, "small_delays",
        "SELECT origin, COUNT(*) AS flights FROM flights GROUP BY origin HAVING SUM(delay) < 10", List.of());
    // Origin AAA's delay sum goes 5, 15 (filtered out), 5 (back, 3 flights), 25 (filtered out); label events
    // (origin LBL, destination AAA) read AAA's row before each change and at the end.
    FlightEvents.append(ledger, stream, List.of(
        new Flights.Flight("2015-01-01T10:00:00", 0, 1, "LBL", "AAA"),
        new Flights.Flight("2015-01-01T10:01:00", 5, 1, "AAA", "YYY"),
        new Flights.Flight("2015-01-01T10:02:00", 0, 2, "LBL", "AAA"),
        new Flights.Flight("2015-01-01T10:03:00", 10, 1, "AAA", "YYY"),
        new Flights.Flight("2015-01-01T10:04:00", 0, 3, "LBL", "AAA"),
        new Flights.Flight("2015-01-01T10:05:00", -10, 1, "AAA", "YYY"),
        new Flights.Flight("2015-01-01T10:06:00", 0, 4, "LBL", "AAA"),
        new Flights.Flight("2015-01-01T10:07:00", 20, 1, "AAA", "YYY"),
        new Flights.Flight("2015-01-01T10:08:00", 0, 5, "LBL", "AAA")));
    TrainingSetStatus set = TrainingSetBuilds.build(manager, spec(tenant, "filtered", "distance", "origin = 'LBL'",
        List.of("small_delays.flights@destination", "recent=small_delays.flights@destination/1h"), ReplayCursor.latest(),
        "filtered.jsonl"));
    List<JsonNode> rows = TrainingSetBuilds.jsonl(Path.of(set.output()));
    assertThat(rows).extracting(r -> r.get("label").asInt()).containsExactly(1, 2, 3, 4, 5);
    assertThat(rows).extracting(r -> r.get("small_delays__flights").isNull() ? null : r.get("small_delays__flights").asLong())
        .as("no row yet, 1 flight, filtered out, back with 3 flights, filtered out")
        .containsExactly(null, 1L, null, 3L, null);
    assertThat(rows).extracting(r -> r.get("recent").isNull() ? null : r.get("recent").asLong())
        .containsExactly(null, 1L, null, 3L, null);
  }

  @Test
  void badRequestsAreRejectedBeforeAnythingRuns() {
    String tenant = Testkit.uniqueName("t");
    FlightEvents.createStream(ledger, new StreamRef(tenant, "flights"));
    manager.create(tenant, "origin_counts", "SELECT origin, COUNT(*) AS flights FROM flights GROUP BY origin", List.of());
    assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "x", "delay >= 15", "",
        List.of("origin_counts.nope"), ReplayCursor.latest(), "x.jsonl")))
        .isInstanceOf(TransformException.InvalidTrainingSet.class).hasMessageContaining("no column 'nope'")
        .hasMessageContaining("[origin, flights]");
    assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "x", "delay >= 15", "",
        List.of("label=origin_counts.flights"), ReplayCursor.latest(), "x.jsonl")))
        .isInstanceOf(TransformException.InvalidTrainingSet.class).hasMessageContaining("'label' is taken");
    assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "x", "delay >= 15", "",
        List.of("a=origin_counts.flights", "a=origin_counts.origin"), ReplayCursor.latest(), "x.jsonl")))
        .isInstanceOf(TransformException.InvalidTrainingSet.class).hasMessageContaining("'a' is used by another feature");
    assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "x", "nope > 1", "",
        List.of("origin_counts.flights"), ReplayCursor.latest(), "x.jsonl")))
        .isInstanceOf(TransformException.InvalidTrainingSet.class).hasMessageContaining("'nope > 1'");
    assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "x", "delay >= ", "",
        List.of("origin_counts.flights"), ReplayCursor.latest(), "x.jsonl")))
        .isInstanceOf(TransformException.InvalidTrainingSet.class).hasMessageContaining("--label");
    assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "x", "delay >= 15", "nope = 1",
        List.of("origin_counts.flights"), ReplayCursor.latest(), "x.jsonl")))
        .isInstanceOf(TransformException.InvalidTrainingSet.class).hasMessageContaining("--where");
    assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "x", "delay >= 15", "",
        List.of("missing_view.flights"), ReplayCursor.latest(), "x.jsonl")))
        .isInstanceOf(TransformException.NotFound.class).hasMessageContaining("missing_view");
    assertThatThrownBy(() -> manager.createTrainingSet(spec(tenant, "x", "delay >= 15", "",
        List.of("origin_counts.flights"), ReplayCursor.latest(), "x.xlsx")))
        .isInstanceOf(TransformException.InvalidTrainingSet.class).hasMessageContaining(".parquet, .csv or .jsonl");
    // An empty stream gives an empty file with its header, at once.
    TrainingSetStatus empty = manager.createTrainingSet(spec(tenant, "empty", "delay >= 15", "",
        List.of("origin_counts.flights"), ReplayCursor.latest(), "empty.csv"));
    assertThat(empty.phase()).isEqualTo(TrainingSetStatus.COMPLETE);
    assertThat(empty.rows()).isZero();
  }
}
