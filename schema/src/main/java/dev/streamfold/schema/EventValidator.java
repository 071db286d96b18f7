package dev.streamfold.schema;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.streamfold.core.ClientText;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Checks events before they are appended: key present, payload a JSON object, declared columns of the
 * right type (a column may be absent or null), and every size and time within the limits below. Rules
 * come from the stream's declared columns.
 *
 * <p>Header names are non-empty and do not start with {@value EventEnvelope#RESERVED_PROPERTY_PREFIX}, the
 * ledger's own message properties ({@link EventEnvelope#RESERVED_PROPERTY_PREFIX}).
 *
 * <p>Limits (a whole event stays far below Pulsar's default {@code maxMessageSize} of 5 MB, and a
 * gRPC request carries at most 4 MiB anyway, {@code IngestGrpcService.MAX_REQUEST_BYTES}):
 * key, type and idempotency key {@value #MAX_KEY_BYTES} bytes each, headers {@value #MAX_HEADERS_BYTES}
 * bytes in all, payload {@value #MAX_PAYLOAD_BYTES} bytes nested at most {@value #MAX_NESTING_DEPTH}
 * levels, event time from 0 (the append time) to {@value #MAX_EVENT_TIME_AHEAD_MS} ms after the server's
 * clock, TIMESTAMP column values within SQL's years 0000..9999.
 */
public final class EventValidator {
  /** Longest event key, type and idempotency key, bytes of UTF-8 each. Ours. */
  public static final int MAX_KEY_BYTES = 1024;
  /** Largest payload, bytes of UTF-8. Ours: 1/5 of Pulsar's default 5 MB maxMessageSize (broker.conf). */
  public static final int MAX_PAYLOAD_BYTES = 1024 * 1024;
  /** Most bytes of UTF-8 of all header names and values of one event. Ours. */
  public static final int MAX_HEADERS_BYTES = 64 * 1024;
  /**
   * Deepest nesting of objects and arrays in a payload. Jackson's default
   * ({@code StreamReadConstraints.DEFAULT_MAX_DEPTH}, 2.15+), set explicitly here so that it stays a
   * rule of the ledger, not of a library version.
   */
  public static final int MAX_NESTING_DEPTH = 1000;
  /**
   * How far after the server's clock an event time may be, ms (1 day). Ours, after Kafka's
   * {@code log.message.timestamp.after.max.ms}: a far-future event time (e.g. {@code Long.MAX_VALUE})
   * would move every event-time watermark past all later events, closing all windows of every windowed
   * view over the stream for good. Old event times are fine (history is imported with its times).
   */
  public static final long MAX_EVENT_TIME_AHEAD_MS = 24L * 60 * 60 * 1000;
  /** Earliest TIMESTAMP column value, epoch ms: 0000-01-01T00:00:00Z (SQL TIMESTAMP's range, Flink docs). */
  public static final long MIN_TIMESTAMP_MS = -62_167_219_200_000L;
  /** Latest TIMESTAMP column value, epoch ms: 9999-12-31T23:59:59.999Z (SQL TIMESTAMP's range, Flink docs). */
  public static final long MAX_TIMESTAMP_MS = 253_402_300_799_999L;

  private static final com.fasterxml.jackson.core.JsonFactory JSON = com.fasterxml.jackson.core.JsonFactory.builder()
      .streamReadConstraints(com.fasterxml.jackson.core.StreamReadConstraints.builder()
          .maxNestingDepth(MAX_NESTING_DEPTH).build())
      .build();

  private EventValidator() {}

  /**
   * Check one event against the server's clock.
   *
   * @see #check(int, EventEnvelope, List, long)
   */
  public static void check(int index, EventEnvelope event, List<StreamColumn> columns) {
    check(index, event, columns, System.currentTimeMillis());
  }

  /**
   * Check one event.
   *
   * @param index index of the event in its request, from 0 (for the error message)
   * @param event the event
   * @param columns the stream's declared columns (may be empty: then any JSON object passes)
   * @param nowMs the server's clock, epoch ms (event times may be at most {@value #MAX_EVENT_TIME_AHEAD_MS}
   *     ms after it)
   * @throws InvalidEventException if the event is malformed or over a limit, or a text of it holds a lone
   *     UTF-16 surrogate (which UTF-8, and so the wire, cannot carry: it would become {@code ?}); the message
   *     names the index, the field, the reason and the limit
   */
  public static void check(int index, EventEnvelope event, List<StreamColumn> columns, long nowMs) {
    // Texts that came over the wire are UTF-8 decoded, so never hold a lone surrogate; a client's texts may.
    checkUnicode(index, "key", event.key());
    checkUnicode(index, "type", event.type());
    checkUnicode(index, "idempotency_key", event.idempotencyKey());
    for (java.util.Map.Entry<String, String> header : event.headers().entrySet()) {
      checkUnicode(index, "headers", header.getKey());
      checkUnicode(index, "headers", header.getValue());
    }
    checkUnicode(index, "payload_json", event.payloadJson());
    check(index, event, event.payloadJson() == null ? null : event.payloadJson().getBytes(StandardCharsets.UTF_8),
        columns, nowMs);
  }

  private static void checkUnicode(int index, String field, String text) {
    if (text == null) {
      return;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new InvalidEventException(index, field, "holds a lone UTF-16 surrogate "
            + String.format("U+%04X", (int) c) + " at character " + i + ", which is no character and which UTF-8"
            + " cannot encode (it would be sent as '?')");
      }
    }
  }

  /**
   * Check one event whose payload is already encoded: the same checks as {@link #check(int, EventEnvelope,
   * List, long)}, with the payload parsed from its UTF-8 bytes (Jackson's byte parser: no char copy of the
   * text), so that the caller can send the same bytes.
   *
   * @param payloadUtf8 {@code event.payloadJson()} encoded as UTF-8, or null when it is null
   * @see #check(int, EventEnvelope, List, long)
   */
  public static void check(int index, EventEnvelope event, byte[] payloadUtf8, List<StreamColumn> columns,
      long nowMs) {
    if (event.key() == null || event.key().isEmpty()) {
      throw new InvalidEventException(index, "key", "is missing or empty");
    }
    checkLength(index, "key", event.key(), MAX_KEY_BYTES);
    checkLength(index, "type", event.type(), MAX_KEY_BYTES);
    checkLength(index, "idempotency_key", event.idempotencyKey(), MAX_KEY_BYTES);
    long headerBytes = 0;
    for (java.util.Map.Entry<String, String> header : event.headers().entrySet()) {
      String name = header.getKey();
      if (name == null || name.isEmpty()) {
        throw new InvalidEventException(index, "headers", "has a header with an empty name");
      }
      if (name.startsWith(EventEnvelope.RESERVED_PROPERTY_PREFIX)) {
        throw new InvalidEventException(index, "headers", "has a header named " + ClientText.quote(name)
            + ": names starting with '" + EventEnvelope.RESERVED_PROPERTY_PREFIX + "' are the ledger's own"
            + " (the event's type and idempotency key have their own fields)");
      }
      headerBytes += utf8Length(name) + utf8Length(header.getValue());
    }
    if (headerBytes > MAX_HEADERS_BYTES) {
      throw new InvalidEventException(index, "headers", "hold " + headerBytes + " bytes; at most "
          + MAX_HEADERS_BYTES + " bytes of names and values");
    }
    if (event.eventTimeMs() < 0) {
      throw new InvalidEventException(index, "event_time_ms", "is negative: " + event.eventTimeMs()
          + " (epoch ms; 0 means the append time)");
    }
    if (event.eventTimeMs() > nowMs + MAX_EVENT_TIME_AHEAD_MS) {
      throw new InvalidEventException(index, "event_time_ms", "is " + event.eventTimeMs() + " ("
          + instant(event.eventTimeMs()) + "), more than 1 day after the server's clock (" + instant(nowMs)
          + "); event times are when events happened");
    }
    String payload = event.payloadJson();
    if (payload == null || payload.isBlank()) {
      throw new InvalidEventException(index, "payload_json", "is missing; it must be a JSON object");
    }
    if (payloadUtf8.length > MAX_PAYLOAD_BYTES) {
      throw new InvalidEventException(index, "payload_json", "is larger than " + MAX_PAYLOAD_BYTES
          + " bytes of UTF-8 (" + payloadUtf8.length + ")");
    }
    // One streaming pass over the payload: only declared columns' values are looked at (a tree of
    // every payload was most of ingestion's CPU; docs/performance.md). From the UTF-8 bytes: Jackson's byte
    // parser skips the char copy of the text that a String parser makes (docs/performance.md, session 5).
    try (JsonParser parser = JSON.createParser(payloadUtf8)) {
      JsonToken first = parser.nextToken();
      if (first != JsonToken.START_OBJECT) {
        throw new InvalidEventException(index, "payload_json", "must be a JSON object, got "
            + (first == null ? "nothing" : kind(first)));
      }
      boolean anyRequired = false;
      for (StreamColumn column : columns) {
        anyRequired |= column.required();
      }
      // Per declared column, whether the payload holds a non-null value for it, and whether it holds the field at
      // all (only when one is required): a NOT NULL column's DEFAULT stands in for a missing field, not for null.
      boolean[] present = anyRequired ? new boolean[columns.size()] : null;
      boolean[] given = anyRequired ? new boolean[columns.size()] : null;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        int column = columnOf(columns, field);
        if (column >= 0 && given != null) {
          given[column] = true;
        }
        if (column >= 0 && value != JsonToken.VALUE_NULL) {
          if (present != null) {
            present[column] = true;
          }
          String type = columns.get(column).type();
          String problem = typeProblem(type, value, parser);
          if (problem != null) {
            throw new InvalidEventException(index, "payload_json." + field, problem);
          }
        }
        parser.skipChildren();
      }
      if (parser.nextToken() != null) {
        throw new InvalidEventException(index, "payload_json", "is not valid JSON: content after the object");
      }
      int lone = loneSurrogateEscape(payloadUtf8);
      if (lone >= 0) {
        throw new InvalidEventException(index, "payload_json", "holds a lone UTF-16 surrogate escape "
            + new String(payloadUtf8, lone, 6, StandardCharsets.US_ASCII) + " at byte " + lone + ": JSON text is"
            + " Unicode, and a surrogate escape is a high one (\\ud800-\\udbff) followed at once by a low one"
            + " (\\udc00-\\udfff), e.g. \\ud83d\\ude00");
      }
      if (present != null) {
        for (int c = 0; c < columns.size(); c++) {
          StreamColumn column = columns.get(c);
          if (column.required() && !present[c] && (given[c] || column.defaultJson() == null)) {
            throw new InvalidEventException(index, "payload_json." + column.name(), "is missing or null, but"
                + " the stream's schema requires it (column " + column.describe() + ")"
                + (given[c] && column.defaultJson() != null ? "; its DEFAULT applies only to an event without the"
                    + " field, and an explicit null (an empty CSV value) is a value" : ""));
          }
        }
      }
    } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
      throw new InvalidEventException(index, "payload_json", "is nested deeper than " + MAX_NESTING_DEPTH
          + " levels of objects and arrays");
    } catch (JsonProcessingException e) {
      throw new InvalidEventException(index, "payload_json", "is not valid JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Check that a JSON value (e.g. a column's default) fits a column type.
   *
   * @param type the column type
   * @param json the value as JSON text
   * @return what is wrong, or null when it fits
   */
  static String valueProblem(String type, String json) {
    try (JsonParser parser = JSON.createParser(json)) {
      JsonToken value = parser.nextToken();
      if (value == null) {
        return "is not a JSON value";
      }
      String problem = value == JsonToken.VALUE_NULL ? null : typeProblem(type, value, parser);
      parser.skipChildren();
      if (problem == null && parser.nextToken() != null) {
        return "is not one JSON value";
      }
      return problem;
    } catch (java.io.IOException e) {
      return "is not a JSON value (a text needs quotes, e.g. \"AA\")";
    }
  }

  /**
   * Find a UTF-16 surrogate escape that is not half of a pair in JSON text: a high one (<code>&#92;ud800</code>
   * to <code>&#92;udbff</code>) not followed at once by a low one (<code>&#92;udc00</code> to
   * <code>&#92;udfff</code>), or a low one alone. It stands for no character (Jackson makes it a lone
   * surrogate, which UTF-8 cannot encode: such a payload was stored, and read back with {@code ?} for it). A
   * surrogate cannot be written in UTF-8 itself, so escapes are all there is to check; in valid JSON every
   * backslash is in a string, so bytes are enough.
   *
   * @param json valid JSON text, UTF-8
   * @return the byte offset of the first such escape's backslash, or -1 when there is none
   */
  static int loneSurrogateEscape(byte[] json) {
    for (int i = 0; i < json.length; i++) {
      if (json[i] != '\\') {
        continue;
      }
      if (i + 5 >= json.length || json[i + 1] != 'u') {
        i++; // an escaped character such as \\ or \": not the start of another escape
        continue;
      }
      int unit = hex4(json, i + 2);
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        if (i + 11 < json.length && json[i + 6] == '\\' && json[i + 7] == 'u') {
          int low = hex4(json, i + 8);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            i += 11;
            continue;
          }
        }
        return i;
      }
      if (unit >= 0xDC00 && unit <= 0xDFFF) {
        return i;
      }
      i += 5;
    }
    return -1;
  }

  /** The value of four hex digits from {@code at}, or -1 when they are not. */
  private static int hex4(byte[] text, int at) {
    int value = 0;
    for (int i = at; i < at + 4; i++) {
      int digit = Character.digit(text[i], 16);
      if (digit < 0) {
        return -1;
      }
      value = value * 16 + digit;
    }
    return value;
  }

  private static void checkLength(int index, String field, String value, int maxBytes) {
    if (value != null && value.length() > maxBytes / 3 && utf8Length(value) > maxBytes) {
      throw new InvalidEventException(index, field, "is longer than " + maxBytes + " bytes of UTF-8 ("
          + utf8Length(value) + ")");
    }
  }

  /** Bytes of the UTF-8 encoding of a text, without encoding it. */
  static long utf8Length(String text) {
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static String instant(long epochMs) {
    try {
      return java.time.Instant.ofEpochMilli(epochMs).toString();
    } catch (java.time.DateTimeException e) {
      return "out of range";
    }
  }

  /** Index of the declared column named {@code field}, or -1. */
  private static int columnOf(List<StreamColumn> columns, String field) {
    for (int c = 0; c < columns.size(); c++) {
      if (columns.get(c).name().equals(field)) {
        return c;
      }
    }
    return -1;
  }

  private static String kind(JsonToken token) {
    return switch (token) {
      case START_OBJECT -> "object";
      case START_ARRAY -> "array";
      case VALUE_STRING -> "string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
      case VALUE_TRUE, VALUE_FALSE -> "boolean";
      default -> token.name().toLowerCase();
    };
  }

  private static String shown(JsonToken token, JsonParser parser) throws java.io.IOException {
    return token.isScalarValue() ? (token == JsonToken.VALUE_STRING ? ClientText.quote(parser.getText())
        : ClientText.shorten(parser.getText())) : kind(token).toUpperCase();
  }

  private static String typeProblem(String type, JsonToken value, JsonParser parser) throws java.io.IOException {
    switch (type) {
      case "STRING":
        return value.isScalarValue() ? null : "must be a string (column type STRING), got " + shown(value, parser);
      case "BOOLEAN":
        return value.isBoolean() ? null : "must be true or false (column type BOOLEAN), got " + shown(value, parser);
      case "INT":
        return value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() == JsonParser.NumberType.INT ? null
            : "must be a 32-bit integer (column type INT), got " + shown(value, parser);
      case "BIGINT":
        return value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER ? null
            : "must be a 64-bit integer (column type BIGINT), got " + shown(value, parser);
      case "DOUBLE":
        return value.isNumeric() ? null : "must be a number (column type DOUBLE), got " + shown(value, parser);
      case "TIMESTAMP":
        if (value == JsonToken.VALUE_NUMBER_INT) {
          if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER || parser.getLongValue() < MIN_TIMESTAMP_MS
              || parser.getLongValue() > MAX_TIMESTAMP_MS) {
            return "must be epoch ms within SQL TIMESTAMP's years 0000..9999 (" + MIN_TIMESTAMP_MS + ".."
                + MAX_TIMESTAMP_MS + ", column type TIMESTAMP), got " + shown(value, parser);
          }
          return null;
        }
        if (value == JsonToken.VALUE_STRING) {
          if (IsoDateTimes.isValidCommonShape(parser.getTextCharacters(), parser.getTextOffset(),
              parser.getTextLength())) {
            return null; // no String and no LocalDateTime per value (docs/performance.md)
          }
          try {
            IsoDateTimes.parse(parser.getText());
            return null;
          } catch (DateTimeParseException e) {
            return "must be an ISO-8601 local date-time like 2001-01-01T00:01:00 or epoch ms (column type TIMESTAMP), got "
                + shown(value, parser);
          }
        }
        return "must be an ISO-8601 local date-time text or epoch ms (column type TIMESTAMP), got " + shown(value, parser);
      default:
        return null;
    }
  }
}
