package dev.streamfold.bench;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.Event;
import io.grpc.stub.StreamObserver;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Benchmark 3, freshness: at a steady ingest rate, the delay from the acknowledgement of an Append to the
 * change being visible through {@code HGET} on the query-service. A sender appends every
 * {@value #TICK_MS} ms a batch of rate/100 events (unary {@code Append}, asynchronous, so a slow
 * acknowledgement never delays the schedule) to stream {@value #STREAM}, keys k0..k99; every
 * {@value #PROBE_EVERY_TICKS}th batch also carries a probe event (key {@code probe}, increasing
 * {@code seq}). View {@value #VIEW} keeps {@code MAX(seq)} per key; a poller reads
 * {@code HGET fresh_view:probe seq} every {@code --poll-ms} (default 2) and stamps every probe up to the
 * value it sees. Freshness of a probe = visible - acknowledged (0 when seen first). Per window of
 * {@code --window-s} seconds (default 10; {@code --windows} 3 after {@code --warmup-s} 5 s): p50, p99
 * and max; reported as median and range over the windows. Runs for every rate of {@code --rates}
 * (default 2000,20000 events/s) and every checkpoint interval of {@code --intervals} (default 1000,200 ms;
 * the server is restarted with {@code --checkpoint-interval-ms} when needed, see {@link ServerControl}).
 *
 * <p>A view over two streams too (issue 26): {@value #TWO_STREAM_VIEW} keeps the same columns over the
 * {@code UNION ALL} of {@value #STREAM_A} and {@value #STREAM_B}, and the sender's batches (probes included)
 * alternate between them; it commits only at ticks of the tenant clock, so its bound adds the clock's tick
 * interval: checkpoint interval + tick interval + 250 ms. Measured at every rate of {@code --two-stream-rates}
 * (default 2000 events/s; empty skips it), after the single-stream view, whose streams it does not read.
 */
final class FreshnessBench {
  static final String STREAM = "bench_fresh";
  static final String VIEW = "fresh_view";
  static final String SQL = "SELECT k, MAX(seq) AS seq, COUNT(*) AS n FROM " + STREAM + " GROUP BY k";
  static final String STREAM_A = "bench_fresh_a";
  static final String STREAM_B = "bench_fresh_b";
  static final String TWO_STREAM_VIEW = "fresh_two";
  static final String TWO_STREAM_SQL = "SELECT k, MAX(seq) AS seq, COUNT(*) AS n FROM (SELECT k, seq FROM " + STREAM_A
      + " UNION ALL SELECT k, seq FROM " + STREAM_B + ") GROUP BY k";
  static final long TICK_MS = 10;
  static final int PROBE_EVERY_TICKS = 5;
  static final int KEYS = 100;

  private final BenchEnv env;
  private final Report report;

  FreshnessBench(BenchEnv env) {
    this.env = env;
    this.report = new Report("3-freshness", env.resultsDir);
  }

  void run() throws Exception {
    List<Long> intervals = new ArrayList<>();
    for (String s : env.get("intervals", "1000,200").split(",")) {
      intervals.add(Long.parseLong(s.trim()));
    }
    List<Integer> rates = new ArrayList<>();
    for (String s : env.get("rates", "2000,20000").split(",")) {
      rates.add(Integer.parseInt(s.trim()));
    }
    List<Integer> twoStreamRates = new ArrayList<>();
    for (String s : env.get("two-stream-rates", "2000").split(",")) {
      if (!s.isBlank()) {
        twoStreamRates.add(Integer.parseInt(s.trim()));
      }
    }
    int warmupS = env.getInt("warmup-s", 5);
    int windowS = env.getInt("window-s", 10);
    int windows = env.getInt("windows", 3);
    long pollMs = env.getLong("poll-ms", 2);
    ServerControl server = new ServerControl(env);
    long clockTickMs = Long.parseLong(server.current(ServerControl.CLOCK_FLAG).orElse("100"));
    report.detail("parameters", Map.of("rates", rates, "intervalsMs", intervals, "warmupS", warmupS, "windowS", windowS,
        "windows", windows, "pollMs", pollMs, "tickMs", TICK_MS, "probeEveryMs", TICK_MS * PROBE_EVERY_TICKS,
        "twoStreamRates", twoStreamRates, "clockTickMs", clockTickMs));
    long original = server.currentIntervalMs();
    long current = original;
    List<Map<String, Object>> runs = new ArrayList<>();
    try {
      for (long interval : intervals) {
        if (interval != current) {
          server.restartWith(interval);
          current = interval;
        }
        try (Streamfold sf = new Streamfold(env.grpcTarget(), env.tenant, env.adminToken())) {
          ensureLive(sf, VIEW, SQL, List.of(STREAM));
          for (int rate : rates) {
            env.jfrStart("freshness-" + rate + "-" + interval);
            runs.add(measure(sf, VIEW, List.of(STREAM), 0, rate, interval, warmupS, windowS, windows, pollMs));
            env.jfrStop("freshness-" + rate + "-" + interval);
          }
          if (!twoStreamRates.isEmpty()) {
            ensureLive(sf, TWO_STREAM_VIEW, TWO_STREAM_SQL, List.of(STREAM_A, STREAM_B));
          }
          for (int rate : twoStreamRates) {
            env.jfrStart("freshness-two-streams-" + rate + "-" + interval);
            runs.add(measure(sf, TWO_STREAM_VIEW, List.of(STREAM_A, STREAM_B), clockTickMs, rate, interval, warmupS,
                windowS, windows, pollMs));
            env.jfrStop("freshness-two-streams-" + rate + "-" + interval);
          }
        }
      }
    } finally {
      if (current != original) {
        server.restartWith(original);
      }
    }
    report.detail("runs", runs);
    report.write();
  }

  /** Create the streams (k, seq) and the view keyed by k where missing, and wait until the view is LIVE. */
  private static void ensureLive(Streamfold sf, String view, String sql, List<String> streams) throws Exception {
    for (String stream : streams) {
      sf.ensureStream(stream, List.of("k:STRING", "seq:BIGINT"));
    }
    if (sf.status(view).isEmpty()) {
      sf.createTransform(view, sql, List.of("k"));
    }
    sf.awaitLive(view, Duration.ofMinutes(10), 200, s -> {});
  }

  /**
   * Measure the freshness of one view.
   *
   * @param view the view, keeping {@code MAX(seq)} per key {@code k}
   * @param streams the streams it reads; the sender's batches go to each in turn
   * @param clockTickMs the tenant clock's tick interval when the view reads several streams (it commits at ticks),
   *     else 0; added to the bound
   */
  private Map<String, Object> measure(Streamfold sf, String view, List<String> streams, long clockTickMs, int rate,
      long intervalMs, int warmupS, int windowS, int windows, long pollMs) throws Exception {
    int perTick = (int) Math.max(1, rate * TICK_MS / 1000);
    long probeBase = System.currentTimeMillis() * 1000; // probes increase across runs and restarts
    Map<Long, Long> ackNanos = new ConcurrentHashMap<>();
    Map<Long, Long> visibleNanos = new ConcurrentHashMap<>();
    AtomicLong probes = new AtomicLong();
    AtomicLong acked = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Stats.Latencies appendLatency = new Stats.Latencies();
    long[] seq = {0};
    long start = System.nanoTime();
    long measureFrom = start + TimeUnit.SECONDS.toNanos(warmupS);
    long end = measureFrom + TimeUnit.SECONDS.toNanos((long) windowS * windows);
    ScheduledExecutorService sender = Executors.newSingleThreadScheduledExecutor();
    long[] tick = {0};
    sender.scheduleAtFixedRate(() -> {
      String stream = streams.get((int) (tick[0] % streams.size()));
      AppendRequest.Builder b = AppendRequest.newBuilder().setTenant(env.tenant).setStream(stream);
      Long probe = null;
      if (tick[0]++ % PROBE_EVERY_TICKS == 0) {
        probe = probeBase + probes.incrementAndGet();
        b.addEvents(Event.newBuilder().setKey("probe").setPayloadJson("{\"k\":\"probe\",\"seq\":" + probe + "}"));
      }
      for (int i = probe == null ? 0 : 1; i < perTick; i++) {
        long s = seq[0]++;
        String k = "k" + (s % KEYS);
        b.addEvents(Event.newBuilder().setKey(k).setPayloadJson("{\"k\":\"" + k + "\",\"seq\":" + s + "}"));
      }
      Long thisProbe = probe;
      long t0 = System.nanoTime();
      sf.ingestAsync().withDeadlineAfter(30, TimeUnit.SECONDS).append(b.build(), new StreamObserver<>() {
        @Override
        public void onNext(AppendResponse r) {
          long now = System.nanoTime();
          if (thisProbe != null) {
            ackNanos.put(thisProbe, now);
          }
          acked.addAndGet(r.getMessageIdsCount());
          synchronized (appendLatency) {
            appendLatency.add(now - t0);
          }
        }

        @Override
        public void onError(Throwable t) {
          failure.compareAndSet(null, t);
        }

        @Override
        public void onCompleted() {}
      });
    }, 0, TICK_MS, TimeUnit.MILLISECONDS);

    RedisClient client = RedisClient.create(env.respUri());
    long ackedAtMeasureStart = -1;
    long ackedAtEnd = -1;
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      long seen = 0;
      long drainDeadline = Long.MAX_VALUE;
      while (true) {
        long now = System.nanoTime();
        if (ackedAtMeasureStart < 0 && now >= measureFrom) {
          ackedAtMeasureStart = acked.get();
        }
        if (now >= end && drainDeadline == Long.MAX_VALUE) {
          sender.shutdown();
          sender.awaitTermination(10, TimeUnit.SECONDS);
          ackedAtEnd = acked.get();
          drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        }
        if (failure.get() != null) {
          throw new IllegalStateException("Append failed: " + failure.get(), failure.get());
        }
        String v = c.sync().hget(view + ":probe", "seq");
        long t = System.nanoTime();
        long value = v == null ? 0 : (long) Double.parseDouble(v);
        if (value > seen) {
          for (long p = Math.max(seen + 1, probeBase + 1); p <= value; p++) {
            visibleNanos.putIfAbsent(p, t);
          }
          seen = value;
        }
        if (drainDeadline != Long.MAX_VALUE && (seen >= probeBase + probes.get() || t > drainDeadline)) {
          break;
        }
        Thread.sleep(pollMs);
      }
    } finally {
      sender.shutdownNow();
      client.shutdown();
    }
    double actualRate = (ackedAtEnd - ackedAtMeasureStart) * 1e9 / (end - measureFrom);

    List<Stats.Latencies> perWindow = new ArrayList<>();
    for (int w = 0; w < windows; w++) {
      perWindow.add(new Stats.Latencies());
    }
    Stats.Latencies pooled = new Stats.Latencies();
    long lost = 0;
    for (Map.Entry<Long, Long> e : ackNanos.entrySet()) {
      long ack = e.getValue();
      if (ack < measureFrom || ack >= end) {
        continue;
      }
      Long visible = visibleNanos.get(e.getKey());
      if (visible == null) {
        lost++;
        continue;
      }
      long freshness = Math.max(0, visible - ack);
      perWindow.get((int) ((ack - measureFrom) / TimeUnit.SECONDS.toNanos(windowS))).add(freshness);
      pooled.add(freshness);
    }
    if (lost > 0) {
      throw new IllegalStateException(lost + " probes were acknowledged but never became visible within 30 s");
    }
    Stats.Series s = new Stats.Series();
    for (Stats.Latencies w : perWindow) {
      s.add("p50", w.percentileMs(50));
      s.add("p99", w.percentileMs(99));
      s.add("max", w.maxMs());
    }
    String caseName = String.format("%s%,d events/s, checkpoint interval %d ms", streams.size() > 1
        ? "view over " + streams.size() + " streams, " : "", rate, intervalMs);
    double limit = intervalMs + clockTickMs + 250;
    report.row(caseName, "append-ack -> visible p50 (ms)", false, s.summary("p50"), null, null, null, null);
    report.row(caseName, "append-ack -> visible p99 (ms)", false, s.summary("p99"), null, null,
        String.format("p99 <= %.0f ms", limit), s.summary("p99").median() <= limit);
    report.row(caseName, "append-ack -> visible max (ms)", false, s.summary("max"), null, null, null, null);
    System.out.printf("[3-freshness] %s: achieved %,.0f events/s, %d probes, pooled p50 %.0f p99 %.0f max %.0f ms;"
        + " Append ack p50 %.1f ms p99 %.1f ms%n", caseName, actualRate, pooled.count(), pooled.percentileMs(50),
        pooled.percentileMs(99), pooled.maxMs(), appendLatency.percentileMs(50), appendLatency.percentileMs(99));
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("view", view);
    run.put("streams", streams);
    run.put("rateEventsPerS", rate);
    run.put("achievedEventsPerS", actualRate);
    run.put("checkpointIntervalMs", intervalMs);
    run.put("probes", pooled.count());
    run.put("pooledP50Ms", pooled.percentileMs(50));
    run.put("pooledP99Ms", pooled.percentileMs(99));
    run.put("pooledMaxMs", pooled.maxMs());
    run.put("appendAckP50Ms", appendLatency.percentileMs(50));
    run.put("appendAckP99Ms", appendLatency.percentileMs(99));
    return run;
  }
}
