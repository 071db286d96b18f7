package dev.streamfold.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The demo's oracle: a plain in-memory group-by of the flights rows, the same result as
 * {@code SELECT origin, COUNT(*) AS flights, AVG(CAST(delay AS DOUBLE)) AS avg_delay,
 * SUM(CASE WHEN delay >= 15 THEN 1 ELSE 0 END) AS delayed FROM flights GROUP BY origin}.
 */
final class GroupByOracle {
  /** Largest relative difference of avg_delay accepted (floating-point sums in another order). */
  static final double AVG_RELATIVE_TOLERANCE = 1e-9;

  /** One origin's aggregates. */
  static final class Row {
    long flights;
    long delayCount;
    double delaySum;
    long delayed;

    /** AVG over non-null delays; null when there is none (SQL AVG of no values). */
    Double avgDelay() {
      return delayCount == 0 ? null : delaySum / delayCount;
    }
  }

  private final Map<String, Row> rows = new TreeMap<>();

  /** Fold one flights row. */
  void add(ObjectNode flight) {
    String origin = flight.path("origin").asText(null);
    Row row = rows.computeIfAbsent(origin, o -> new Row());
    row.flights++;
    JsonNode delay = flight.get("delay");
    if (delay != null && !delay.isNull()) {
      long d = delay.asLong();
      row.delayCount++;
      row.delaySum += d;
      if (d >= 15) {
        row.delayed++;
      }
    }
  }

  Map<String, Row> rows() {
    return rows;
  }

  /**
   * Compare one origin with a view row read over RESP.
   *
   * @param origin the origin
   * @param view the view row (column to value text), empty when missing
   * @return null when equal, else what differs
   */
  String mismatch(String origin, Map<String, String> view) {
    Row expected = rows.get(origin);
    if (expected == null) {
      return origin + ": in the view but not in the data";
    }
    if (view.isEmpty()) {
      return origin + ": missing from the view (expected flights=" + expected.flights + ")";
    }
    List<String> diffs = new ArrayList<>();
    if (!equalLong(view.get("flights"), expected.flights)) {
      diffs.add("flights " + view.get("flights") + " != " + expected.flights);
    }
    if (!equalLong(view.get("delayed"), expected.delayed)) {
      diffs.add("delayed " + view.get("delayed") + " != " + expected.delayed);
    }
    if (!equalDouble(view.get("avg_delay"), expected.avgDelay())) {
      diffs.add("avg_delay " + view.get("avg_delay") + " != " + expected.avgDelay());
    }
    return diffs.isEmpty() ? null : origin + ": " + String.join(", ", diffs);
  }

  static boolean equalLong(String text, long expected) {
    try {
      return text != null && Long.parseLong(text.trim()) == expected;
    } catch (NumberFormatException e) {
      try {
        return Double.parseDouble(text.trim()) == expected;
      } catch (NumberFormatException e2) {
        return false;
      }
    }
  }

  static boolean equalDouble(String text, Double expected) {
    if (expected == null) {
      return text == null || text.isEmpty();
    }
    if (text == null) {
      return false;
    }
    try {
      double actual = Double.parseDouble(text.trim());
      return Math.abs(actual - expected) <= AVG_RELATIVE_TOLERANCE * Math.max(1.0, Math.abs(expected));
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
