package dev.streamfold.ledger.grpc;

import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.Event;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.FromWire;
import dev.streamfold.schema.StreamColumn;
import java.util.ArrayList;
import java.util.List;

/**
 * Conversions between the wire contract and the ledger's value types. Public so that a client (the CLI) can run
 * the server's own checks ({@link dev.streamfold.schema.EventValidator}) on events before it sends them.
 */
final class Protos {
  private Protos() {}

  static List<EventEnvelope> events(List<Event> events) {
    List<EventEnvelope> result = new ArrayList<>(events.size());
    for (Event e : events) {
      result.add(FromWire.event(e));
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
