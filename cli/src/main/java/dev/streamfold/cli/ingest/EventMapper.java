package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.api.v1.Event;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * Turns rows into events: the key is the text of the key field, the event time comes from the time
 * field (epoch milliseconds or ISO-8601 text, see {@link EventTimes}), the payload is the whole row as a
 * JSON object. Thread-safe.
 */
public final class EventMapper {
  private final String keyField;
  private final String timeField;

  /**
   * Create a mapper.
   *
   * @param keyField the field whose value is the event key
   * @param timeField the field whose value is the event time, or null to let the server use the
   *     ingestion time
   * @throws IllegalArgumentException if keyField is blank
   */
  public EventMapper(String keyField, String timeField) {
    Objects.requireNonNull(keyField, "keyField");
    if (keyField.isBlank()) {
      throw new IllegalArgumentException("the key field name is empty");
    }
    this.keyField = keyField;
    this.timeField = timeField == null || timeField.isBlank() ? null : timeField;
  }

  /**
   * Map one row.
   *
   * @param row the row
   * @param rowNumber its 1-based number
   * @param where the file and row for messages, e.g. {@code flights.csv row 12 (line 13)}
   * @return the event
   * @throws InputException if the key field is missing, null, empty or not a scalar, or the time field is
   *     missing or not a time (the message names the row and the field)
   */
  public Event toEvent(ObjectNode row, long rowNumber, String where) {
    JsonNode key = row.get(keyField);
    if (key == null || key.isNull() || key.isMissingNode()) {
      throw new InputException(where, rowNumber, "key field '" + keyField + "' is missing"
          + (row.has(keyField) ? " (null)" : "; fields: " + fieldNames(row)));
    }
    if (key.isContainerNode()) {
      throw new InputException(where, rowNumber, "key field '" + keyField + "' is not a scalar: " + key);
    }
    String keyText = key.asText();
    if (keyText.isEmpty()) {
      throw new InputException(where, rowNumber, "key field '" + keyField + "' is empty");
    }
    Event.Builder event = Event.newBuilder().setKey(keyText);
    if (timeField != null) {
      JsonNode time = row.get(timeField);
      if (time == null || time.isNull()) {
        throw new InputException(where, rowNumber, "time field '" + timeField + "' is missing"
            + (row.has(timeField) ? " (null)" : "; fields: " + fieldNames(row)));
      }
      try {
        event.setEventTimeMs(EventTimes.toEpochMs(time));
      } catch (IllegalArgumentException e) {
        throw new InputException(where, rowNumber, "time field '" + timeField + "': " + e.getMessage());
      }
    }
    try {
      event.setPayloadJson(Json.MAPPER.writeValueAsString(row));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    return event.build();
  }

  private static String fieldNames(ObjectNode row) {
    StringBuilder names = new StringBuilder();
    row.fieldNames().forEachRemaining(n -> names.append(names.length() == 0 ? "" : ", ").append(n));
    return names.length() == 0 ? "(none)" : names.toString();
  }
}
