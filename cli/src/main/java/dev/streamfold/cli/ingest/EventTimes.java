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
      if (!value.canConvertToLong()) {
        throw new IllegalArgumentException("value " + value + " is beyond epoch milliseconds' range (a 64-bit integer)");
      }
      return nonZero(value.asLong(), value.toString());
    }
    if (value.isNumber()) {
      double ms = Math.floor(value.asDouble());
      if (!(Math.abs(ms) < 9.2e18)) {
        throw new IllegalArgumentException("value " + value + " is beyond epoch milliseconds' range (a 64-bit integer)");
      }
      return nonZero((long) ms, value.toString());
    }
    if (!value.isTextual()) {
      throw new IllegalArgumentException("value " + value + " is not epoch milliseconds nor an ISO-8601 date-time");
    }
    String text = value.asText().trim();
    if (!text.isEmpty() && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      if (text.length() > 18) {
        throw new IllegalArgumentException("value '" + text + "' is beyond epoch milliseconds' range");
      }
      return nonZero(Long.parseLong(text), text);
    }
    String iso = text.length() > 10 && text.charAt(10) == ' ' ? text.substring(0, 10) + 'T' + text.substring(11) : text;
    try {
      if (iso.length() == 10) {
        return nonZero(LocalDate.parse(iso).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli(), text);
      }
      char last = iso.charAt(iso.length() - 1);
      if (last == 'Z' || last == 'z' || hasOffset(iso)) {
        return nonZero(OffsetDateTime.parse(iso.replace('z', 'Z')).toInstant().toEpochMilli(), text);
      }
      return nonZero(LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC).toEpochMilli(), text);
    } catch (DateTimeParseException | StringIndexOutOfBoundsException e) {
      throw new IllegalArgumentException("value '" + text + "' is not epoch milliseconds nor an ISO-8601 date-time");
    }
  }

  /**
   * Refuse the instant 1970-01-01T00:00:00Z: the ingestion API reads an event time of 0 as none given and stores
   * the append time instead (Pulsar's event time 0 means unset), so the event would silently get another time.
   */
  private static long nonZero(long ms, String given) {
    if (ms == 0) {
      throw new IllegalArgumentException("value '" + given + "' is 1970-01-01T00:00:00Z (epoch 0), which the ingestion"
          + " API reads as no event time (the append time would be stored instead); give the instant 1 ms later");
    }
    return ms;
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
