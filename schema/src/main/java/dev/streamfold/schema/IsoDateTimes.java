package dev.streamfold.schema;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;

/**
 * Parses ISO-8601 local date-times exactly as {@link LocalDateTime#parse(CharSequence)} does
 * ({@code DateTimeFormatter.ISO_LOCAL_DATE_TIME}), with a fast path for the common shapes
 * {@code yyyy-MM-ddTHH:mm}, {@code yyyy-MM-ddTHH:mm:ss} and {@code yyyy-MM-ddTHH:mm:ss.f} (1 to 9
 * fraction digits). Anything else (e.g. signed or 5-digit years) goes to {@code LocalDateTime.parse}, so
 * the accepted texts and the errors are the JDK's. Profiling showed {@code LocalDateTime.parse} as a
 * quarter of ingestion and a fifth of backfill time (docs/performance.md).
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

  /**
   * Tell, without creating any object, whether a text of one of the fast-path shapes above is a valid
   * local date-time (year 0000..9999; month, day of month, hour, minute and second in range, leap years as
   * {@code java.time}'s ISO chronology). Used by the validator on every TIMESTAMP value.
   *
   * @param chars holds the text
   * @param offset index of its first char
   * @param length its chars
   * @return true if {@link #parse} accepts it; false when it is not of those shapes or not valid (then
   *     {@link #parse} gives the verdict and the JDK's message)
   */
  public static boolean isValidCommonShape(char[] chars, int offset, int length) {
    int n = length;
    if (n < 16 || n > 29 || chars[offset + 4] != '-' || chars[offset + 7] != '-' || chars[offset + 10] != 'T'
        || chars[offset + 13] != ':') {
      return false;
    }
    int year = digits(chars, offset, 4);
    int month = digits(chars, offset + 5, 2);
    int day = digits(chars, offset + 8, 2);
    int hour = digits(chars, offset + 11, 2);
    int minute = digits(chars, offset + 14, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59) {
      return false;
    }
    boolean leap = (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
    int monthDays = month == 2 ? (leap ? 29 : 28) : (month == 4 || month == 6 || month == 9 || month == 11) ? 30 : 31;
    if (day > monthDays) {
      return false;
    }
    if (n == 16) {
      return true;
    }
    if (n < 19 || chars[offset + 16] != ':') {
      return false;
    }
    int second = digits(chars, offset + 17, 2);
    if (second < 0 || second > 59) {
      return false;
    }
    if (n == 19) {
      return true;
    }
    return chars[offset + 19] == '.' && n - 20 >= 1 && digits(chars, offset + 20, n - 20) >= 0;
  }

  /** The decimal value of chars[from, from + count), or -1 when a char is not an ASCII digit. */
  private static int digits(char[] chars, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; i++) {
      char c = chars[i];
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
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
