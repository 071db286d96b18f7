package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/** Event times from row values: epoch milliseconds, or ISO-8601 text (UTC when no offset is given). */
final class EventTimes {
  private EventTimes() {}

  /**
   * Convert a row value to an event time.
   *
   * @param value a JSON integer (epoch milliseconds) or text: digits (epoch milliseconds), an ISO-8601
   *     date-time with an offset ({@code 2001-01-01T00:01:00Z}), a local date-time taken as UTC
   *     ({@code 2001-01-01T00:01:00} or with a space for the 'T'), or a date (midnight UTC)
   * @return epoch milliseconds
   * @throws IllegalArgumentException if the value is none of these (the message quotes it)
   */
  static long toEpochMs(JsonNode value) {
    if (value.isIntegralNumber()) {
      return value.asLong();
    }
    if (value.isNumber()) {
      return (long) Math.floor(value.asDouble());
    }
    if (!value.isTextual()) {
      throw new IllegalArgumentException("value " + value + " is not epoch milliseconds nor an ISO-8601 date-time");
    }
    String text = value.asText().trim();
    if (!text.isEmpty() && text.chars().allMatch(Character::isDigit) && text.length() <= 18) {
      return Long.parseLong(text);
    }
    String iso = text.length() > 10 && text.charAt(10) == ' ' ? text.substring(0, 10) + 'T' + text.substring(11) : text;
    try {
      if (iso.length() == 10) {
        return LocalDate.parse(iso).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
      }
      char last = iso.charAt(iso.length() - 1);
      if (last == 'Z' || last == 'z' || hasOffset(iso)) {
        return OffsetDateTime.parse(iso.replace('z', 'Z')).toInstant().toEpochMilli();
      }
      return LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC).toEpochMilli();
    } catch (DateTimeParseException | StringIndexOutOfBoundsException e) {
      throw new IllegalArgumentException("value '" + text + "' is not epoch milliseconds nor an ISO-8601 date-time");
    }
  }

  private static boolean hasOffset(String iso) {
    int t = iso.indexOf('T');
    if (t < 0) {
      return false;
    }
    String time = iso.substring(t + 1);
    return time.indexOf('+') >= 0 || time.indexOf('-') >= 0;
  }
}
