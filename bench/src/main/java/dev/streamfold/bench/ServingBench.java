package dev.streamfold.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark 4, serving: {@code redis-benchmark} (Debian's redis-tools) with {@code -c 50} clients, without
 * and with pipelining ({@code -P 16}), of GET, HGETALL and HGET on one row of view
 * {@value BackfillBench#VIEW} through the query-service, against the same commands on the backing
 * redis-server: HGETALL/HGET on the row's own hash ({@code sf:{tenant:view:version}:r:<key>}), and GET on a
 * string key {@code bench:json:<view>:<key>} holding the JSON the query-service's GET returns (a view row
 * is a hash in Redis, where GET would answer WRONGTYPE). The sides alternate; the request count of each
 * case is sized from its warm-up run to take about {@code --seconds} (default 3) seconds.
 *
 * <p>Flags: {@code --view V} (default delays_by_origin), {@code --key K} (ATL), {@code --clients N} (50),
 * {@code --pipeline N} (16), {@code --warmup N} (1), {@code --warmup-s S} (5: each warm-up repetition runs each side at least this
 * many seconds), {@code --reps N} (3), {@code --redis-benchmark PATH}.
 */
final class ServingBench {
  private final BenchEnv env;
  private final Report report;

  ServingBench(BenchEnv env) {
    this.env = env;
    this.report = new Report("4-serving", env.resultsDir);
  }

  void run() throws Exception {
    String view = env.get("view", BackfillBench.VIEW);
    String key = env.get("key", "ATL");
    int clients = env.getInt("clients", 50);
    int pipeline = env.getInt("pipeline", 16);
    int warmup = env.getInt("warmup", 1);
    int reps = env.getInt("reps", 3);
    double seconds = Double.parseDouble(env.get("seconds", "3"));
    double warmupSeconds = Double.parseDouble(env.get("warmup-s", "5"));
    String rowKey = view + ":" + key;
    String backingRow;
    String jsonKey = "bench:json:" + rowKey;
    RedisClient qsClient = RedisClient.create(env.respUri());
    RedisClient redisClient = RedisClient.create("redis://127.0.0.1:" + env.redisPort());
    try (StatefulRedisConnection<String, String> qs = qsClient.connect();
        StatefulRedisConnection<String, String> redis = redisClient.connect()) {
      String json = qs.sync().get(rowKey);
      if (json == null) {
        throw new IllegalStateException("the query-service has no row " + rowKey + " (run the backfill benchmark first)");
      }
      String version = redis.sync().hget("sf:{" + env.tenant + ":" + view + "}:view", "served_version");
      backingRow = "sf:{" + env.tenant + ":" + view + ":" + version + "}:r:" + key;
      if (!redis.sync().hgetall(backingRow).equals(qs.sync().hgetall(rowKey))) {
        throw new IllegalStateException("backing row " + backingRow + " differs from " + rowKey + " as served");
      }
      redis.sync().set(jsonKey, json);
      report.detail("rows", Map.of("queryService", rowKey, "backingHash", backingRow, "backingJsonString", jsonKey,
          "jsonBytes", json.length()));
    } finally {
      qsClient.shutdown();
      redisClient.shutdown();
    }
    report.detail("parameters", Map.of("clients", clients, "pipeline", pipeline, "warmup", warmup, "warmupSeconds", warmupSeconds,
        "reps", reps, "secondsPerRun", seconds));

    List<String[][]> commands = List.of(
        new String[][] {{"GET", rowKey}, {"GET", jsonKey}},
        new String[][] {{"HGETALL", rowKey}, {"HGETALL", backingRow}},
        new String[][] {{"HGET", rowKey, "flights"}, {"HGET", backingRow, "flights"}});
    List<Map<String, Object>> runs = new ArrayList<>();
    for (int p : new int[] {1, pipeline}) {
      for (String[][] command : commands) {
        Stats.Series ours = new Stats.Series();
        Stats.Series base = new Stats.Series();
        long[] requests = {0, 0};
        String tag = command[0][0] + (p > 1 ? " -P " + p : "");
        for (int rep = 0; rep < warmup + reps; rep++) {
          for (int side = 0; side < 2; side++) {
            boolean oursNow = (side == 0) == (rep % 2 == 0);
            int port = oursNow ? env.respPort() : env.redisPort();
            int idx = oursNow ? 0 : 1;
            long n = requests[idx] == 0 ? (p == 1 ? 20_000 : 100_000) : requests[idx];
            long started = System.nanoTime();
            long[] cpu0 = cpuNanos();
            Result r = redisBenchmark(port, clients, p, n, command[idx]);
            long[] cpu1 = cpuNanos();
            if (requests[idx] == 0) {
              requests[idx] = Math.max(10_000, Math.min(5_000_000, (long) (r.rps * seconds)));
            }
            if (rep < warmup) {
              // Warm up for at least --warmup-s seconds per side and command: 20,000 requests were about 1 s, too
              // short for the server's JIT (the first measured GET ran at 27,000 req/s, the next ones at 38,500).
              while ((System.nanoTime() - started) / 1e9 < warmupSeconds) {
                r = redisBenchmark(port, clients, p, requests[idx], command[idx]);
              }
            }
            System.out.printf("[4-serving] %s %s %s: %,.0f req/s, p50 %.3f ms, p99 %.3f ms (%,d requests)%n", tag,
                oursNow ? "query-service" : "redis-server", rep < warmup ? "warm-up" : "rep " + (rep - warmup + 1),
                r.rps, r.p50Ms, r.p99Ms, n);
            if (rep >= warmup) {
              Stats.Series s = oursNow ? ours : base;
              s.add("rps", r.rps);
              s.add("p50", r.p50Ms);
              s.add("p99", r.p99Ms);
              addCpu(s, cpu0, cpu1, n, oursNow);
              Map<String, Object> run = new LinkedHashMap<>();
              run.put("command", tag);
              run.put("side", oursNow ? "query-service" : "redis-server");
              run.put("requests", n);
              run.put("rps", r.rps);
              run.put("p50Ms", r.p50Ms);
              run.put("p99Ms", r.p99Ms);
              runs.add(run);
            }
          }
        }
        if (command[0][0].equals("HGETALL") && p == 1 && env.jfrDir != null) {
          // With --jfr, one more run of ours, recorded and not counted: until session 10 the measured runs of this
          // case were recorded, and the recording's cost was in its figures.
          env.jfrStart("serving-hgetall");
          Result r = redisBenchmark(env.respPort(), clients, p, requests[0], command[0]);
          env.jfrStop("serving-hgetall");
          System.out.printf("[4-serving] %s query-service profiled (not counted): %,.0f req/s, p50 %.3f ms, p99 %.3f ms%n",
              tag, r.rps, r.p50Ms, r.p99Ms);
        }
        String caseName = String.format("%s on a view row, %d clients%s", command[0][0], clients,
            p > 1 ? ", pipeline " + p : ", no pipelining");
        String baseName = "backing redis-server, same command";
        boolean rpsOk = ours.summary("rps").median() >= 0.7 * base.summary("rps").median();
        report.row(caseName, "requests/s", true, ours.summary("rps"), baseName, base.summary("rps"), "ratio >= 0.7", rpsOk);
        report.row(caseName, "latency p50 (ms)", false, ours.summary("p50"), baseName, base.summary("p50"), null, null);
        report.row(caseName, "latency p99 (ms)", false, ours.summary("p99"), baseName, base.summary("p99"),
            p == 1 ? "p99 <= 2 ms" : null, p == 1 ? ours.summary("p99").median() <= 2.0 : null);
        if (ours.has("cpu total") && base.has("cpu total")) {
          // Every process's CPU per request, each side (as in the ingest benchmark): on 2 cores shared by the
          // client, the query-service and redis-server, a side that needs more CPU per request cannot keep up.
          report.row(caseName, "query-service CPU per request (us, user + system)", false, ours.summary("cpu server"),
              null, null, null, null);
          report.row(caseName, "redis-server CPU per request (us)", false, ours.summary("cpu redis"), baseName,
              base.summary("cpu redis"), null, null);
          report.row(caseName, "client CPU per request (us, redis-benchmark)", false, ours.summary("cpu client"),
              baseName, base.summary("cpu client"), null, null);
          report.row(caseName, "CPU per request, all processes (us)", false, ours.summary("cpu total"), baseName,
              base.summary("cpu total"), null, null);
        }
      }
    }
    report.detail("runs", runs);
    report.write();
  }

  /**
   * CPU time used so far by the query-service's server, the backing redis-server, and this JVM's waited-for
   * children (the redis-benchmark runs), ns; an entry is -1 when unknown.
   */
  private long[] cpuNanos() {
    return new long[] {ProcCpu.process(Long.toString(env.serverPid())),
        ProcCpu.process(Long.toString(env.pids().get("redis"))), ProcCpu.waitedForChildren()};
  }

  /**
   * Record per-request CPU (us) of one run: "cpu server" (ours only), "cpu redis", "cpu client" and "cpu total".
   * The direct side does not use the query-service: its idle CPU then is not Redis's cost.
   */
  private static void addCpu(Stats.Series s, long[] before, long[] after, long requests, boolean ours) {
    for (int i = 0; i < 3; i++) {
      if (before[i] < 0 || after[i] < 0) {
        return;
      }
    }
    double server = (after[0] - before[0]) / 1e3 / requests;
    double redis = (after[1] - before[1]) / 1e3 / requests;
    double client = (after[2] - before[2]) / 1e3 / requests;
    if (ours) {
      s.add("cpu server", server);
    }
    s.add("cpu redis", redis);
    s.add("cpu client", client);
    s.add("cpu total", redis + client + (ours ? server : 0));
  }

  record Result(double rps, double p50Ms, double p99Ms) {}

  private Result redisBenchmark(int port, int clients, int pipeline, long requests, String[] command)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(env.get("redis-benchmark", "redis-benchmark"), "-h", "127.0.0.1",
        "-p", Integer.toString(port), "-c", Integer.toString(clients), "-n", Long.toString(requests),
        "-P", Integer.toString(pipeline), "--csv"));
    if (port == env.respPort()) {
      cmd.addAll(List.of("--user", env.tenant, "-a", env.adminToken()));
    }
    cmd.addAll(List.of(command));
    Process process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(process.getInputStream().readAllBytes());
    if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
      throw new IllegalStateException("redis-benchmark failed: " + String.join(" ", cmd) + "\n" + out);
    }
    // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
    for (String line : out.split("\n")) {
      if (line.startsWith("\"test\"") || line.isBlank()) {
        continue;
      }
      String[] f = line.replace("\"", "").split(",");
      int n = f.length;
      return new Result(Double.parseDouble(f[n - 7]), Double.parseDouble(f[n - 4]), Double.parseDouble(f[n - 2]));
    }
    throw new IllegalStateException("no result line from: " + String.join(" ", cmd) + "\n" + out);
  }
}
