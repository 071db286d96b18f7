package dev.streamfold.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Checks events before they are appended: key present, payload a JSON object, declared columns of the
 * right type (a column may be absent or null). Rules come from the stream's declared columns.
 */
public final class EventValidator {
  /** Longest event key, bytes of UTF-8. */
  public static final int MAX_KEY_BYTES = 1024;
  /** Largest payload, bytes of UTF-8 (below Pulsar's default 5 MB maxMessageSize). */
  public static final int MAX_PAYLOAD_BYTES = 1024 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper();

  private EventValidator() {}

  /**
   * Check one event.
   *
   * @param index index of the event in its request, from 0 (for the error message)
   * @param event the event
   * @param columns the stream's declared columns (may be empty: then any JSON object passes)
   * @throws LedgerException.InvalidEvent if the event is malformed; the message names the index, the
   *     field and the reason
   */
  public static void check(int index, EventEnvelope event, List<StreamColumn> columns) {
    if (event.key() == null || event.key().isEmpty()) {
      throw new LedgerException.InvalidEvent(index, "key", "is missing or empty");
    }
    if (event.key().getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
      throw new LedgerException.InvalidEvent(index, "key", "is longer than " + MAX_KEY_BYTES + " bytes");
    }
    if (event.idempotencyKey().getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
      throw new LedgerException.InvalidEvent(index, "idempotency_key", "is longer than " + MAX_KEY_BYTES + " bytes");
    }
    if (event.eventTimeMs() < 0) {
      throw new LedgerException.InvalidEvent(index, "event_time_ms", "is negative: " + event.eventTimeMs());
    }
    String payload = event.payloadJson();
    if (payload == null || payload.isBlank()) {
      throw new LedgerException.InvalidEvent(index, "payload_json", "is missing; it must be a JSON object");
    }
    if (payload.length() > MAX_PAYLOAD_BYTES) {
      throw new LedgerException.InvalidEvent(index, "payload_json", "is larger than " + MAX_PAYLOAD_BYTES + " bytes");
    }
    // One streaming pass over the payload: only declared columns' values are looked at (a tree of
    // every payload was most of ingestion's CPU; BENCHMARKS.md).
    try (JsonParser parser = JSON.getFactory().createParser(payload)) {
      JsonToken first = parser.nextToken();
      if (first != JsonToken.START_OBJECT) {
        throw new LedgerException.InvalidEvent(index, "payload_json", "must be a JSON object, got "
            + (first == null ? "nothing" : kind(first)));
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        String type = typeOf(columns, field);
        if (type != null && value != JsonToken.VALUE_NULL) {
          String problem = typeProblem(type, value, parser);
          if (problem != null) {
            throw new LedgerException.InvalidEvent(index, "payload_json." + field, problem);
          }
        }
        parser.skipChildren();
      }
      if (parser.nextToken() != null) {
        throw new LedgerException.InvalidEvent(index, "payload_json", "is not valid JSON: content after the object");
      }
    } catch (JsonProcessingException e) {
      throw new LedgerException.InvalidEvent(index, "payload_json", "is not valid JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String typeOf(List<StreamColumn> columns, String field) {
    for (StreamColumn column : columns) {
      if (column.name().equals(field)) {
        return column.type();
      }
    }
    return null;
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
    return token.isScalarValue() ? (token == JsonToken.VALUE_STRING ? "\"" + parser.getText() + "\"" : parser.getText())
        : kind(token).toUpperCase();
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
          return null;
        }
        if (value == JsonToken.VALUE_STRING) {
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
