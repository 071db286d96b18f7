package dev.streamfold.ledger.grpc;

import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.Event;
import dev.streamfold.ledger.EventEnvelope;
import dev.streamfold.ledger.StreamColumn;
import dev.streamfold.ledger.StreamInfo;
import java.util.ArrayList;
import java.util.List;

/** Conversions between the wire contract and the ledger's value types. */
final class Protos {
  private Protos() {}

  static EventEnvelope event(Event e) {
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

  static List<StreamColumn> columns(List<Column> columns) {
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
        .setLatestPosition(info.latestPositionText());
    for (StreamColumn c : info.columns()) {
      b.addColumns(Column.newBuilder().setName(c.name()).setType(c.type()).setRequired(c.required())
          .setDefaultJson(c.defaultJson() == null ? "" : c.defaultJson()));
    }
    return b.build();
  }
}
