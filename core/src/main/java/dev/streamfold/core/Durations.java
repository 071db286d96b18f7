package dev.streamfold.core;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as users write them on the command line and in requests. */
public final class Durations {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,15})(ms|s|m|h|d)");

  private Durations() {}

  /**
   * Parse a duration: a whole number with a unit {@code ms, s, m, h, d} (e.g. {@code 500ms}, {@code 90s},
   * {@code 2h}, {@code 7d}), or an ISO-8601 duration (e.g. {@code PT2H}).
   *
   * @param text the duration
   * @return milliseconds, >= 0
   * @throws IllegalArgumentException if it does not parse or is negative (the message quotes it)
   */
  public static long parseMs(String text) {
    String t = text == null ? "" : text.trim();
    Matcher m = SHORT.matcher(t);
    long ms;
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      ms = switch (m.group(2)) {
        case "ms" -> n;
        case "s" -> n * 1000;
        case "m" -> n * 60_000;
        case "h" -> n * 3_600_000;
        default -> n * 86_400_000;
      };
    } else {
      try {
        ms = Duration.parse(t).toMillis();
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("cannot read duration '" + text + "': use e.g. 500ms, 90s, 15m, 2h, 7d or PT2H");
      }
    }
    if (ms < 0) {
      throw new IllegalArgumentException("duration must not be negative: '" + text + "'");
    }
    return ms;
  }
}
