package dev.streamfold.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The results of one benchmark program: rows of (case, figure, ours, baseline, ratio, target), printed as
 * they come and written as JSON to {@code <results dir>/<benchmark>.json}; {@link Summary} merges those
 * files into one results file and a table.
 */
final class Report {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final String benchmark;
  private final Path resultsDir;
  private final List<Map<String, Object>> rows = new ArrayList<>();
  private final Map<String, Object> details = new LinkedHashMap<>();

  Report(String benchmark, Path resultsDir) {
    this.benchmark = benchmark;
    this.resultsDir = resultsDir;
  }

  String benchmark() {
    return benchmark;
  }

  /**
   * Add a row and print it.
   *
   * @param caseName what was measured, e.g. "AppendStream, flights"
   * @param figure the figure and its unit, e.g. "events/s"
   * @param higherIsBetter true for throughputs, false for latencies and sizes
   * @param ours our repetitions
   * @param baselineName the engine underneath, e.g. "raw Pulsar producer"; null when there is none
   * @param baseline its repetitions, or null
   * @param target the target as text (e.g. "ratio >= 0.8"), or null
   * @param targetMet whether the target is met, or null when there is none
   */
  void row(String caseName, String figure, boolean higherIsBetter, Stats.Summary ours, String baselineName,
      Stats.Summary baseline, String target, Boolean targetMet) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("benchmark", benchmark);
    row.put("case", caseName);
    row.put("figure", figure);
    row.put("higherIsBetter", higherIsBetter);
    row.put("ours", ours.toJson());
    row.put("baselineName", baselineName);
    row.put("baseline", baseline == null ? null : baseline.toJson());
    Double ratio = baseline == null || baseline.median() == 0 ? null : ours.median() / baseline.median();
    row.put("ratio", ratio);
    row.put("target", target);
    row.put("targetMet", targetMet);
    rows.add(row);
    System.out.printf("[%s] %s | %s | ours %s%s%s%s%n", benchmark, caseName, figure, fmt(ours),
        baseline == null ? "" : " | " + baselineName + " " + fmt(baseline),
        ratio == null ? "" : String.format(" | ratio %.2f", ratio),
        target == null ? "" : " | target " + target + (targetMet == null ? "" : targetMet ? " (met)" : " (NOT met)"));
  }

  /** Attach a free-form detail (parameters, per-run figures, notes) to the results file. */
  void detail(String key, Object value) {
    details.put(key, value);
  }

  /** Write {@code <results dir>/<benchmark>.json}. */
  void write() {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("benchmark", benchmark);
    doc.put("finishedAtMs", System.currentTimeMillis());
    doc.put("rows", rows);
    doc.put("details", details);
    try {
      Files.createDirectories(resultsDir);
      Path file = resultsDir.resolve(benchmark + ".json");
      JSON.writeValue(file.toFile(), doc);
      System.out.println("[" + benchmark + "] results written to " + file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String fmt(Stats.Summary s) {
    return String.format("%s [%s..%s]", num(s.median()), num(s.min()), num(s.max()));
  }

  static String num(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    double a = Math.abs(v);
    if (a >= 1000) {
      return String.format("%,.0f", v);
    }
    if (a >= 10) {
      return String.format("%.1f", v);
    }
    return String.format("%.2f", v);
  }
}
