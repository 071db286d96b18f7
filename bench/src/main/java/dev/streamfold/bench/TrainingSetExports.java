package dev.streamfold.bench;

import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ExportTrainingSetResponse;
import dev.streamfold.api.v1.TrainingSetDone;
import dev.streamfold.api.v1.TrainingSetProgress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One training-set build over {@code ExportTrainingSet}, timed from the call until its {@code done}. */
final class TrainingSetExports {
  /** The longest a build may take. */
  static final Duration TIMEOUT = Duration.ofMinutes(30);

  private TrainingSetExports() {}

  /**
   * What a build gave.
   *
   * @param done its done message, or null when the stream ended without one
   * @param last its last progress message, or null
   * @param seconds from the call until the stream ended
   * @param peakMib peak RSS of each process sampled meanwhile, MiB
   * @param firstReadSeconds when a progress message first reported events read, or -1
   * @param allReadSeconds when one first reported every event to read as read, or -1
   */
  record Export(TrainingSetDone done, TrainingSetProgress last, double seconds, Map<String, Double> peakMib,
      double firstReadSeconds, double allReadSeconds) {}

  /** The same training set computed by DuckDB from the raw files, checked row by row against ours. */
  interface Baseline {
    /**
     * Compute it and compare.
     *
     * @param ours our output file
     * @return DuckDB's seconds
     * @throws IllegalStateException if a row differs
     */
    double run(Path ours) throws Exception;
  }

  /**
   * A baseline that has DuckDB write the same training set beside ours and counts the rows that differ.
   *
   * @param duckdb writes DuckDB's file ({@code <ours' name>-duckdb.parquet} beside ours) and returns its seconds
   * @param differences counts the rows of our file and DuckDB's that differ
   * @return the baseline, failing when a row differs
   */
  static Baseline duckdb(FileBaseline duckdb, Comparison differences) {
    return ours -> {
      Path duck = ours.resolveSibling(ours.getFileName().toString().replace(".parquet", "") + "-duckdb.parquet");
      double seconds = duckdb.write(ours, duck);
      long different = differences.count(ours, duck);
      if (different != 0) {
        throw new IllegalStateException(different + " rows of " + ours + " differ from DuckDB's " + duck);
      }
      return seconds;
    };
  }

  /** DuckDB writing its training set to a file. */
  interface FileBaseline {
    /**
     * @param ours our output
     * @param duck the file to write
     * @return DuckDB's seconds
     */
    double write(Path ours, Path duck) throws Exception;
  }

  /** The rows of two training-set files that differ. */
  interface Comparison {
    /**
     * @param ours our output
     * @param duck DuckDB's
     * @return the rows that differ
     */
    long count(Path ours, Path duck) throws Exception;
  }

  /**
   * A measured build: ours and DuckDB's.
   *
   * @param export our build
   * @param duckdbSeconds DuckDB's seconds for the same rows
   */
  record Measured(Export export, double duckdbSeconds) {}

  /**
   * Run {@code reps} builds, each checked against the baseline (with a JFR profile, one more build recorded and not
   * counted), and print one line per build.
   *
   * @param env the benchmark's environment (JFR, pids)
   * @param sf the client
   * @param request the build
   * @param rows the rows each build must write
   * @param reps the builds measured
   * @param name the benchmark's name (log prefix, profile name)
   * @param baseline DuckDB's run and the comparison
   * @return the measured builds
   * @throws IllegalStateException if a build ends without its rows, or a row differs from DuckDB's
   */
  static List<Measured> measure(BenchEnv env, Streamfold sf, ExportTrainingSetRequest request, long rows, int reps,
      String name, Baseline baseline) throws Exception {
    List<Measured> measured = new ArrayList<>();
    for (int rep = 0; rep < reps + (env.jfrDir == null ? 0 : 1); rep++) {
      boolean profile = rep == reps;
      if (profile) {
        env.jfrStart(name);
      }
      Export export = run(sf, request, env.pids());
      if (profile) {
        env.jfrStop(name);
        System.out.printf("[%s] profiled (not counted): %.1f s%n", name, export.seconds());
        continue;
      }
      TrainingSetDone done = export.done();
      if (done == null || done.getRows() != rows) {
        throw new IllegalStateException("training set " + request.getName() + ": " + (done == null ? "no done message"
            : done.getRows() + " rows, not " + rows));
      }
      double duckSeconds = baseline.run(Path.of(done.getOutput()));
      System.out.printf("[%s] rep %d: %,d rows in %.1f s = %,.0f rows/s; DuckDB %.1f s = %,.0f rows/s, every row equal;"
          + " peak RSS MiB %s%n", name, rep + 1, done.getRows(), export.seconds(), done.getRows() / export.seconds(),
          duckSeconds, done.getRows() / duckSeconds, export.peakMib());
      measured.add(new Measured(export, duckSeconds));
    }
    return measured;
  }

  /**
   * Run one build and follow it to its end, sampling the RSS of {@code pids} every 100 ms.
   *
   * @param sf the client
   * @param request the build
   * @param pids the processes whose peak RSS to report
   * @return what it gave
   */
  static Export run(Streamfold sf, ExportTrainingSetRequest request, Map<String, Long> pids) throws Exception {
    TrainingSetDone done = null;
    TrainingSetProgress last = null;
    double firstRead = -1;
    double allRead = -1;
    try (RssSampler sampler = RssSampler.start(pids, 100)) {
      long t0 = System.nanoTime();
      Iterator<ExportTrainingSetResponse> responses = sf.replay()
          .withDeadlineAfter(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).exportTrainingSet(request);
      while (responses.hasNext()) {
        ExportTrainingSetResponse r = responses.next();
        if (r.hasProgress()) {
          last = r.getProgress();
          if (firstRead < 0 && last.getEventsRead() > 0) {
            firstRead = (System.nanoTime() - t0) / 1e9;
          }
          if (allRead < 0 && last.getTargetEvents() > 0 && last.getEventsRead() >= last.getTargetEvents()) {
            allRead = (System.nanoTime() - t0) / 1e9;
          }
        } else if (r.hasDone()) {
          done = r.getDone();
        }
      }
      return new Export(done, last, (System.nanoTime() - t0) / 1e9, sampler.peaksMib(), firstRead, allRead);
    }
  }
}
