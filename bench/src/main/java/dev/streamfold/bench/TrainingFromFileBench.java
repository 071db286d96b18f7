package dev.streamfold.bench;

import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.StreamInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Benchmark 6, labels from a file: a training set of {@code --labels N} rows (default 100,000: origin and time of
 * flights sampled from the {@code --events} flights of {@value TrainingAcrossStreamsBench#LABELS}, shifted by -1, 0 or
 * +1 minute) cut by event time, with four features from three views over two streams: the origin's flights and
 * average delay ({@value TrainingAcrossStreamsBench#DELAYS}), the origin airport's state ({@value #STATE}, over
 * {@value #AIRPORTS}, airports appended with event time 2000-01-01) and the origin's flights joined with its airport
 * ({@value #JOINED}, over both).
 *
 * <p>Baseline, in the same run: DuckDB computes the same training set from the same raw files (the flights Parquet
 * file, the airports CSV, the labels Parquet file) with window functions and an ASOF JOIN, and writes it as Parquet;
 * every row of both files is compared (a difference fails the benchmark). Figures: rows/s of ours and DuckDB's, the
 * peak RSS of the server and of the task manager.
 */
final class TrainingFromFileBench {
  static final String AIRPORTS = "airports_2000";
  static final String STATE = "f_airport_state";
  static final String JOINED = "f_origin_state";
  static final String NAME = "bench_from_file";
  /** 2000-01-01T00:00:00Z: before every flight, so every airport counts for every label. */
  static final long AIRPORTS_EVENT_TIME_MS = 946_684_800_000L;
  static final List<String> FEATURES = List.of("origin_flights=" + TrainingAcrossStreamsBench.DELAYS + ".flights",
      "avg_delay=" + TrainingAcrossStreamsBench.DELAYS + ".avg_delay", "airport_state=" + STATE + ".state",
      "joined_flights=" + JOINED + ".flights");

  private final BenchEnv env;
  private final Report report;

  TrainingFromFileBench(BenchEnv env) {
    this.env = env;
    this.report = new Report("6-training-from-file", env.resultsDir);
  }

  void run() throws Exception {
    long events = env.getLong("events", 3_000_000);
    long labelRows = env.getLong("labels", 100_000);
    int reps = env.getInt("reps", 2);
    Path airportsCsv = Path.of(env.get("airports", ""));
    Path flightsParquet = Path.of(env.get("flights", env.dataDir.resolve("cache/flights-3m.parquet").toString()));
    String tag = "[6-training-from-file]";
    // --join false leaves out the feature from the view over both streams (cut through the gate): its cost apart
    boolean join = Boolean.parseBoolean(env.get("join", "true"));
    List<String> features = join ? FEATURES : FEATURES.subList(0, 3);
    try (Streamfold sf = new Streamfold(env.grpcTarget(), env.tenant, env.adminToken())) {
      AirportEvents.ensureLoaded(env, sf, airportsCsv, tag, AIRPORTS, AIRPORTS_EVENT_TIME_MS);
      StreamInfo flights = FlightEvents.ensureLoaded(env, sf, TrainingAcrossStreamsBench.LABELS, events, report);
      createIfMissing(sf, TrainingAcrossStreamsBench.DELAYS, String.format(FlightEvents.DELAYS_BY_ORIGIN_SQL_TEMPLATE,
          TrainingAcrossStreamsBench.LABELS), List.of("origin"));
      createIfMissing(sf, STATE, "SELECT iata, MAX(state) AS state FROM " + AIRPORTS + " GROUP BY iata",
          List.of("iata"));
      createIfMissing(sf, JOINED, "SELECT f.origin, a.state, f.n AS flights FROM (SELECT origin, COUNT(*) AS n FROM "
          + TrainingAcrossStreamsBench.LABELS + " GROUP BY origin) f JOIN (SELECT iata, MAX(state) AS state FROM "
          + AIRPORTS + " GROUP BY iata) a ON f.origin = a.iata", List.of("origin"));
      for (String view : List.of(TrainingAcrossStreamsBench.DELAYS, STATE, JOINED)) {
        sf.awaitLive(view, BackfillBench.LIVE_TIMEOUT, 200, s -> {});
      }
      Path labels = env.dataDir.resolve("cache").resolve("labels-" + labelRows + "-of-" + flights.getEventCount()
          + ".parquet");
      if (!Files.exists(labels)) {
        sample(flightsParquet, flights.getEventCount(), labelRows, labels);
      }
      ExportTrainingSetRequest request = ExportTrainingSetRequest.newBuilder().setTenant(env.tenant).setName(NAME)
          .setLabelsFile(labels.toString()).setTimeColumn("ts").setEntity("origin").addAllFeatures(features)
          .setOut(NAME + ".parquet").build();
      report.detail("request", Map.of("labelsFile", labels.toString(), "timeColumn", "ts", "entity", "origin",
          "features", features, "out", NAME + ".parquet"));
      Stats.Series series = new Stats.Series();
      List<Map<String, Object>> runs = new ArrayList<>();
      for (TrainingSetExports.Measured m : TrainingSetExports.measure(env, sf, request, labelRows, reps,
          "training-from-file", TrainingSetExports.duckdb(
              (ours, duck) -> duckdb(flightsParquet, flights.getEventCount(), airportsCsv, labels, duck),
              (ours, duck) -> differences(ours, duck, join)))) {
        double seconds = m.export().seconds();
        long rows = m.export().done().getRows();
        Map<String, Double> peak = m.export().peakMib();
        runs.add(Map.of("rows", rows, "seconds", seconds, "duckdbSeconds", m.duckdbSeconds(), "peakRssMib", peak));
        series.add("rows/s", rows / seconds);
        series.add("duckdb rows/s", rows / m.duckdbSeconds());
        series.add("seconds", seconds);
        series.add("peak server RSS MiB", peak.getOrDefault("server", 0.0));
      }
      report.detail("runs", runs);
      String what = String.format("training set of %,d label rows from a Parquet file, by event time, over %,d flights"
          + " and 3,376 airports, %s; call -> done", labelRows, flights.getEventCount(), join
          ? "4 features from 3 views (one over both streams)" : "3 features from 2 views over one stream each");
      report.row(what, "rows/s", true, series.summary("rows/s"), "DuckDB, the same rows from the raw files (window"
          + " functions, ASOF JOIN)", series.summary("duckdb rows/s"), "ratio >= 0.5",
          series.summary("rows/s").median() >= 0.5 * series.summary("duckdb rows/s").median());
      report.row(what, "seconds", false, series.summary("seconds"), null, null, null, null);
      report.row(what, "peak server RSS (MiB)", false, series.summary("peak server RSS MiB"), null, null, null, null);
      report.write();
    }
  }

  private static void createIfMissing(Streamfold sf, String view, String sql, List<String> key) {
    if (sf.status(view).isEmpty()) {
      sf.createTransform(view, sql, key);
    }
  }

  /** The first {@code events} flights, as DuckDB reads them: origin, delay and event time (UTC). */
  private static String flights(Path parquet, long events) {
    return "(SELECT origin, delay, CAST(date AS TIMESTAMP) AS event_time FROM (SELECT origin, delay, date FROM"
        + " read_parquet('" + parquet + "') LIMIT " + events + "))";
  }

  /** Write {@code rows} labels (id, origin, ts) sampled from the first {@code events} flights, once. */
  private static void sample(Path flights, long events, long rows, Path out) throws Exception {
    Files.createDirectories(out.getParent());
    Path temp = out.resolveSibling(out.getFileName() + ".tmp");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
      s.execute("COPY (SELECT id, origin, event_time + to_minutes(CAST(id % 3 AS BIGINT) - 1) AS ts FROM (SELECT"
          + " row_number() OVER (ORDER BY hash(event_time, origin, delay, n)) AS id, origin, event_time FROM (SELECT *,"
          + " row_number() OVER () AS n FROM " + flights(flights, events) + ") ORDER BY hash(event_time, origin, delay,"
          + " n) LIMIT " + rows + ") ORDER BY id) TO '" + temp + "' (FORMAT parquet)");
    }
    Files.move(temp, out);
  }

  /** The same training set by DuckDB from the raw files; returns the seconds of its one query. */
  private static double duckdb(Path flights, long events, Path airports, Path labels, Path out) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
      long t0 = System.nanoTime();
      s.execute("COPY (WITH per_time AS (SELECT origin, event_time, SUM(COUNT(*)) OVER w AS flights,"
          + " SUM(SUM(delay)) OVER w AS delay_sum, SUM(COUNT(delay)) OVER w AS delays FROM " + flights(flights, events)
          + " GROUP BY origin, event_time WINDOW w AS (PARTITION BY origin ORDER BY event_time ROWS UNBOUNDED PRECEDING)),"
          + " a AS (SELECT iata, MAX(state) AS state FROM read_csv('" + airports + "', header = true) GROUP BY iata)"
          + " SELECT l.id, l.origin, l.ts, p.flights AS origin_flights, p.delay_sum / p.delays AS avg_delay,"
          + " a.state AS airport_state, CASE WHEN a.iata IS NOT NULL THEN p.flights END AS joined_flights"
          + " FROM read_parquet('" + labels + "') l ASOF LEFT JOIN per_time p ON p.origin = l.origin AND l.ts >="
          + " p.event_time LEFT JOIN a ON a.iata = l.origin ORDER BY l.ts, l.id) TO '" + out + "' (FORMAT parquet)");
      return (System.nanoTime() - t0) / 1e9;
    }
  }

  /** Rows of the two files (matched by id) whose origin, time or any feature differ. */
  private static long differences(Path ours, Path duck, boolean join) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT COUNT(*) FROM read_parquet('" + ours + "') o FULL JOIN read_parquet('"
            + duck + "') d USING (id) WHERE o.origin IS DISTINCT FROM d.origin OR epoch_ms(o.ts) IS DISTINCT FROM epoch_ms(d.ts)"
            + " OR o.origin_flights IS DISTINCT FROM d.origin_flights OR o.airport_state IS DISTINCT FROM d.airport_state"
            + (join ? " OR o.joined_flights IS DISTINCT FROM d.joined_flights" : "")
            + " OR (o.avg_delay IS NULL) <> (d.avg_delay IS NULL)"
            + " OR abs(o.avg_delay - d.avg_delay) > 1e-9 * greatest(1, abs(d.avg_delay))")) {
      r.next();
      return r.getLong(1);
    }
  }
}
