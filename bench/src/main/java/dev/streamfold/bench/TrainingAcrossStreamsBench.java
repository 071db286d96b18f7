package dev.streamfold.bench;

import dev.streamfold.api.v1.ClockTick;
import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ListTicksRequest;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.api.v1.TickPosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark 6, across streams: a training set over {@code --events} flights (default 3,000,000) of their own label
 * stream {@value #LABELS}, appended after the airports, with four features from three views over two streams: the
 * origin's flights and average delay so far ({@value #DELAYS}, over the label stream: cut just before each label
 * event), the origin airport's state ({@value #STATE}, over the airports) and the origin's flights joined with its
 * airport ({@value #JOINED}, over both): cut at the last tick of the tenant clock before the label event.
 *
 * <p>Baseline, in the same run: DuckDB computes the same training set from the same raw rows (the flights Parquet file,
 * the airports CSV) with window functions and ASOF joins on the clock's ticks, and writes it as Parquet. Every row of
 * both files is then compared (DuckDB over both files); a difference fails the benchmark. Figures: rows/s of ours and
 * DuckDB's (call to done; DuckDB's whole query, reading and writing included), the peak RSS of the server.
 *
 * <p>Flags: {@code --events N} (3,000,000), {@code --reps N} (2), {@code --airports FILE} (required),
 * {@code --flights FILE}.
 */
final class TrainingAcrossStreamsBench {
  static final String LABELS = "xflights";
  static final String DELAYS = "x_delays";
  static final String STATE = "airport_state";
  static final String JOINED = "x_origin_state";
  static final String NAME = "bench_across_streams";
  static final List<String> FEATURES = List.of("origin_flights=" + DELAYS + ".flights", "avg_delay=" + DELAYS
      + ".avg_delay", "airport_state=" + STATE + ".state", "joined_flights=" + JOINED + ".flights");

  private final BenchEnv env;
  private final Report report;

  TrainingAcrossStreamsBench(BenchEnv env) {
    this.env = env;
    this.report = new Report("6-training-across-streams", env.resultsDir);
  }

  void run() throws Exception {
    long events = env.getLong("events", 3_000_000);
    int reps = env.getInt("reps", 2);
    Path airportsCsv = Path.of(env.get("airports", ""));
    Path flightsParquet = Path.of(env.get("flights", env.dataDir.resolve("cache/flights-3m.parquet").toString()));
    try (Streamfold sf = new Streamfold(env.grpcTarget(), env.tenant, env.adminToken())) {
      AirportEvents.ensureLoaded(env, sf, airportsCsv, "[6-training-across-streams]");
      String lastAirport = sf.stream(AirportEvents.STREAM).orElseThrow().getLatestMessageId();
      awaitTickCovering(sf, AirportEvents.STREAM, lastAirport);
      StreamInfo flights = FlightEvents.ensureLoaded(env, sf, LABELS, events, report);
      awaitTickCovering(sf, LABELS, flights.getLatestMessageId());
      createIfMissing(sf, DELAYS, String.format(FlightEvents.DELAYS_BY_ORIGIN_SQL_TEMPLATE, LABELS), List.of("origin"));
      createIfMissing(sf, STATE, "SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata", List.of("iata"));
      createIfMissing(sf, JOINED, "SELECT f.origin, a.state, f.n AS flights FROM (SELECT origin, COUNT(*) AS n FROM "
          + LABELS + " GROUP BY origin) f JOIN (SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata) a"
          + " ON f.origin = a.iata", List.of("origin"));
      for (String view : List.of(DELAYS, STATE, JOINED)) {
        sf.awaitLive(view, BackfillBench.LIVE_TIMEOUT, 200, s -> {});
      }
      ExportTrainingSetRequest request = ExportTrainingSetRequest.newBuilder().setTenant(env.tenant).setName(NAME)
          .setLabelStream(LABELS).setEntity("origin").setLabel("delay >= 15").addAllFeatures(FEATURES)
          .setTo("latest").setOut(NAME + ".parquet").build();
      report.detail("request", Map.of("labelStream", LABELS, "entity", "origin", "label", "delay >= 15",
          "features", FEATURES, "out", NAME + ".parquet"));
      Stats.Series series = new Stats.Series();
      List<Map<String, Object>> runs = new ArrayList<>();
      for (TrainingSetExports.Measured m : TrainingSetExports.measure(env, sf, request, flights.getEventCount(), reps,
          "training-across-streams", TrainingSetExports.duckdb(
              (ours, duck) -> duckdb(sf, flightsParquet, airportsCsv, events, ours, duck),
              TrainingAcrossStreamsBench::differences))) {
        double seconds = m.export().seconds();
        long rows = m.export().done().getRows();
        Map<String, Double> peak = m.export().peakMib();
        runs.add(Map.of("rows", rows, "seconds", seconds, "duckdbSeconds", m.duckdbSeconds(), "peakRssMib", peak,
            "output", m.export().done().getOutput()));
        series.add("rows/s", rows / seconds);
        series.add("duckdb rows/s", rows / m.duckdbSeconds());
        series.add("seconds", seconds);
        series.add("peak server RSS MiB", peak.getOrDefault("server", 0.0));
      }
      report.detail("runs", runs);
      String what = String.format("training set over %,d flights, 4 features from 3 views over 2 streams (flights,"
          + " airports), Parquet; call -> done", flights.getEventCount());
      report.row(what, "rows/s", true, series.summary("rows/s"), "DuckDB, the same rows from the raw files (window"
          + " functions, ASOF joins on the ticks)", series.summary("duckdb rows/s"), "ratio >= 0.5",
          series.summary("rows/s").median() >= 0.5 * series.summary("duckdb rows/s").median());
      report.row(what, "seconds", false, series.summary("seconds"), null, null, "< 60 s",
          series.summary("seconds").median() < 60);
      report.row(what, "peak server RSS (MiB)", false, series.summary("peak server RSS MiB"), null, null, null, null);
      report.write();
    }
  }

  private static void createIfMissing(Streamfold sf, String view, String sql, List<String> key) {
    if (sf.status(view).isEmpty()) {
      sf.createTransform(view, sql, key);
    }
  }

  /** Wait until the tenant clock's last tick covers {@code messageId} of {@code stream} (one partition). */
  private void awaitTickCovering(Streamfold sf, String stream, String messageId) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      List<ClockTick> last = sf.admin().listTicks(ListTicksRequest.newBuilder().setTenant(env.tenant).setLast(true)
          .build()).getTicksList();
      for (ClockTick tick : last) {
        for (TickPosition p : tick.getStreamsList()) {
          if (p.getStream().equals(stream) && p.getMessageIdsList().contains(messageId)) {
            return;
          }
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("no tick of the clock of " + env.tenant + " covers " + stream + " " + messageId);
  }

  /**
   * The same training set by DuckDB from the raw files; returns the seconds of its one query (reading both files,
   * computing, writing {@code out}). Each flight's tick comes from the clock (ListTicks): the ticks' message IDs of
   * the label stream are numbered by the order of the message IDs in our output (every flight is a label event),
   * before the timed query.
   */
  private double duckdb(Streamfold sf, Path flights, Path airports, long events, Path ours, Path out) throws Exception {
    List<String[]> bounds = new ArrayList<>(); // tick, the label stream's message ID there
    long after = 0;
    while (true) {
      List<ClockTick> page = sf.admin().listTicks(ListTicksRequest.newBuilder().setTenant(env.tenant)
          .setAfterTick(after).setMaxTicks(10_000).build()).getTicksList();
      if (page.isEmpty()) {
        break;
      }
      for (ClockTick tick : page) {
        for (TickPosition p : tick.getStreamsList()) {
          if (p.getStream().equals(LABELS)) {
            bounds.add(new String[] {Long.toString(tick.getNumber()), p.getMessageIds(0)});
          }
        }
        after = tick.getNumber();
      }
    }
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE tick_ids (tick BIGINT, message_id VARCHAR)");
      StringBuilder insert = new StringBuilder("INSERT INTO tick_ids VALUES ");
      for (int i = 0; i < bounds.size(); i++) {
        insert.append(i == 0 ? "" : ",").append('(').append(bounds.get(i)[0]).append(",'").append(bounds.get(i)[1])
            .append("')");
      }
      if (!bounds.isEmpty()) {
        s.execute(insert.toString());
      }
      // the seq of each tick's last label event; a tick covering no new label event keeps the earlier seq
      s.execute("CREATE TABLE bounds AS SELECT t.tick, o.seq AS last_seq FROM tick_ids t JOIN (SELECT message_id,"
          + " row_number() OVER () - 1 AS seq FROM read_parquet('" + ours + "')) o USING (message_id)");
      long t0 = System.nanoTime();
      s.execute("COPY (WITH f AS (SELECT row_number() OVER () - 1 AS seq, origin, delay FROM (SELECT origin, delay FROM"
          + " read_parquet('" + flights + "') LIMIT " + events + ")),"
          + " ft AS (SELECT f.*, b.tick FROM f ASOF JOIN (SELECT min(tick) AS tick, last_seq FROM bounds GROUP BY last_seq) b"
          + " ON f.seq <= b.last_seq),"
          + " a AS (SELECT iata, arg_max(state, seq) AS state FROM (SELECT row_number() OVER () AS seq, iata, state FROM"
          + " read_csv('" + airports + "', header = true)) GROUP BY iata),"
          + " cum AS (SELECT origin, tick, SUM(n) OVER (PARTITION BY origin ORDER BY tick) AS flights FROM"
          + " (SELECT origin, tick, COUNT(*) AS n FROM ft GROUP BY origin, tick)),"
          + " j AS (SELECT ft.seq, c.flights FROM ft ASOF JOIN cum c ON c.origin = ft.origin AND ft.tick > c.tick)"
          + " SELECT ft.seq, ft.origin AS entity, ft.delay >= 15 AS label,"
          + " NULLIF(COUNT(*) OVER w, 0) AS origin_flights, AVG(CAST(ft.delay AS DOUBLE)) OVER w AS avg_delay,"
          + " a.state AS airport_state, CASE WHEN a.iata IS NULL THEN NULL ELSE j.flights END AS joined_flights"
          + " FROM ft LEFT JOIN a ON a.iata = ft.origin LEFT JOIN j ON j.seq = ft.seq"
          + " WINDOW w AS (PARTITION BY ft.origin ORDER BY ft.seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)"
          + " ORDER BY ft.seq) TO '" + out + "' (FORMAT parquet)");
      return (System.nanoTime() - t0) / 1e9;
    }
  }

  /** Rows of the two files (matched by position) whose entity, label or any feature differ. */
  private static long differences(Path ours, Path duck) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT COUNT(*) FROM (SELECT row_number() OVER () - 1 AS seq, * FROM read_parquet('"
            + ours + "')) o FULL JOIN read_parquet('" + duck + "') d USING (seq) WHERE o.entity IS DISTINCT FROM d.entity"
            + " OR o.label IS DISTINCT FROM d.label OR o.origin_flights IS DISTINCT FROM d.origin_flights"
            + " OR o.airport_state IS DISTINCT FROM d.airport_state OR o.joined_flights IS DISTINCT FROM d.joined_flights"
            + " OR (o.avg_delay IS NULL) <> (d.avg_delay IS NULL) OR abs(o.avg_delay - d.avg_delay) > 1e-9 * greatest(1,"
            + " abs(d.avg_delay))")) {
      r.next();
      return r.getLong(1);
    }
  }

  static boolean wanted(BenchEnv env) {
    return !env.get("airports", "").isEmpty() && Files.exists(Path.of(env.get("airports", "")));
  }
}
