package dev.streamfold.ledger.pulsar;

import dev.streamfold.ledger.EventEnvelope;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.MessageIdText;
import dev.streamfold.ledger.StreamRef;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/**
 * Which client idempotency keys a stream already holds, and at which message ID. Kept in memory and,
 * durably, in the compacted topic {@code persistent://<tenant>/system/idempotency.<stream>} (entries
 * {@code k:<key>} → message ID text, and a high-water mark {@code hwm}: every keyed event of the stream
 * up to that position is in the index; for a partitioned stream the position is a vector, one message ID
 * per partition, joined by ',').
 *
 * <p>An index entry is written after the event is acknowledged by Pulsar, so a crash can lose the
 * entries of the last moments; {@link #open} therefore also reads the stream itself after the
 * high-water mark and indexes the keys it finds in the events' {@code sf.idempotency-key} property.
 * The event is the truth; the index is a cache of it that always catches up before an append.
 */
final class IdempotencyIndex implements AutoCloseable {
  static final String ENTRY_PREFIX = "k:";
  static final String HWM_KEY = "hwm";

  private final StreamRef stream;
  private final Producer<byte[]> producer;
  private final Map<String, CompletableFuture<MessageIdText>> byKey = new ConcurrentHashMap<>();
  private final AtomicInteger pendingWrites = new AtomicInteger();
  private final Map<Integer, MessageIdText> lastAcked = new ConcurrentHashMap<>();
  private final Map<Integer, MessageIdText> indexedUpTo = new ConcurrentHashMap<>();
  private final Map<Integer, MessageIdText> writtenHwm = new java.util.TreeMap<>();

  private IdempotencyIndex(StreamRef stream, Producer<byte[]> producer) {
    this.stream = stream;
    this.producer = producer;
  }

  static String topic(StreamRef stream) {
    return "persistent://" + stream.tenant() + "/" + StreamRef.SYSTEM_NAMESPACE + "/idempotency." + stream.stream();
  }

  /**
   * Load the index of a stream: the compacted topic, then the stream's events after the high-water mark.
   *
   * @param client Pulsar client
   * @param stream the stream
   * @param topics the stream's topics: its own, or each partition's in partition order
   * @param timeoutMs longest wait for one read, milliseconds
   * @return the index, caught up with the stream
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  static IdempotencyIndex open(PulsarClient client, StreamRef stream, java.util.List<String> topics, long timeoutMs) {
    try {
      Producer<byte[]> producer = client.newProducer(Schema.BYTES).topic(topic(stream))
          .enableBatching(true).batchingMaxPublishDelay(5, TimeUnit.MILLISECONDS).blockIfQueueFull(true).create();
      IdempotencyIndex index = new IdempotencyIndex(stream, producer);
      Map<Integer, MessageIdText> hwm = new java.util.TreeMap<>();
      try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic(stream))
          .startMessageId(MessageId.earliest).readCompacted(true).create()) {
        while (reader.hasMessageAvailable()) {
          Message<byte[]> m = reader.readNext((int) timeoutMs, TimeUnit.MILLISECONDS);
          if (m == null || !m.hasKey()) {
            continue;
          }
          String value = new String(m.getValue(), StandardCharsets.UTF_8);
          if (m.getKey().equals(HWM_KEY)) {
            hwm.clear();
            for (String id : value.split(",")) {
              MessageIdText parsed = MessageIdText.parse(id);
              hwm.put(parsed.partition(), parsed);
            }
          } else if (m.getKey().startsWith(ENTRY_PREFIX)) {
            index.byKey.put(m.getKey().substring(ENTRY_PREFIX.length()),
                CompletableFuture.completedFuture(MessageIdText.parse(value)));
          }
        }
      }
      Map<Integer, MessageIdText> scannedUpTo = new java.util.TreeMap<>(hwm);
      for (int p = 0; p < topics.size(); p++) {
        int partition = topics.size() == 1 && topics.get(0).equals(stream.topic()) ? -1 : p;
        MessageIdText last = index.catchUp(client, topics.get(p), partition,
            Optional.ofNullable(hwm.get(partition)), timeoutMs);
        if (last != null) {
          scannedUpTo.put(partition, last);
        }
      }
      producer.flush();
      if (!scannedUpTo.equals(hwm)) {
        index.writeHwm(scannedUpTo).get(timeoutMs, TimeUnit.MILLISECONDS);
      }
      return index;
    } catch (Exception e) {
      throw new LedgerException.Unavailable("cannot load the idempotency index of stream " + stream, e);
    }
  }

  /** Index the keyed events of one topic of the stream after {@code hwm}; returns the last event read, or null. */
  private MessageIdText catchUp(PulsarClient client, String topic, int partition, Optional<MessageIdText> hwm,
      long timeoutMs) throws Exception {
    MessageIdText last = null;
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic)
        .startMessageId(hwm.map(PulsarMessageIds::toPulsar).orElse(MessageId.earliest)).create()) {
      while (reader.hasMessageAvailable()) {
        Message<byte[]> m = reader.readNext((int) timeoutMs, TimeUnit.MILLISECONDS);
        if (m == null) {
          break;
        }
        last = PulsarMessageIds.toText(m.getMessageId(), partition);
        String key = m.getProperty(EventEnvelope.IDEMPOTENCY_KEY_PROPERTY);
        if (key != null && !byKey.containsKey(key)) {
          byKey.put(key, CompletableFuture.completedFuture(last));
          writeEntry(key, last);
        }
      }
    }
    return last;
  }

  /**
   * Return the append of an idempotency key already stored or under way.
   *
   * @param key the key
   * @return its (possibly pending) message ID, or null when the key is new
   */
  CompletableFuture<MessageIdText> lookup(String key) {
    return byKey.get(key);
  }

  /**
   * Record the append of a new key; its index entry is written once the event is acknowledged. A failed
   * append forgets the key, so a retry appends it.
   *
   * @param key the key
   * @param append the event's append
   */
  void register(String key, CompletableFuture<MessageIdText> append) {
    byKey.put(key, append);
    pendingWrites.incrementAndGet();
    append.whenComplete((id, error) -> {
      if (error != null) {
        byKey.remove(key, append);
        pendingWrites.decrementAndGet();
        return;
      }
      writeEntry(key, id).whenComplete((ok, writeError) -> {
        if (writeError == null) {
          indexedUpTo.put(id.partition(), id);
        }
        pendingWrites.decrementAndGet();
      });
    });
  }

  /** Note that an event (keyed or not) was acknowledged; calls come in ledger order within a partition. */
  void acked(MessageIdText id) {
    lastAcked.put(id.partition(), id);
  }

  /**
   * Advance the durable high-water mark as far as is safe: to the latest acknowledged event when no
   * index entry is being written, else to the latest event whose entry was written (entries complete
   * in ledger order).
   */
  synchronized void advanceHighWaterMark() {
    Map<Integer, MessageIdText> candidate = new java.util.TreeMap<>(writtenHwm);
    boolean advanced = false;
    for (Map.Entry<Integer, MessageIdText> e : (pendingWrites.get() == 0 ? lastAcked : indexedUpTo).entrySet()) {
      MessageIdText written = writtenHwm.get(e.getKey());
      if (written == null || e.getValue().compareTo(written) > 0) {
        candidate.put(e.getKey(), e.getValue());
        advanced = true;
      }
    }
    if (advanced) {
      writeHwm(candidate);
    }
  }

  private CompletableFuture<MessageId> writeEntry(String key, MessageIdText id) {
    return producer.newMessage().key(ENTRY_PREFIX + key).value(id.toString().getBytes(StandardCharsets.UTF_8))
        .sendAsync();
  }

  private synchronized CompletableFuture<MessageId> writeHwm(Map<Integer, MessageIdText> position) {
    writtenHwm.clear();
    writtenHwm.putAll(position);
    String text = String.join(",", position.values().stream().map(Object::toString).toList());
    return producer.newMessage().key(HWM_KEY).value(text.getBytes(StandardCharsets.UTF_8)).sendAsync();
  }

  /** Keys known, for tests and metrics. */
  int size() {
    return byKey.size();
  }

  @Override
  public void close() {
    try {
      advanceHighWaterMark();
      producer.flush();
    } catch (PulsarClientException | RuntimeException ignored) {
      // the next open catches up from the stream
    }
    producer.closeAsync();
  }
}
