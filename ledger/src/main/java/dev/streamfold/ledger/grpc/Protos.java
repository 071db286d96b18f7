package dev.streamfold.ledger.grpc;

import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.Event;
import dev.streamfold.ledger.EventEnvelope;
import dev.streamfold.ledger.StreamColumn;
import dev.streamfold.ledger.StreamInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Conversions between the wire contract and the ledger's value types. Public so that a client (the CLI) can run
 * the server's own checks ({@link dev.streamfold.ledger.EventValidator}) on events before it sends them.
 */
public final class Protos {
  private Protos() {}

  /**
   * The ledger's form of a wire event (unset fields become empty texts, an unset event time 0).
   *
   * @param e the event as sent over gRPC
   * @return the same event
   */
  public static EventEnvelope event(Event e) {
    return new EventEnvelope(e.getKey(), e.getType(), e.getEventTimeMs(), e.getPayloadJson(),
        e.getIdempotencyKey(), e.getHeadersMap());
  }

  static List<EventEnvelope> events(List<Event> events) {
    List<EventEnvelope> result = new ArrayList<>(events.size());
    for (Event e : events) {
      result.add(event(e));
    }
    return result;
  }

  /**
   * Return an upper bound of an event's serialized size without encoding its texts: a tag, a length of at
   * most 5 bytes and at most 3 bytes of UTF-8 per UTF-16 char for each of the four string fields, and at
   * most 11 bytes for the event time. An event with headers or unknown fields gets its exact size.
   *
   * @param e the event
   * @return bytes, at least {@code e.getSerializedSize()}
   */
  static long sizeAtMost(Event e) {
    if (e.getHeadersCount() > 0 || !e.getUnknownFields().asMap().isEmpty()) {
      return e.getSerializedSize();
    }
    long chars = (long) e.getKey().length() + e.getType().length() + e.getPayloadJson().length()
        + e.getIdempotencyKey().length();
    return 4 * (1 + 5) + (1 + 10) + 3 * chars;
  }

  /**
   * The ledger's form of a stream's wire columns (an empty default text means no default).
   *
   * @param columns the columns as listed over gRPC ({@code StreamInfo.columns})
   * @return the same columns, in order
   */
  public static List<StreamColumn> columns(List<Column> columns) {
    List<StreamColumn> result = new ArrayList<>();
    for (Column c : columns) {
      result.add(new StreamColumn(c.getName(), c.getType(), c.getRequired(),
          c.getDefaultJson().isEmpty() ? null : c.getDefaultJson()));
    }
    return result;
  }

  static dev.streamfold.api.v1.StreamInfo info(StreamInfo info) {
    dev.streamfold.api.v1.StreamInfo.Builder b = dev.streamfold.api.v1.StreamInfo.newBuilder()
        .setTenant(info.ref().tenant())
        .setName(info.ref().stream())
        .setTopic(info.ref().topic())
        .setEventCount(info.eventCount())
        .setWatermarkDelayMs(info.watermarkDelayMs())
        .setLatestMessageId(info.latest().map(Object::toString).orElse(""))
        .setPartitions(info.partitions())
        .setLatestPosition(info.latestPosition().toString());
    for (StreamColumn c : info.columns()) {
      b.addColumns(Column.newBuilder().setName(c.name()).setType(c.type()).setRequired(c.required())
          .setDefaultJson(c.defaultJson() == null ? "" : c.defaultJson()));
    }
    return b.build();
  }
}
