package dev.streamfold.schema;

import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.Event;
import java.util.ArrayList;
import java.util.List;

/**
 * Conversions from the wire contract (api-proto) to the schema's value types, so that the server and a client
 * (the CLI) check an event with the same code ({@link EventValidator}) before it is stored or sent.
 */
public final class FromWire {
  private FromWire() {}

  /**
   * The schema's form of a wire event (unset fields become empty texts, an unset event time 0).
   *
   * @param e the event as sent over gRPC
   * @return the same event
   */
  public static EventEnvelope event(Event e) {
    return new EventEnvelope(e.getKey(), e.getType(), e.getEventTimeMs(), e.getPayloadJson(),
        e.getIdempotencyKey(), e.getHeadersMap());
  }

  /**
   * The schema's form of a stream's wire columns (an empty default text means no default).
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
}
