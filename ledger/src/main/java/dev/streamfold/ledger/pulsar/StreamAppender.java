package dev.streamfold.ledger.pulsar;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.InvalidEventException;
import dev.streamfold.schema.StreamColumn;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.TypedMessageBuilder;

/**
 * The appender of one stream: a batched, named producer ({@value PulsarLedger#PRODUCER_NAME}) that gives
 * consecutive sequence ids in append order, and the stream's {@link IdempotencyIndex}. An event whose
 * idempotency key the stream already holds (or is appending right now) is not sent again: it is
 * answered with the first append's message ID. Thread-safe; appends are ordered by a lock held only
 * while enqueueing.
 */
final class StreamAppender {
  private final PulsarClient client;
  private final StreamRef stream;
  private final List<StreamColumn> columns;
  private final List<String> topics;
  private final Duration timeout;
  private Producer<byte[]> producer;
  private IdempotencyIndex index;
  private long nextSequenceId;

  /**
   * @param topics the stream's topics: its own, or each partition's in partition order
   */
  StreamAppender(PulsarClient client, StreamRef stream, List<StreamColumn> columns, List<String> topics,
      Duration timeout) {
    this.client = client;
    this.stream = stream;
    this.columns = columns;
    this.topics = topics;
    this.timeout = timeout;
  }

  List<StreamColumn> columns() {
    return columns;
  }

  private void open() throws PulsarClientException {
    if (index == null) {
      index = IdempotencyIndex.open(client, stream, topics, timeout.toMillis());
    }
    producer = client.newProducer(Schema.BYTES)
        .topic(stream.topic())
        .producerName(PulsarLedger.PRODUCER_NAME)
        .enableBatching(true)
        .batchingMaxMessages(1000)
        .batchingMaxPublishDelay(1, TimeUnit.MILLISECONDS)
        .blockIfQueueFull(true)
        // Partitioned streams: a keyed event goes to murmur3_32(key) mod partitions, so one key's events
        // stay in one partition in append order; events without a key are spread round-robin.
        .hashingScheme(org.apache.pulsar.client.api.HashingScheme.Murmur3_32Hash)
        .messageRoutingMode(org.apache.pulsar.client.api.MessageRoutingMode.RoundRobinPartition)
        .sendTimeout((int) timeout.toSeconds(), TimeUnit.SECONDS)
        .create();
    nextSequenceId = producer.getLastSequenceId() + 1;
  }

  /**
   * Append validated events in order. An event whose idempotency key the stream holds for another event (a
   * different {@linkplain IdempotencyIndex#fingerprint fingerprint}: key, type, event time, payload or
   * headers), or that an earlier event of the same request uses for another event, is refused with the whole
   * request: answering it as a repeat would acknowledge an event that is never stored (the IETF
   * Idempotency-Key draft, section 2.7, and Stripe refuse such a reuse likewise).
   *
   * @param events the events
   * @param payloads per event, its payload as UTF-8 (what was validated)
   * @return per event its message ID (the original one for a repeated idempotency key) and whether it
   *     was such a repeat, completed once every new event is durable
   * @throws InvalidEventException (field {@code idempotency_key}) if a key is reused for another event;
   *     nothing of the request is appended
   * @throws LedgerException.Unavailable if the producer or the index cannot be opened
   */
  synchronized CompletableFuture<List<Appended>> append(List<EventEnvelope> events, byte[][] payloads) {
    try {
      if (producer == null) {
        open();
      }
    } catch (PulsarClientException e) {
      throw new LedgerException.Unavailable("cannot open a producer on stream " + stream, e);
    }
    // One future per request (RequestAcks), not a chain per event: per-event thenApply and allOf over
    // every event were a large share of ingestion's CPU (docs/performance.md, "Ingest: one future per request, a
    // sender per stream").
    int n = events.size();
    @SuppressWarnings("unchecked")
    CompletableFuture<org.apache.pulsar.client.api.MessageId>[] sent = new CompletableFuture[n];
    @SuppressWarnings("unchecked")
    CompletableFuture<MessageId>[] repeated = new CompletableFuture[n];
    int lastSent = -1;
    long now = System.currentTimeMillis();
    String[] fingerprints = fingerprints(events, payloads);
    try {
      for (int i = 0; i < n; i++) {
        EventEnvelope event = events.get(i);
        String key = event.idempotencyKey();
        if (!key.isEmpty()) {
          IdempotencyIndex.Known earlier = index.lookup(key);
          if (earlier != null) {
            repeated[i] = earlier.messageId();
            continue;
          }
        }
        sent[i] = send(event, payloads[i], fingerprints == null ? null : fingerprints[i], now);
        lastSent = i;
        if (!key.isEmpty()) {
          // only keyed events pay for a chain
          index.register(key, fingerprints[i], sent[i].thenApply(PulsarMessageIds::toText));
        }
      }
    } catch (LedgerException | InvalidEventException e) {
      throw e;
    } catch (RuntimeException e) {
      // The Pulsar client can also fail a send synchronously, e.g. IllegalStateException "Object has been
      // recycled already" while it fails pending sends after broker persistence errors (apache/pulsar#11783
      // describes the same race). The request is not acknowledged, like an asynchronous send failure: the
      // client retries it (idempotency keys make that exactly-once).
      resetAfterFailure();
      throw new LedgerException.Unavailable("append to stream " + stream + " failed", e);
    }
    IdempotencyIndex acking = index;
    return RequestAcks.of(sent, repeated, lastSent).handle((appended, error) -> {
      if (error != null) {
        resetAfterFailure();
        throw new LedgerException.Unavailable("append to stream " + stream + " failed", unwrap(error));
      }
      // The last sent event of each partition (requests complete in ledger order within a partition).
      java.util.Set<Integer> seen = new java.util.HashSet<>();
      for (int i = appended.size() - 1; i >= 0 && seen.size() < topics.size(); i--) {
        Appended a = appended.get(i);
        if (!a.repeat() && seen.add(a.messageId().partition())) {
          acking.acked(a.messageId());
        }
      }
      return appended;
    });
  }

  /**
   * The fingerprints of the request's keyed events (null entries for the others; null when no event has a
   * key), after checking that no key is reused for another event, against the index and within the request.
   */
  private String[] fingerprints(List<EventEnvelope> events, byte[][] payloads) {
    String[] fingerprints = null;
    java.util.Map<String, Integer> firstInRequest = null;
    List<InvalidEventException> reused = new java.util.ArrayList<>();
    int reusedEvents = 0;
    for (int i = 0; i < events.size(); i++) {
      String key = events.get(i).idempotencyKey();
      if (key.isEmpty()) {
        continue;
      }
      if (fingerprints == null) {
        fingerprints = new String[events.size()];
        firstInRequest = new java.util.HashMap<>();
      }
      fingerprints[i] = IdempotencyIndex.fingerprint(events.get(i), payloads[i]);
      IdempotencyIndex.Known stored = index.lookup(key);
      Integer first = firstInRequest.putIfAbsent(key, i);
      String reason = null;
      if (stored != null && stored.conflictsWith(fingerprints[i])) {
        MessageId at = stored.messageId().getNow(null);
        reason = "was already used for another event" + (at == null ? " (being appended now)" : " at message ID " + at);
      } else if (stored == null && first != null && !fingerprints[first].equals(fingerprints[i])) {
        reason = "is used by event " + first + " of this request for another event";
      }
      if (reason != null) {
        reusedEvents++;
        if (reused.size() < InvalidEventException.MAX_LISTED) {
          reused.add(new InvalidEventException(i, "idempotency_key", reason
              + ": its key, type, event time, payload or headers differ; a retry must resend the same event, and a"
              + " new event needs a new key"));
        }
      }
    }
    if (!reused.isEmpty()) {
      throw InvalidEventException.ofRequest(reused, reusedEvents, events.size());
    }
    return fingerprints;
  }

  private CompletableFuture<org.apache.pulsar.client.api.MessageId> send(EventEnvelope event, byte[] payload,
      String fingerprint, long now) {
    TypedMessageBuilder<byte[]> message = producer.newMessage()
        .key(event.key())
        .eventTime(event.eventTimeMs() > 0 ? event.eventTimeMs() : now)
        .sequenceId(nextSequenceId++)
        .value(payload);
    if (!event.headers().isEmpty()) {
      message.properties(event.headers());
    }
    if (!event.type().isEmpty()) {
      message.property(EventEnvelope.TYPE_PROPERTY, event.type());
    }
    if (!event.idempotencyKey().isEmpty()) {
      message.property(EventEnvelope.IDEMPOTENCY_KEY_PROPERTY, event.idempotencyKey());
      message.property(EventEnvelope.FINGERPRINT_PROPERTY, fingerprint);
    }
    return message.sendAsync();
  }

  /** After a failed send, reopen so sequence ids continue from what the broker persisted. */
  private synchronized void resetAfterFailure() {
    if (producer != null) {
      producer.closeAsync();
      producer = null;
    }
  }

  void advanceHighWaterMark() {
    IdempotencyIndex current = index;
    if (current != null) {
      current.advanceHighWaterMark();
    }
  }

  /** Flush and close; waits until the broker released the producer name, so a new appender can take it. */
  synchronized void close() {
    if (producer != null) {
      try {
        producer.flush();
        producer.close();
      } catch (PulsarClientException ignored) {
        // closing anyway
      }
      producer = null;
    }
    if (index != null) {
      index.close();
    }
  }

  private static Throwable unwrap(Throwable error) {
    while (error instanceof CompletionException && error.getCause() != null) {
      error = error.getCause();
    }
    return error;
  }
}
