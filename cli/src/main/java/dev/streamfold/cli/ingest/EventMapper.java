package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.Event;
import dev.streamfold.schema.EventValidator;
import dev.streamfold.schema.FromWire;
import dev.streamfold.schema.InvalidEventException;
import dev.streamfold.schema.StreamColumn;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/**
 * Turns rows into events: the key is the text of the key field, the event time comes from the time
 * field (epoch milliseconds or ISO-8601 text, see {@link EventTimes}), the payload is the whole row as a
 * JSON object. Given the stream's columns, each event is also checked as the server will check it ({@link
 * EventValidator}, the server's own code): a row the server would refuse (a value of the wrong type for its
 * column, a {@code NOT NULL} column missing, a field over a size limit) is then a bad row like a malformed
 * one, named by its row, instead of failing the whole request it travels in. Thread-safe.
 */
public final class EventMapper {
  private final String keyField;
  private final String timeField;
  /** The stream's declared columns, or null to leave every check of the payload to the server. */
  private final List<StreamColumn> columns;

  /**
   * Create a mapper that leaves the checks of the payload to the server, except that a text holding a lone UTF-16
   * surrogate is refused (the server cannot see it: the wire would carry it as {@code ?}).
   *
   * @see #EventMapper(String, String, List)
   */
  public EventMapper(String keyField, String timeField) {
    this(keyField, timeField, null);
  }

  /**
   * Create a mapper.
   *
   * @param keyField the field whose value is the event key
   * @param timeField the field whose value is the event time, or null to let the server use the
   *     ingestion time
   * @param columns the stream's declared columns (possibly empty) to check each event against before it is
   *     sent, with the server's checks and this machine's clock; null to leave those checks to the server (a lone
   *     UTF-16 surrogate in the key or payload is refused either way)
   * @throws IllegalArgumentException if keyField is blank
   */
  public EventMapper(String keyField, String timeField, List<StreamColumn> columns) {
    Objects.requireNonNull(keyField, "keyField");
    if (keyField.isBlank()) {
      throw new IllegalArgumentException("the key field name is empty");
    }
    this.keyField = keyField;
    this.timeField = timeField == null || timeField.isBlank() ? null : timeField;
    this.columns = columns == null ? null : List.copyOf(columns);
  }
  /**
   * Create a mapper that checks each event against a stream's columns as the server describes them.
   *
   * @param keyField the field whose value is the event key
   * @param timeField the field whose value is the event time, or null to let the server use the ingestion time
   * @param columns the stream's columns from its {@code StreamInfo} (possibly empty)
   * @return the mapper
   * @throws IllegalArgumentException if keyField is blank
   */
  public static EventMapper forStream(String keyField, String timeField, List<Column> columns) {
    return new EventMapper(keyField, timeField, FromWire.columns(columns));
  }


  /**
   * Map one row.
   *
   * @param row the row
   * @param rowNumber its 1-based number
   * @param where the file and row for messages, e.g. {@code flights.csv row 12 (line 13)}
   * @return the event
   * @throws InputException if the key field is missing, null, empty or not a scalar, or the time field is
   *     missing or not a time, or (given the stream's columns) the server would refuse the event, or its key or
   *     payload holds a lone UTF-16 surrogate (from a JSON escape such as <code>&#92;ud800</code>); the message
   *     names the row and the field, e.g. {@code field 'payload_json.delay' must be INT, got text}
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
    Event built = event.build();
    // Without the stream's columns, a text holding a UTF-16 surrogate is still checked with the server's checks:
    // a lone one (from a JSON escape such as backslash-ud800) would be sent as '?' by protobuf and stored so, where the
    // server can no longer see it.
    if (columns != null || hasSurrogate(keyText) || hasSurrogate(built.getPayloadJson())) {
      try {
        EventValidator.check(0, FromWire.event(built), columns == null ? List.of() : columns, System.currentTimeMillis());
      } catch (InvalidEventException refused) {
        throw new InputException(where, rowNumber, "field '" + refused.field() + "' " + refused.reason());
      }
    }
    return built;
  }

  private static boolean hasSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isSurrogate(text.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private static String fieldNames(ObjectNode row) {
    StringBuilder names = new StringBuilder();
    row.fieldNames().forEachRemaining(n -> names.append(names.length() == 0 ? "" : ", ").append(n));
    return names.length() == 0 ? "(none)" : names.toString();
  }
}
