package dev.streamfold.ledger;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;

/**
 * Parses ISO-8601 local date-times exactly as {@link LocalDateTime#parse(CharSequence)} does
 * ({@code DateTimeFormatter.ISO_LOCAL_DATE_TIME}), with a fast path for the common shapes
 * {@code yyyy-MM-ddTHH:mm}, {@code yyyy-MM-ddTHH:mm:ss} and {@code yyyy-MM-ddTHH:mm:ss.f} (1 to 9
 * fraction digits). Anything else (e.g. signed or 5-digit years) goes to {@code LocalDateTime.parse}, so
 * the accepted texts and the errors are the JDK's. Profiling showed {@code LocalDateTime.parse} as a
 * quarter of ingestion and a fifth of backfill time (BENCHMARKS.md).
 */
public final class IsoDateTimes {
  private IsoDateTimes() {}

  /**
   * Parse a local date-time.
   *
   * @param text e.g. {@code 2015-01-01T06:05:00}
   * @return the date-time
   * @throws DateTimeParseException if the text is not an ISO-8601 local date-time (the JDK's message)
   */
  public static LocalDateTime parse(String text) {
    int n = text.length();
    if (n >= 16 && n <= 29 && text.charAt(4) == '-' && text.charAt(7) == '-' && text.charAt(10) == 'T'
        && text.charAt(13) == ':') {
      int year = digits(text, 0, 4);
      int month = digits(text, 5, 7);
      int day = digits(text, 8, 10);
      int hour = digits(text, 11, 13);
      int minute = digits(text, 14, 16);
      int second = 0;
      int nano = 0;
      boolean shape = year >= 0 && month >= 0 && day >= 0 && hour >= 0 && minute >= 0;
      if (shape && n > 16) {
        shape = n >= 19 && text.charAt(16) == ':' && (second = digits(text, 17, 19)) >= 0;
        if (shape && n > 19) {
          int fraction = n - 20;
          shape = text.charAt(19) == '.' && fraction >= 1 && fraction <= 9 && (nano = digits(text, 20, n)) >= 0;
          for (int i = fraction; shape && i < 9; i++) {
            nano *= 10;
          }
        }
      }
      if (shape) {
        try {
          return LocalDateTime.of(year, month, day, hour, minute, second, nano);
        } catch (DateTimeException outOfRange) {
          // e.g. February 30th: let the JDK parser produce its own error
        }
      }
    }
    return LocalDateTime.parse(text);
  }

  /** The decimal value of text[from, to), or -1 when a character is not an ASCII digit. */
  private static int digits(String text, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
