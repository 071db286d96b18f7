package dev.streamfold.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Order statistics of repeated measurements and of latency samples. */
final class Stats {
  private Stats() {}

  /**
   * Summary of the repetitions of one figure: median, min, max and the spread (max - min) / median.
   *
   * @param median median of the repetitions
   * @param min smallest repetition
   * @param max largest repetition
   * @param values every repetition, in run order
   */
  record Summary(double median, double min, double max, List<Double> values) {
    /** Spread as a fraction of the median: (max - min) / median, 0 when the median is 0. */
    double spread() {
      return median == 0 ? 0 : (max - min) / Math.abs(median);
    }

    Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("median", median);
      m.put("min", min);
      m.put("max", max);
      m.put("spread", spread());
      m.put("repetitions", values);
      return m;
    }
  }

  /**
   * Summarize repetitions.
   *
   * @param values one value per repetition, at least one
   * @return the summary
   * @throws IllegalArgumentException if values is empty
   */
  static Summary of(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("no repetitions to summarize");
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int n = sorted.length;
    double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return new Summary(median, sorted[0], sorted[n - 1], List.copyOf(values));
  }

  /** Collects latency samples in nanoseconds. Not thread-safe: one writer, or synchronize outside. */
  static final class Latencies {
    private long[] nanos = new long[1024];
    private int size;

    void add(long valueNanos) {
      if (size == nanos.length) {
        nanos = Arrays.copyOf(nanos, size * 2);
      }
      nanos[size++] = valueNanos;
    }

    int count() {
      return size;
    }

    /**
     * Return a percentile (nearest rank) in milliseconds.
     *
     * @param p percentile, 0 (exclusive) to 100 (inclusive)
     * @return the value in ms, NaN when there are no samples
     */
    double percentileMs(double p) {
      if (size == 0) {
        return Double.NaN;
      }
      long[] sorted = Arrays.copyOf(nanos, size);
      Arrays.sort(sorted);
      int rank = (int) Math.ceil(p / 100.0 * size);
      return sorted[Math.max(0, Math.min(size - 1, rank - 1))] / 1e6;
    }

    double maxMs() {
      return percentileMs(100);
    }
  }

  /** Collects several named figures over repetitions, e.g. events/s, p50 and p99 of each run. */
  static final class Series {
    private final Map<String, List<Double>> values = new LinkedHashMap<>();

    void add(String figure, double value) {
      values.computeIfAbsent(figure, k -> new ArrayList<>()).add(value);
    }

    Summary summary(String figure) {
      List<Double> v = values.get(figure);
      if (v == null) {
        throw new IllegalArgumentException("no figure " + figure + "; have " + values.keySet());
      }
      return of(v);
    }

    boolean has(String figure) {
      return values.containsKey(figure);
    }
  }
}
