package dev.streamfold.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.api.v1.ViewStatus;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/**
 * Benchmarks 2 (backfill) and 7 (memory). Makes sure stream {@value FlightEvents#STREAM} holds
 * {@code --events} flights (default 3,000,000; appended over AppendStream from the Parquet file when
 * missing), then measures:
 * <ul>
 *   <li>the raw Pulsar reader reading the stream's topic from earliest to its last message (the I/O floor);
 *   <li>a single-threaded in-process group-by of the same payloads: JSON parse plus fold (the compute
 *       floor), and the fold alone over already decoded (origin, delay) pairs;
 *   <li>ours: {@code delays_by_origin} created over gRPC, from the Create call until the view is LIVE, with
 *       the peak RSS of every process of the stack meanwhile; the view is checked against the floor's
 *       group-by (every origin's flights and delayed counts over RESP);
 *   <li>state size vs number of keys: views keyed by origin, by route (origin, destination) and by origin and
 *       day, each backfilled over the same events: rows, Redis bytes of their rows (MEMORY USAGE), Flink
 *       checkpoint bytes, peak server RSS.
 * </ul>
 * The last {@code delays_by_origin} repetition stays (named {@value #VIEW}) for the serving benchmark.
 *
 * <p>Flags: {@code --events N}, {@code --flights FILE}, {@code --warmup N} (1), {@code --reps N} (3) for
 * our backfill; {@code --floor-reps N} (5) for the floors; {@code --state-keys true|false} (true);
 * {@code --reader-queue N} (receiver queue of the raw reader, default 1,000, the client's default).
 */
final class BackfillBench {
  static final String VIEW = "delays_by_origin";
  static final Duration LIVE_TIMEOUT = Duration.ofMinutes(30);

  private final BenchEnv env;
  private final Report report;
  private final Report memory;

  BackfillBench(BenchEnv env) {
    this.env = env;
    this.report = new Report("2-backfill", env.resultsDir);
    this.memory = new Report("7-memory", env.resultsDir);
  }

  void run() throws Exception {
    long wanted = env.getLong("events", 3_000_000);
    int warmup = env.getInt("warmup", 1);
    int reps = env.getInt("reps", 3);
    int floorReps = env.getInt("floor-reps", 5);
    try (Streamfold sf = new Streamfold(env.grpcTarget(), env.tenant, env.adminToken());
        PulsarRaw raw = new PulsarRaw(env.stack().pulsarServiceUrl(), env.stack().pulsarAdminUrl())) {
      StreamInfo stream = load(sf, wanted);
      long target = stream.getEventCount();
      report.detail("events", target);
      memory.detail("events", target);
      for (String old : List.of(VIEW, "state_by_route", "state_by_origin_day")) {
        sf.deleteTransform(old);
      }
      for (int i = 1; i <= 20; i++) {
        sf.deleteTransform(VIEW + "_b" + i);
      }

      // The I/O floor: the raw reader; its first run keeps the payloads for the compute floor.
      List<byte[]> payloads = new ArrayList<>((int) target);
      Stats.Series reader = new Stats.Series();
      for (int rep = 0; rep < 1 + floorReps; rep++) {
        long t0 = System.nanoTime();
        long n = readAll(raw, stream.getTopic(), target, rep == 0 ? payloads : null);
        double eps = n * 1e9 / (System.nanoTime() - t0);
        System.out.printf("[2-backfill] raw reader %s: %,d events, %,.0f events/s%n", rep == 0 ? "warm-up" : "rep " + rep,
            n, eps);
        if (rep > 0) {
          reader.add("events/s", eps);
        }
      }

      // The compute floor, single-threaded, in this JVM.
      Stats.Series floor = new Stats.Series();
      Map<String, long[]> oracle = null;
      String[] origins = new String[payloads.size()];
      int[] delays = new int[payloads.size()];
      for (int rep = 0; rep < 1 + floorReps; rep++) {
        long t0 = System.nanoTime();
        Map<String, long[]> groups = parseAndFold(payloads, origins, delays);
        double parseEps = payloads.size() * 1e9 / (System.nanoTime() - t0);
        t0 = System.nanoTime();
        Map<String, long[]> again = fold(origins, delays);
        double foldEps = payloads.size() * 1e9 / (System.nanoTime() - t0);
        System.out.printf("[2-backfill] compute floor %s: parse+fold %,.0f events/s, fold of decoded %,.0f events/s"
            + " (%d groups)%n", rep == 0 ? "warm-up" : "rep " + rep, parseEps, foldEps, again.size());
        if (rep > 0) {
          floor.add("parse+fold", parseEps);
          floor.add("fold", foldEps);
        }
        oracle = groups;
      }
      payloads = null;

      // Ours: create -> LIVE, with peak RSS of every process.
      Stats.Series ours = new Stats.Series();
      Map<String, List<Double>> rss = new LinkedHashMap<>();
      List<Map<String, Object>> runs = new ArrayList<>();
      for (int rep = 0; rep < warmup + reps; rep++) {
        boolean measured = rep >= warmup;
        boolean last = rep == warmup + reps - 1;
        String name = last ? VIEW : VIEW + "_b" + (rep + 1);
        if (measured && last) {
          env.jfrStart("backfill");
        }
        Backfill b = backfill(sf, name, String.format(FlightEvents.DELAYS_BY_ORIGIN_SQL_TEMPLATE, FlightEvents.STREAM),
            List.of("origin"));
        if (measured && last) {
          env.jfrStop("backfill");
        }
        int mismatches = check(name, oracle);
        System.out.printf("[2-backfill] %s %s: %,d events in %.1f s = %,.0f events/s (create call %.1f s; from first"
            + " commit %,.0f events/s); %d/%d origins differ from the floor's group-by; peak RSS MiB %s%n",
            name, measured ? "rep " + (rep - warmup + 1) : "warm-up", b.events, b.seconds, b.eventsPerSecond(),
            b.createSeconds, b.eventsPerSecondAfterFirstCommit(), mismatches, oracle.size(), fmt(b.peakRssMib));
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("view", name);
        run.put("measured", measured);
        run.put("events", b.events);
        run.put("seconds", b.seconds);
        run.put("createCallSeconds", b.createSeconds);
        run.put("firstCommitSeconds", b.firstCommitSeconds);
        run.put("peakRssMib", b.peakRssMib);
        run.put("originsDifferingFromFloor", mismatches);
        runs.add(run);
        if (mismatches != 0) {
          throw new IllegalStateException("view " + name + " differs from the plain group-by in " + mismatches + " origins");
        }
        if (measured) {
          ours.add("events/s", b.eventsPerSecond());
          ours.add("events/s after first commit", b.eventsPerSecondAfterFirstCommit());
          ours.add("seconds", b.seconds);
          b.peakRssMib.forEach((role, mib) -> rss.computeIfAbsent(role, k -> new ArrayList<>()).add(mib));
        }
        if (!last) {
          sf.deleteTransform(name);
        }
      }
      report.detail("runs", runs);
      String what = String.format("%s over %,d flights, create -> LIVE", VIEW, target);
      report.row(what, "events/s", true, ours.summary("events/s"), "raw Pulsar reader (I/O floor)",
          reader.summary("events/s"), "ratio >= 0.5", ours.summary("events/s").median() >= 0.5 * reader.summary("events/s").median());
      report.row(what, "events/s", true, ours.summary("events/s"), "1-thread JSON parse + group-by (compute floor)",
          floor.summary("parse+fold"), null, null);
      report.row(what, "events/s", true, ours.summary("events/s"), "1-thread group-by of decoded events",
          floor.summary("fold"), null, null);
      report.row(VIEW + ", from the first view commit to LIVE", "events/s", true,
          ours.summary("events/s after first commit"), "raw Pulsar reader (I/O floor)", reader.summary("events/s"),
          null, null);
      report.row(what, "seconds", false, ours.summary("seconds"), null, null, null, null);
      if (!env.get("airports", "").isEmpty()) {
        multiStream(sf, target, oracle, ours.summary("events/s"), warmup, reps);
      }
      rss.forEach((role, values) -> memory.row("peak RSS of " + role + String.format(" during the backfill of %,d events",
          target), "MiB", false, Stats.of(values), null, null, null, null));
      report.write();

      if (Boolean.parseBoolean(env.get("state-keys", "true"))) {
        stateVsKeys(sf, target);
      }
      if (Boolean.parseBoolean(env.get("memory-vs-events", "true"))) {
        memoryVsEvents(sf, target);
      }
      memory.write();
    }
  }

  /** A view over two streams: delays by state, flights joined with each airport's latest state. */
  static final String DELAYS_BY_STATE_SQL = "SELECT a.state, SUM(f.n) AS flights, SUM(f.delayed) AS delayed"
      + " FROM (SELECT origin, COUNT(*) AS n, SUM(CASE WHEN delay >= 15 THEN 1 ELSE 0 END) AS delayed FROM flights"
      + " GROUP BY origin) f JOIN (SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata) a"
      + " ON f.origin = a.iata GROUP BY a.state";

  /**
   * Benchmark 2, two streams: {@code delays_by_state} (flights joined with airports, read in the tenant clock's
   * order) created until LIVE, as a ratio to {@code delays_by_origin}'s backfill of the same flights in this run. The
   * airports stream is loaded from {@code --airports FILE} (CSV) once. Checked: the view's flights and delayed counts
   * summed over its states equal the floor's over the flights whose origin is an airport of the file.
   */
  private void multiStream(Streamfold sf, long flights, Map<String, long[]> oracle, Stats.Summary single, int warmup,
      int reps) throws Exception {
    java.util.Set<String> iatas = AirportEvents.ensureLoaded(env, sf, Path.of(env.get("airports", "")), "[2-backfill]");
    long events = flights + sf.stream("airports").orElseThrow().getEventCount();
    long[] expected = new long[2];
    oracle.forEach((origin, g) -> {
      if (iatas.contains(origin)) {
        expected[0] += g[0];
        expected[1] += g[2];
      }
    });
    Stats.Series series = new Stats.Series();
    for (int rep = 0; rep < warmup + reps; rep++) {
      String name = "delays_by_state_b" + (rep + 1);
      sf.deleteTransform(name);
      Backfill b = backfill(sf, name, DELAYS_BY_STATE_SQL, List.of("state"));
      long[] got = sums(name);
      System.out.printf("[2-backfill] %s %s: %,d events in %.1f s = %,.0f events/s; flights %,d (expected %,d),"
          + " delayed %,d (expected %,d)%n", name, rep >= warmup ? "rep " + (rep - warmup + 1) : "warm-up", b.events,
          b.seconds, b.eventsPerSecond(), got[0], expected[0], got[1], expected[1]);
      sf.deleteTransform(name);
      if (b.events != events || got[0] != expected[0] || got[1] != expected[1]) {
        throw new IllegalStateException("view " + name + " applied " + b.events + " of " + events + " events, sums "
            + Arrays.toString(got) + ", expected " + Arrays.toString(expected));
      }
      if (rep >= warmup) {
        series.add("events/s", b.eventsPerSecond());
      }
    }
    Stats.Summary ours = series.summary("events/s");
    report.row(String.format("delays_by_state: %,d flights joined with %,d airports (two streams, clock order),"
        + " create -> LIVE", flights, events - flights), "events/s", true, ours,
        "delays_by_origin over the same flights in this run (one stream)", single, "ratio >= 0.7",
        ours.median() >= 0.7 * single.median());
  }

  /** The flights and delayed columns of every row of a view, summed (read over RESP with SCAN). */
  private long[] sums(String view) {
    RedisClient client = RedisClient.create(env.respUri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      long[] sums = new long[2];
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = c.sync().scan(cursor, ScanArgs.Builder.matches(view + ":*").limit(1_000));
        for (String key : page.getKeys()) {
          Map<String, String> row = c.sync().hgetall(key);
          sums[0] += Long.parseLong(row.getOrDefault("flights", "0"));
          sums[1] += Long.parseLong(row.getOrDefault("delayed", "0"));
        }
        cursor = page;
      } while (!cursor.isFinished());
      return sums;
    } finally {
      client.shutdown();
    }
  }

  /** Make sure the flights stream holds at least {@code wanted} events; append the missing rows of the file. */
  private StreamInfo load(Streamfold sf, long wanted) throws Exception {
    return FlightEvents.ensureLoaded(env, sf, FlightEvents.STREAM, wanted, report);
  }

  /** Read a topic from earliest until {@code target} messages; keep the payloads when {@code keep} is given. */
  private long readAll(PulsarRaw raw, String topic, long target, List<byte[]> keep) throws Exception {
    long n = 0;
    try (Reader<byte[]> reader = raw.client.newReader(Schema.BYTES).topic(topic).startMessageId(MessageId.earliest)
        .receiverQueueSize(env.getInt("reader-queue", 1000)).create()) {
      while (n < target) {
        Message<byte[]> m = reader.readNext(30, TimeUnit.SECONDS);
        if (m == null) {
          throw new IllegalStateException("raw reader: no message within 30 s after " + n + " of " + target);
        }
        byte[] data = m.getData();
        if (keep != null) {
          keep.add(data);
        }
        n++;
      }
    }
    return n;
  }

  /** Parse every payload with Jackson's streaming parser and fold it into origin -> {flights, delaySum, delayed}. */
  static Map<String, long[]> parseAndFold(List<byte[]> payloads, String[] origins, int[] delays) throws IOException {
    JsonFactory factory = new JsonFactory();
    Map<String, long[]> groups = new HashMap<>();
    for (int i = 0; i < payloads.size(); i++) {
      String origin = null;
      int delay = 0;
      try (JsonParser p = factory.createParser(payloads.get(i))) {
        p.nextToken();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          p.nextToken();
          if (field.equals("origin")) {
            origin = p.getText();
          } else if (field.equals("delay")) {
            delay = p.getIntValue();
          } else {
            p.skipChildren();
          }
        }
      }
      long[] g = groups.computeIfAbsent(origin, k -> new long[3]);
      g[0]++;
      g[1] += delay;
      if (delay >= 15) {
        g[2]++;
      }
      origins[i] = origin;
      delays[i] = delay;
    }
    return groups;
  }

  static Map<String, long[]> fold(String[] origins, int[] delays) {
    Map<String, long[]> groups = new HashMap<>();
    for (int i = 0; i < origins.length; i++) {
      long[] g = groups.computeIfAbsent(origins[i], k -> new long[3]);
      g[0]++;
      g[1] += delays[i];
      if (delays[i] >= 15) {
        g[2]++;
      }
    }
    return groups;
  }

  /** One backfill of ours. */
  record Backfill(long events, double seconds, double createSeconds, double firstCommitSeconds,
      long firstCommitEvents, Map<String, Double> peakRssMib, ViewStatus live) {
    double eventsPerSecond() {
      return events / seconds;
    }

    double eventsPerSecondAfterFirstCommit() {
      return firstCommitSeconds < 0 || seconds <= firstCommitSeconds ? Double.NaN
          : (events - firstCommitEvents) / (seconds - firstCommitSeconds);
    }
  }

  private Backfill backfill(Streamfold sf, String name, String sql, List<String> keys) throws Exception {
    try (RssSampler sampler = RssSampler.start(env.pids(), 100)) {
      long t0 = System.nanoTime();
      sf.createTransform(name, sql, keys);
      double createSeconds = (System.nanoTime() - t0) / 1e9;
      double[] firstCommit = {-1};
      long[] firstEvents = {0};
      ViewStatus live = sf.awaitLive(name, LIVE_TIMEOUT, 50, s -> {
        if (firstCommit[0] < 0 && s.getEventsApplied() > 0) {
          firstCommit[0] = (System.nanoTime() - t0) / 1e9;
          firstEvents[0] = s.getEventsApplied();
        }
      });
      double seconds = (System.nanoTime() - t0) / 1e9;
      return new Backfill(live.getEventsApplied(), seconds, createSeconds, firstCommit[0], firstEvents[0],
          sampler.peaksMib(), live);
    }
  }

  /** Compare every origin's flights and delayed counts, read over RESP from the query-service, with the floor's. */
  private int check(String view, Map<String, long[]> oracle) {
    return check(env.respUri(), view, oracle);
  }

  /**
   * Compare every origin's flights and delayed counts of a view (or virtual state) read over RESP with a group-by.
   *
   * @return the number of origins that differ (a missing row counts)
   */
  static int check(String respUri, String view, Map<String, long[]> oracle) {
    RedisClient client = RedisClient.create(respUri);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      int mismatches = 0;
      for (Map.Entry<String, long[]> e : oracle.entrySet()) {
        Map<String, String> row = c.sync().hgetall(view + ":" + e.getKey());
        if (!Long.toString(e.getValue()[0]).equals(row.get("flights"))
            || !Long.toString(e.getValue()[2]).equals(row.get("delayed"))) {
          mismatches++;
        }
      }
      return mismatches;
    } finally {
      client.shutdown();
    }
  }

  /** Views with more keys over the same events: rows, Redis bytes, checkpoint bytes, peak server RSS. */
  private void stateVsKeys(Streamfold sf, long target) throws Exception {
    record Case(String view, String keysText, String sql, List<String> keys) {}
    String aggregates = "COUNT(*) AS flights, AVG(CAST(delay AS DOUBLE)) AS avg_delay, "
        + "SUM(CASE WHEN delay >= 15 THEN 1 ELSE 0 END) AS delayed";
    List<Case> cases = List.of(
        new Case(VIEW, "origin", null, List.of("origin")),
        new Case("state_by_route", "origin, destination",
            "SELECT origin, destination, " + aggregates + " FROM flights GROUP BY origin, destination",
            List.of("origin", "destination")),
        new Case("state_by_origin_day", "origin, flight_day",
            "SELECT origin, flight_day, " + aggregates + " FROM (SELECT origin, delay, CAST(CAST(_event_time AS DATE) AS STRING)"
                + " AS flight_day FROM flights) GROUP BY origin, flight_day", List.of("origin", "flight_day")));
    List<Map<String, Object>> points = new ArrayList<>();
    RedisClient client = RedisClient.create("redis://127.0.0.1:" + env.redisPort());
    try (StatefulRedisConnection<String, String> redis = client.connect()) {
      for (Case c : cases) {
        Map<String, Double> peak = Map.of();
        double seconds = Double.NaN;
        if (c.sql != null) {
          Backfill b = backfill(sf, c.view, c.sql, c.keys);
          peak = b.peakRssMib;
          seconds = b.seconds;
        }
        ViewStatus status = sf.status(c.view).orElseThrow();
        String version = redis.sync().hget("sf:{" + env.tenant + ":" + c.view + "}:view", "served_version");
        long[] rowsAndBytes = redisRowBytes(redis, "sf:{" + env.tenant + ":" + c.view + ":" + version + "}:r:*");
        long checkpointBytes = checkpointBytes(c.view, version);
        Map<String, Object> point = new LinkedHashMap<>();
        point.put("view", c.view);
        point.put("key", c.keysText);
        point.put("rows", status.getRows());
        point.put("redisRowKeys", rowsAndBytes[0]);
        point.put("redisRowBytes", rowsAndBytes[1]);
        point.put("redisBytesPerRow", rowsAndBytes[0] == 0 ? 0 : rowsAndBytes[1] / rowsAndBytes[0]);
        point.put("checkpointBytes", checkpointBytes);
        point.put("peakServerRssMib", peak.get("server"));
        point.put("backfillSeconds", seconds);
        points.add(point);
        System.out.printf("[7-memory] %s (key %s): %,d rows, Redis %,d bytes (%,d per row), latest checkpoint %,d bytes,"
            + " peak server RSS %s MiB%n", c.view, c.keysText, status.getRows(), rowsAndBytes[1],
            rowsAndBytes[0] == 0 ? 0 : rowsAndBytes[1] / rowsAndBytes[0], checkpointBytes,
            peak.containsKey("server") ? String.format("%.0f", peak.get("server")) : "(measured above)");
        String what = String.format("state of a view keyed by %s (%,d rows)", c.keysText, status.getRows());
        memory.row(what, "Redis bytes of the rows", false, Stats.of(List.of((double) rowsAndBytes[1])), null, null, null, null);
        memory.row(what, "Flink checkpoint bytes", false, Stats.of(List.of((double) checkpointBytes)), null, null, null, null);
        if (peak.containsKey("server")) {
          memory.row(what, "peak server RSS during its backfill (MiB)", false, Stats.of(List.of(peak.get("server"))),
              null, null, null, null);
        }
      }
    } finally {
      client.shutdown();
    }
    memory.detail("stateVsKeys", points);
    for (Case c : cases) {
      if (c.sql != null) {
        sf.deleteTransform(c.view);
      }
    }
  }

  /**
   * Memory against the number of events folded (issue 9: "memory independent of the number of events"). A view is
   * backfilled over the whole stream once more; each time it has applied another quarter of the events, the
   * server gets a full GC ({@code jcmd GC.run}) and its live heap is read ({@code GC.heap_info}, the heap in use
   * right after that GC: the view job's keyed state, buffers and everything else still reachable), with its RSS.
   * The events applied are those of the view's last commit, so a point is taken after its quarter is committed.
   * Peak RSS alone cannot show this: the JVM keeps the heap it has grown to ({@code -Xms1g -Xmx3g}).
   */
  private void memoryVsEvents(Streamfold sf, long target) throws Exception {
    record Case(String view, String keysText, String sql, List<String> keys) {}
    List<Case> cases = List.of(
        new Case("mem_by_origin", "origin", String.format(FlightEvents.DELAYS_BY_ORIGIN_SQL_TEMPLATE, FlightEvents.STREAM),
            List.of("origin")),
        new Case("mem_by_route", "origin, destination", "SELECT origin, destination, COUNT(*) AS flights,"
            + " SUM(CASE WHEN delay >= 15 THEN 1 ELSE 0 END) AS delayed FROM " + FlightEvents.STREAM
            + " GROUP BY origin, destination", List.of("origin", "destination")));
    long pid = env.serverPid();
    List<Map<String, Object>> all = new ArrayList<>();
    for (Case c : cases) {
      sf.deleteTransform(c.view);
      List<double[]> points = new ArrayList<>(); // {events applied, live heap MiB, RSS MiB}
      int[] next = {1};
      sf.createTransform(c.view, c.sql, c.keys);
      ViewStatus live = sf.awaitLive(c.view, LIVE_TIMEOUT, 50, s -> {
        if (next[0] <= 3 && s.getEventsApplied() >= next[0] * target / 4) {
          points.add(new double[] {s.getEventsApplied(), liveHeapMib(pid), RssSampler.rssMib(pid)});
          next[0]++;
        }
      });
      points.add(new double[] {live.getEventsApplied(), liveHeapMib(pid), RssSampler.rssMib(pid)});
      for (double[] p : points) {
        System.out.printf("[7-memory] %s (key %s): after %,.0f events, server live heap %.0f MiB, RSS %.0f MiB%n",
            c.view, c.keysText, p[0], p[1], p[2]);
        Map<String, Object> point = new LinkedHashMap<>();
        point.put("view", c.view);
        point.put("key", c.keysText);
        point.put("eventsApplied", (long) p[0]);
        point.put("serverLiveHeapMib", p[1]);
        point.put("serverRssMib", p[2]);
        all.add(point);
      }
      double[] first = points.get(0);
      double[] last = points.get(points.size() - 1);
      String what = String.format("server live heap after a full GC, view keyed by %s (%,d rows), at %,.0f vs %,.0f"
          + " events", c.keysText, live.getRows(), last[0], first[0]);
      memory.row(what, "MiB", false, Stats.of(List.of(last[1])), String.format("the same at %,.0f events", first[0]),
          Stats.of(List.of(first[1])), "ratio <= 1.2 (independent of the number of events)", last[1] <= 1.2 * first[1]);
      sf.deleteTransform(c.view);
    }
    memory.detail("memoryVsEvents", all);
  }

  /** Run a full GC in a process ({@code jcmd GC.run}) and return its heap in use after it, in MiB (NaN if unknown). */
  static double liveHeapMib(long pid) {
    BenchEnv.jcmdOutput(pid, "GC.run");
    String info = BenchEnv.jcmdOutput(pid, "GC.heap_info");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("total \\d+K, used (\\d+)K").matcher(info);
    return m.find() ? Long.parseLong(m.group(1)) / 1024.0 : Double.NaN;
  }

  /** SCAN a pattern and sum MEMORY USAGE of the keys (pipelined). */
  static long[] redisRowBytes(StatefulRedisConnection<String, String> redis, String pattern) throws Exception {
    long keys = 0;
    long bytes = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = redis.sync().scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
      List<RedisFuture<Long>> sizes = new ArrayList<>();
      for (String key : page.getKeys()) {
        sizes.add(redis.async().memoryUsage(key));
      }
      for (RedisFuture<Long> f : sizes) {
        Long v = f.get(30, TimeUnit.SECONDS);
        bytes += v == null ? 0 : v;
        keys++;
      }
      cursor = page;
    } while (!cursor.isFinished());
    return new long[] {keys, bytes};
  }

  /**
   * Bytes of the newest completed retained checkpoint (a chk-N directory with its _metadata, which Flink writes
   * last) of a view version. Retried when Flink deletes an old checkpoint during the walk.
   */
  private long checkpointBytes(String view, String version) throws IOException {
    Path dir = env.dataDir.resolve("server/checkpoints").resolve(env.tenant).resolve(view).resolve("v" + version);
    for (int attempt = 0; ; attempt++) {
      try {
        if (!Files.isDirectory(dir)) {
          return 0;
        }
        Path newest;
        try (Stream<Path> files = Files.find(dir, 2, (p, a) -> a.isDirectory()
            && p.getFileName().toString().startsWith("chk-") && Files.exists(p.resolve("_metadata")))) {
          newest = files.max((a, b) -> Long.compare(a.toFile().lastModified(), b.toFile().lastModified())).orElse(null);
        }
        if (newest == null) {
          return 0;
        }
        try (Stream<Path> files = Files.walk(newest)) {
          return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
      } catch (IOException | java.io.UncheckedIOException e) {
        if (attempt >= 3) {
          throw e;
        }
      }
    }
  }

  private static String fmt(Map<String, Double> mib) {
    StringBuilder b = new StringBuilder();
    mib.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(' ').append(String.format("%.0f", v)));
    return b.toString();
  }
}
