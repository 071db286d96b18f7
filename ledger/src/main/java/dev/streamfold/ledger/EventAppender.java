package dev.streamfold.ledger;

import dev.streamfold.core.StreamRef;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.EventValidator;
import dev.streamfold.schema.InvalidEventException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Appends events to the streams of the ledger. Part of {@link Ledger}. Thread-safe. */
public interface EventAppender {

  /**
   * Append events to a stream, in order, after checking each with {@link EventValidator}. Nothing is
   * appended when any event is invalid. An event whose idempotency key the stream already holds is not
   * appended again (also across restarts): it is answered with the first append's message ID, and the
   * other events of its request are appended as usual. A key the stream holds for another event (its key,
   * type, event time, payload or headers differ) fails the whole request instead, as does one key used for
   * two different events of one request.
   *
   * @param stream the stream
   * @param events the events, in order
   * @return a future of one outcome per event, in event order, completed once every event is durable; it
   *     fails with {@link InvalidEventException} (field {@code idempotency_key}) when a key is reused for
   *     another event, nothing of the request appended
   * @throws InvalidEventException if an event is malformed (thrown, not in the future)
   * @throws LedgerException.StreamNotFound if the stream does not exist (thrown)
   */
  CompletableFuture<List<Appended>> append(StreamRef stream, List<EventEnvelope> events);
}
