package dev.streamfold.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.api.v1.TrainingSetDone;
import dev.streamfold.api.v1.TrainingSetProgress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Benchmark 6: training sets. Builds a point-in-time training set over every event of the flights stream
 * ({@code --events}, default 3,000,000) with {@code ReplayService.ExportTrainingSet}: entity {@code origin},
 * label {@code delay >= 15}, two features of {@value BackfillBench#VIEW} ({@code avg_delay} and
 * {@code flights}), written as Parquet by the server. Timed from the call until its {@code done} message; the
 * rows are not streamed back (the server writes the file; reading it back is not the build). Figures: rows/s
 * (one row per label event), the server's own build time, peak RSS of the server meanwhile (VmHWM after a
 * reset), and the output's size. For scale, the backfill rate of the same view in the same run (from
 * {@code 2-backfill.json}) is shown next to it: the build folds the view's SQL over the same events and then
 * joins and writes a row per event.
 *
 * <p>Flags: {@code --events N} (3,000,000), {@code --warmup N} (0), {@code --reps N} (2).
 */
final class TrainingSetBench {
  static final String NAME = "bench_delays";
  static final List<String> FEATURES = List.of(BackfillBench.VIEW + ".avg_delay", BackfillBench.VIEW + ".flights");

  private final BenchEnv env;
  private final Report report;

  TrainingSetBench(BenchEnv env) {
    this.env = env;
    this.report = new Report("6-training-set", env.resultsDir);
  }

  void run() throws Exception {
    long events = env.getLong("events", 3_000_000);
    int warmup = env.getInt("warmup", 0);
    int reps = env.getInt("reps", 2);
    try (Streamfold sf = new Streamfold(env.grpcTarget(), env.tenant, env.adminToken())) {
      StreamInfo flights = FlightEvents.ensureLoaded(env, sf, FlightEvents.STREAM, events, report);
      if (sf.status(BackfillBench.VIEW).isEmpty()) {
        sf.createTransform(BackfillBench.VIEW, String.format(FlightEvents.DELAYS_BY_ORIGIN_SQL_TEMPLATE,
            FlightEvents.STREAM), List.of("origin"));
      }
      sf.awaitLive(BackfillBench.VIEW, BackfillBench.LIVE_TIMEOUT, 200, s -> {});
      ExportTrainingSetRequest request = ExportTrainingSetRequest.newBuilder().setTenant(env.tenant).setName(NAME)
          .setLabelStream(FlightEvents.STREAM).setEntity("origin").setLabel("delay >= 15").addAllFeatures(FEATURES)
          .setTo("latest").setOut(NAME + ".parquet").build();
      report.detail("request", Map.of("labelStream", FlightEvents.STREAM, "entity", "origin", "label", "delay >= 15",
          "features", FEATURES, "out", NAME + ".parquet (Parquet, under the server's data directory)"));
      Stats.Series series = new Stats.Series();
      List<Map<String, Object>> runs = new ArrayList<>();
      // With --jfr, one more repetition after the measured ones is recorded and not counted (as in the replay benchmark).
      int profiled = env.jfrDir == null ? 0 : 1;
      for (int rep = 0; rep < warmup + reps + profiled; rep++) {
        boolean profile = rep == warmup + reps;
        boolean measured = rep >= warmup && !profile;
        if (profile) {
          env.jfrStart("training-set");
        }
        TrainingSetExports.Export export = TrainingSetExports.run(sf, request, env.pids());
        TrainingSetDone done = export.done();
        TrainingSetProgress last = export.last();
        Map<String, Double> peak = export.peakMib();
        double seconds = export.seconds();
        // Progress timeline (~250 ms progress messages): first events read, all events read.
        double firstRead = export.firstReadSeconds();
        double allRead = export.allReadSeconds();
        if (profile) {
          env.jfrStop("training-set");
        }
        if (done == null) {
          throw new IllegalStateException("training set " + NAME + " ended without a done message; last progress: " + last);
        }
        long outputBytes = Files.exists(Path.of(done.getOutput())) ? Files.size(Path.of(done.getOutput())) : -1;
        double rowsPerSecond = done.getRows() / seconds;
        System.out.printf("[6-training-set] %s: %,d rows (%,d events read) in %.1f s = %,.0f rows/s (server: %.1f s,"
            + " %,.0f rows/s); output %s, %,d bytes; peak RSS MiB server %.0f; progress: first events read at %.1f s,"
            + " all at %.1f s%n", profile ? "profiled (not counted)" : measured ? "rep " + (rep - warmup + 1)
            : "warm-up", done.getRows(), done.getEventsRead(), seconds, rowsPerSecond, done.getSeconds(),
            done.getRowsPerSecond(), done.getOutput(), outputBytes, peak.getOrDefault("server", 0.0), firstRead, allRead);
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("measured", measured);
        run.put("rows", done.getRows());
        run.put("eventsRead", done.getEventsRead());
        run.put("seconds", seconds);
        run.put("firstEventsReadSeconds", firstRead);
        run.put("allEventsReadSeconds", allRead);
        run.put("serverSeconds", done.getSeconds());
        run.put("serverRowsPerSecond", done.getRowsPerSecond());
        run.put("output", done.getOutput());
        run.put("outputBytes", outputBytes);
        run.put("stopMessageId", done.getStopMessageId());
        run.put("peakRssMib", peak);
        runs.add(run);
        if (done.getRows() != flights.getEventCount()) {
          throw new IllegalStateException("training set " + NAME + " has " + done.getRows() + " rows; the label stream holds "
              + flights.getEventCount() + " events (one row per label event expected)");
        }
        if (measured) {
          series.add("rows/s", rowsPerSecond);
          series.add("seconds", seconds);
          series.add("server seconds", done.getSeconds());
          series.add("peak server RSS MiB", peak.getOrDefault("server", 0.0));
          series.add("output bytes", outputBytes);
        }
      }
      report.detail("runs", runs);
      String what = String.format("training set over %,d flights, 2 features of %s, label delay >= 15, Parquet;"
          + " call -> done", flights.getEventCount(), BackfillBench.VIEW);
      Stats.Summary backfill = backfillRate();
      report.row(what, "rows/s", true, series.summary("rows/s"), backfill == null ? null
          : "backfill of the feature view, events/s (benchmark 2 of this run)", backfill, null, null);
      report.row(what, "seconds", false, series.summary("seconds"), null, null, null, null);
      report.row(what, "build seconds reported by the server", false, series.summary("server seconds"), null, null, null,
          null);
      report.row(what, "peak server RSS (MiB)", false, series.summary("peak server RSS MiB"), null, null, null, null);
      report.row(what, "output bytes", false, series.summary("output bytes"), null, null, null, null);
      report.write();
    }
  }

  private Stats.Summary backfillRate() throws Exception {
    Path file = env.resultsDir.resolve("2-backfill.json");
    if (!Files.exists(file)) {
      return null;
    }
    for (JsonNode row : Report.JSON.readTree(file.toFile()).path("rows")) {
      if (row.path("figure").asText().equals("events/s") && row.path("case").asText().endsWith("create -> LIVE")) {
        List<Double> values = new ArrayList<>();
        row.path("ours").path("repetitions").forEach(v -> values.add(v.asDouble()));
        return Stats.of(values);
      }
    }
    return null;
  }
}
