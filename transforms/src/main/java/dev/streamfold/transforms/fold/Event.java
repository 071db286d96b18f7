package dev.streamfold.transforms.fold;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Objects;

/**
 * One event of the ledger as a {@link Transformation} sees it. Payload fields are read by name; the
 * payload is parsed once, on the first field read.
 */
public final class Event {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String key;
  private final String type;
  private final long eventTimeMs;
  private final String messageId;
  private final String payloadJson;
  private JsonNode payload;

  /**
   * An event (the job builds them; tests of a fold build their own).
   *
   * @param key the event key
   * @param type the event type ("" when none)
   * @param eventTimeMs the event time, epoch milliseconds (UTC)
   * @param messageId the message ID text {@code ledgerId:entryId:partition:batchIndex} ("" in tests)
   * @param payloadJson the payload, a JSON object text
   */
  public Event(String key, String type, long eventTimeMs, String messageId, String payloadJson) {
    this.key = Objects.requireNonNull(key, "key");
    this.type = type == null ? "" : type;
    this.eventTimeMs = eventTimeMs;
    this.messageId = messageId == null ? "" : messageId;
    this.payloadJson = payloadJson == null ? "{}" : payloadJson;
  }

  /** An event with a key, an event time (epoch ms) and a payload (JSON object text), for tests. */
  public static Event of(String key, long eventTimeMs, String payloadJson) {
    return new Event(key, "", eventTimeMs, "", payloadJson);
  }

  /** The event key. */
  public String key() {
    return key;
  }

  /** The event type, "" when none. */
  public String type() {
    return type;
  }

  /** The event time, epoch milliseconds (UTC): the clock a pure fold may use. */
  public long eventTimeMs() {
    return eventTimeMs;
  }

  /** The message ID text {@code ledgerId:entryId:partition:batchIndex}: the event's ledger position. */
  public String messageId() {
    return messageId;
  }

  /** The payload, a JSON object text as appended. */
  public String payloadJson() {
    return payloadJson;
  }

  /**
   * Whether the payload has a non-null field.
   *
   * @param field the field name
   * @return true when present and not JSON null
   */
  public boolean has(String field) {
    JsonNode node = field(field);
    return node != null && !node.isNull();
  }

  /**
   * A payload field as text.
   *
   * @param field the field name
   * @return the text (numbers and booleans as their JSON text), or null when missing or JSON null
   */
  public String string(String field) {
    JsonNode node = field(field);
    return node == null || node.isNull() ? null : node.isValueNode() ? node.asText() : node.toString();
  }

  /**
   * A payload field as a 64-bit integer.
   *
   * @param field the field name
   * @return the value, or null when missing, JSON null, or not an integral number (a numeric text such
   *     as {@code "12"} is read as a number)
   */
  public Long longValue(String field) {
    JsonNode node = field(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      return node.longValue();
    }
    if (node.isTextual()) {
      try {
        return Long.parseLong(node.textValue().trim());
      } catch (NumberFormatException notANumber) {
        return null;
      }
    }
    return null;
  }

  /**
   * A payload field as a double.
   *
   * @param field the field name
   * @return the value, or null when missing, JSON null or not a number (numeric texts are read)
   */
  public Double doubleValue(String field) {
    JsonNode node = field(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (node.isNumber()) {
      return node.doubleValue();
    }
    if (node.isTextual()) {
      try {
        return Double.parseDouble(node.textValue().trim());
      } catch (NumberFormatException notANumber) {
        return null;
      }
    }
    return null;
  }

  /**
   * A payload field as a boolean.
   *
   * @param field the field name
   * @return the value, or null when missing, JSON null or not {@code true}/{@code false}
   */
  public Boolean bool(String field) {
    JsonNode node = field(field);
    return node != null && node.isBoolean() ? node.booleanValue() : null;
  }

  private JsonNode field(String field) {
    if (payload == null) {
      try {
        payload = JSON.readTree(payloadJson);
      } catch (JsonProcessingException e) {
        payload = JSON.createObjectNode(); // ingestion accepts JSON objects only; be total anyway
      }
      if (payload == null || !payload.isObject()) {
        payload = JSON.createObjectNode();
      }
    }
    return payload.get(field);
  }

  @Override
  public String toString() {
    return "Event{key=" + key + ", eventTimeMs=" + eventTimeMs + ", messageId=" + messageId + ", payload="
        + payloadJson + "}";
  }
}
