package dev.streamfold.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
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
    JsonNode node;
    try {
      node = JSON.readTree(payload);
    } catch (JsonProcessingException e) {
      throw new LedgerException.InvalidEvent(index, "payload_json",
          "is not valid JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw new LedgerException.InvalidEvent(index, "payload_json", "must be a JSON object, got "
          + (node == null ? "nothing" : node.getNodeType().name().toLowerCase()));
    }
    for (StreamColumn column : columns) {
      JsonNode value = node.get(column.name());
      if (value == null || value.isNull()) {
        continue;
      }
      String problem = typeProblem(column.type(), value);
      if (problem != null) {
        throw new LedgerException.InvalidEvent(index, "payload_json." + column.name(), problem);
      }
    }
  }

  private static String typeProblem(String type, JsonNode value) {
    switch (type) {
      case "STRING":
        return value.isValueNode() ? null : "must be a string (column type STRING), got " + value.getNodeType();
      case "BOOLEAN":
        return value.isBoolean() ? null : "must be true or false (column type BOOLEAN), got " + value;
      case "INT":
        return value.isIntegralNumber() && value.canConvertToInt() ? null
            : "must be a 32-bit integer (column type INT), got " + value;
      case "BIGINT":
        return value.isIntegralNumber() && value.canConvertToLong() ? null
            : "must be a 64-bit integer (column type BIGINT), got " + value;
      case "DOUBLE":
        return value.isNumber() ? null : "must be a number (column type DOUBLE), got " + value;
      case "TIMESTAMP":
        if (value.isIntegralNumber()) {
          return null;
        }
        if (value.isTextual()) {
          try {
            LocalDateTime.parse(value.asText());
            return null;
          } catch (DateTimeParseException e) {
            return "must be an ISO-8601 local date-time like 2001-01-01T00:01:00 or epoch ms (column type TIMESTAMP), got " + value;
          }
        }
        return "must be an ISO-8601 local date-time text or epoch ms (column type TIMESTAMP), got " + value;
      default:
        return null;
    }
  }
}
