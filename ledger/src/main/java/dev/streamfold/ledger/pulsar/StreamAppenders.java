package dev.streamfold.ledger.pulsar;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.ledger.pulsar.admin.StreamTopics;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.EventValidator;
import dev.streamfold.schema.InvalidEventException;
import dev.streamfold.schema.StreamColumn;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.PulsarClient;

/**
 * The append path of {@link PulsarLedger}: validates a request whole, then hands it to its stream's
 * {@link SerialExecutor}, which sends it with the stream's {@link StreamAppender} (opened on the first append).
 * Thread-safe.
 */
final class StreamAppenders {
  private final PulsarClient client;
  private final StreamTopics topics;
  private final Function<StreamRef, StreamInfo> describe;
  private final Duration operationTimeout;
  private final Executor sendPool;
  private final Map<StreamRef, StreamAppender> appenders = new ConcurrentHashMap<>();
  /** Per stream, runs its validated append requests one at a time in arrival order on {@link #sendPool}. */
  private final Map<StreamRef, SerialExecutor> senders = new ConcurrentHashMap<>();

  /**
   * @param client the client the appenders produce with (not closed by this class)
   * @param topics the stream topics
   * @param describe describes a stream ({@link Ledger#describe}), for the columns its appender validates against
   * @param operationTimeout the appenders' longest wait for one Pulsar operation
   * @param sendPool where the requests are sent (not shut down by this class)
   */
  StreamAppenders(PulsarClient client, StreamTopics topics, Function<StreamRef, StreamInfo> describe,
      Duration operationTimeout, Executor sendPool) {
    this.client = client;
    this.topics = topics;
    this.describe = describe;
    this.operationTimeout = operationTimeout;
    this.sendPool = sendPool;
  }

  /** Append events to a stream ({@link Ledger#append}). */
  CompletableFuture<List<Appended>> append(StreamRef stream, List<EventEnvelope> events) {
    StreamAppender appender = appenders.get(stream);
    if (appender == null) {
      appender = appenders.computeIfAbsent(stream, this::open);
    }
    List<StreamColumn> columns = appender.columns();
    List<InvalidEventException> invalid = new ArrayList<>();
    int invalidEvents = 0;
    long nowMs = System.currentTimeMillis();
    // Each payload is encoded once: validated from these bytes and sent as them (docs/performance.md, session 5).
    byte[][] payloads = new byte[events.size()][];
    for (int i = 0; i < events.size(); i++) {
      String payload = events.get(i).payloadJson();
      payloads[i] = payload == null ? null : payload.getBytes(StandardCharsets.UTF_8);
      try {
        EventValidator.check(i, events.get(i), payloads[i], columns, nowMs);
      } catch (InvalidEventException e) {
        invalidEvents++;
        if (invalid.size() < InvalidEventException.MAX_LISTED) {
          invalid.add(e);
        }
      }
    }
    if (!invalid.isEmpty()) {
      throw InvalidEventException.ofRequest(invalid, invalidEvents, events.size());
    }
    // Send on the stream's sender, in the order requests got here, so that the caller (a gRPC call's only
    // thread) parses and validates its next request while this one is sent (docs/performance.md, "Ingest: one
    // future per request, a sender per stream").
    StreamAppender validatedFor = appender;
    Executor sender = senders.computeIfAbsent(stream, s -> new SerialExecutor(sendPool));
    return CompletableFuture.supplyAsync(() -> validatedFor.append(events, payloads), sender).thenCompose(appended -> appended);
  }

  private StreamAppender open(StreamRef stream) {
    StreamInfo info = describe.apply(stream);
    try {
      return new StreamAppender(client, stream, info.columns(), topics.physicalTopics(stream), operationTimeout);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot open an appender on stream " + stream, e);
    }
  }

  /** Close a stream's appender, if open: the next append opens one that validates against its columns then. */
  void discard(StreamRef stream) {
    StreamAppender appender = appenders.remove(stream);
    if (appender != null) {
      appender.close();
    }
  }

  /** Advance the high-water mark of every open appender's idempotency index. */
  void advanceHighWaterMarks() {
    appenders.values().forEach(StreamAppender::advanceHighWaterMark);
  }

  /** Close every open appender. */
  void close() {
    appenders.values().forEach(StreamAppender::close);
  }
}
