package dev.streamfold.transforms.training;

import java.io.Serializable;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One requested feature of a training set: a column of a view, looked up for each label event by a join
 * key, with an optional time-to-live.
 *
 * @param view the view (transformation) computing the feature; it must read the label stream
 * @param column a result column of that view
 * @param join SQL expression over the label stream whose value (as text) is the feature view's row key
 *     for a label event; "" for the training set's entity expression
 * @param ttlMs time-to-live in milliseconds of event time, or -1 for none: a value whose row last
 *     changed (by the event time of the event that changed it) more than {@code ttlMs} before the label
 *     event's event time is null; a value exactly {@code ttlMs} old is kept
 * @param name the output column name: {@code <view>__<column>}
 */
public record FeatureSpec(String view, String column, String join, long ttlMs, String name) implements Serializable {
  private static final Pattern SPEC =
      Pattern.compile("(?:([A-Za-z_][A-Za-z0-9_]*)=)?([A-Za-z_][A-Za-z0-9_-]*)\\.([A-Za-z_][A-Za-z0-9_]*)(?:@([^/]+))?(?:/(.+))?");

  public FeatureSpec {
    Objects.requireNonNull(view, "view");
    Objects.requireNonNull(column, "column");
    join = join == null ? "" : join.trim();
    name = name == null || name.isBlank() ? view + "__" + column : name;
  }

  /**
   * Parse a feature as a user writes it: {@code [name=]VIEW.column[@join][/ttl]}, e.g.
   * {@code delays_by_origin.flights}, {@code delays_by_dest.avg_delay@destination},
   * {@code recent_delay=delays_by_origin.avg_delay/2h}.
   *
   * @param text the feature
   * @return the spec
   * @throws IllegalArgumentException if it does not have that form or the TTL does not parse
   */
  public static FeatureSpec parse(String text) {
    Matcher m = SPEC.matcher(text == null ? "" : text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("cannot read feature '" + text + "': use [name=]VIEW.column, optionally"
          + " followed by @<join field or SQL expression of the label stream> and /<ttl> (e.g. 90s, 15m, 2h, 7d or PT2H)");
    }
    return new FeatureSpec(m.group(2), m.group(3), m.group(4), m.group(5) == null ? -1 : parseTtl(m.group(5)), m.group(1));
  }

  /**
   * Parse a time-to-live: a number with a unit {@code ms, s, m, h, d}, or an ISO-8601 duration.
   *
   * @return milliseconds, >= 0
   * @throws IllegalArgumentException if it does not parse or is negative
   */
  public static long parseTtl(String text) {
    try {
      return dev.streamfold.core.Durations.parseMs(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot read time-to-live '" + text + "': use e.g. 90s, 15m, 2h, 7d or PT2H");
    }
  }

  /** The feature as a user would write it. */
  public String describe() {
    return (name.equals(view + "__" + column) ? "" : name + "=") + view + "." + column + (join.isEmpty() ? "" : "@" + join)
        + (ttlMs < 0 ? "" : "/" + ttlText(ttlMs));
  }

  /** A time-to-live in its largest whole unit: {@code 2h}, {@code 90s}, {@code 1500ms}, {@code 0s}. */
  static String ttlText(long ms) {
    long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    String[] names = {"d", "h", "m", "s"};
    if (ms == 0) {
      return "0s";
    }
    for (int i = 0; i < units.length; i++) {
      if (ms % units[i] == 0) {
        return ms / units[i] + names[i];
      }
    }
    return ms + "ms";
  }
}
