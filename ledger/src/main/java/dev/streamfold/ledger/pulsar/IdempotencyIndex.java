package dev.streamfold.ledger.pulsar;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import dev.streamfold.schema.EventEnvelope;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/**
 * Which client idempotency keys a stream already holds, at which message ID, and for which event (its
 * {@linkplain #fingerprint fingerprint}). Kept in memory and, durably, in the compacted topic
 * {@code persistent://<tenant>/system/idempotency.<stream>} (entries {@code k:<key>} → {@code <message ID>
 * <fingerprint>}, the fingerprint missing for events stored before fingerprints existed, and a high-water
 * mark {@code hwm}: every keyed event of the stream up to that position is in the index; for a partitioned
 * stream the position is a vector, one message ID per partition, joined by ',').
 *
 * <p>An index entry is written after the event is acknowledged by Pulsar, so a crash can lose the
 * entries of the last moments; {@link #open} therefore also reads the stream itself after the
 * high-water mark and indexes the keys it finds in the events' {@code sf.idempotency-key} property, with
 * their {@code sf.fingerprint}. The event is the truth; the index is a cache of it that always catches up
 * before an append.
 */
final class IdempotencyIndex implements AutoCloseable {
  static final String ENTRY_PREFIX = "k:";
  static final String HWM_KEY = "hwm";

  private final StreamRef stream;
  private final Producer<byte[]> producer;
  private final Map<String, Known> byKey = new ConcurrentHashMap<>();
  private final AtomicInteger pendingWrites = new AtomicInteger();
  private final Map<Integer, MessageId> lastAcked = new ConcurrentHashMap<>();
  private final Map<Integer, MessageId> indexedUpTo = new ConcurrentHashMap<>();
  private final Map<Integer, MessageId> writtenHwm = new java.util.TreeMap<>();

  /**
   * An idempotency key the stream holds or is appending.
   *
   * @param messageId the message ID of its event (pending while the append runs)
   * @param fingerprint its event's {@link #fingerprint}; null for an event stored before fingerprints existed
   */
  record Known(CompletableFuture<MessageId> messageId, String fingerprint) {
    /**
     * Tell whether an event with this key and {@code fingerprint} is another event than the one stored.
     *
     * @param fingerprint the new event's fingerprint
     * @return true when both fingerprints are known and differ
     */
    boolean conflictsWith(String fingerprint) {
      return this.fingerprint != null && !this.fingerprint.equals(fingerprint);
    }
  }

  /**
   * What identifies an event as its client sent it: SHA-256 over its key, type, event time (0 when the client
   * left it to the append time), payload bytes and headers (sorted by name), each length-prefixed; the first
   * 16 bytes, as 32 hex digits. Two sends of one event give the same fingerprint; a retry that changes any of
   * them does not.
   *
   * @param event the event
   * @param payload its payload as UTF-8 (what is stored)
   * @return the fingerprint
   */
  static String fingerprint(EventEnvelope event, byte[] payload) {
    java.security.MessageDigest sha;
    try {
      sha = java.security.MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
    java.nio.ByteBuffer number = java.nio.ByteBuffer.allocate(8);
    digestText(sha, number, event.key());
    digestText(sha, number, event.type());
    sha.update(number.clear().putLong(event.eventTimeMs()).array());
    sha.update(number.clear().putLong(payload.length).array());
    sha.update(payload);
    java.util.SortedMap<String, String> headers = new java.util.TreeMap<>(event.headers());
    sha.update(number.clear().putLong(headers.size()).array());
    for (Map.Entry<String, String> header : headers.entrySet()) {
      digestText(sha, number, header.getKey());
      digestText(sha, number, header.getValue());
    }
    return java.util.HexFormat.of().formatHex(sha.digest(), 0, 16);
  }

  private static void digestText(java.security.MessageDigest sha, java.nio.ByteBuffer number, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    sha.update(number.clear().putLong(bytes.length).array());
    sha.update(bytes);
  }

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
      Map<Integer, MessageId> hwm = new java.util.TreeMap<>();
      try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic(stream))
          .startMessageId(org.apache.pulsar.client.api.MessageId.earliest).readCompacted(true).create()) {
        while (reader.hasMessageAvailable()) {
          Message<byte[]> m = reader.readNext((int) timeoutMs, TimeUnit.MILLISECONDS);
          if (m == null || !m.hasKey()) {
            continue;
          }
          String value = new String(m.getValue(), StandardCharsets.UTF_8);
          if (m.getKey().equals(HWM_KEY)) {
            hwm.clear();
            for (String id : value.split(",")) {
              MessageId parsed = MessageId.parse(id);
              hwm.put(parsed.partition(), parsed);
            }
          } else if (m.getKey().startsWith(ENTRY_PREFIX)) {
            int space = value.indexOf(' '); // "<message ID> <fingerprint>", or the message ID alone (older entries)
            index.byKey.put(m.getKey().substring(ENTRY_PREFIX.length()), new Known(
                CompletableFuture.completedFuture(MessageId.parse(space < 0 ? value : value.substring(0, space))),
                space < 0 ? null : value.substring(space + 1)));
          }
        }
      }
      Map<Integer, MessageId> scannedUpTo = new java.util.TreeMap<>(hwm);
      for (int p = 0; p < topics.size(); p++) {
        int partition = topics.size() == 1 && topics.get(0).equals(stream.topic()) ? -1 : p;
        MessageId last = index.catchUp(client, topics.get(p), partition,
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
  private MessageId catchUp(PulsarClient client, String topic, int partition, Optional<MessageId> hwm,
      long timeoutMs) throws Exception {
    MessageId last = null;
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic)
        .startMessageId(hwm.map(PulsarMessageIds::toPulsar).orElse(org.apache.pulsar.client.api.MessageId.earliest)).create()) {
      while (reader.hasMessageAvailable()) {
        Message<byte[]> m = reader.readNext((int) timeoutMs, TimeUnit.MILLISECONDS);
        if (m == null) {
          break;
        }
        last = PulsarMessageIds.toText(m.getMessageId(), partition);
        String key = m.getProperty(EventEnvelope.IDEMPOTENCY_KEY_PROPERTY);
        if (key != null && !byKey.containsKey(key)) {
          String fingerprint = m.getProperty(EventEnvelope.FINGERPRINT_PROPERTY);
          byKey.put(key, new Known(CompletableFuture.completedFuture(last), fingerprint));
          writeEntry(key, last, fingerprint);
        }
      }
    }
    return last;
  }

  /**
   * Return the append of an idempotency key already stored or under way.
   *
   * @param key the key
   * @return its (possibly pending) message ID and its event's fingerprint, or null when the key is new
   */
  Known lookup(String key) {
    return byKey.get(key);
  }

  /**
   * Record the append of a new key; its index entry is written once the event is acknowledged. A failed
   * append forgets the key, so a retry appends it.
   *
   * @param key the key
   * @param fingerprint the event's {@link #fingerprint}
   * @param append the event's append
   */
  void register(String key, String fingerprint, CompletableFuture<MessageId> append) {
    Known known = new Known(append, fingerprint);
    byKey.put(key, known);
    pendingWrites.incrementAndGet();
    append.whenComplete((id, error) -> {
      if (error != null) {
        byKey.remove(key, known);
        pendingWrites.decrementAndGet();
        return;
      }
      writeEntry(key, id, fingerprint).whenComplete((ok, writeError) -> {
        if (writeError == null) {
          indexedUpTo.put(id.partition(), id);
        }
        pendingWrites.decrementAndGet();
      });
    });
  }

  /** Note that an event (keyed or not) was acknowledged; calls come in ledger order within a partition. */
  void acked(MessageId id) {
    lastAcked.put(id.partition(), id);
  }

  /**
   * Advance the durable high-water mark as far as is safe: to the latest acknowledged event when no
   * index entry is being written, else to the latest event whose entry was written (entries complete
   * in ledger order).
   */
  synchronized void advanceHighWaterMark() {
    Map<Integer, MessageId> candidate = new java.util.TreeMap<>(writtenHwm);
    boolean advanced = false;
    for (Map.Entry<Integer, MessageId> e : (pendingWrites.get() == 0 ? lastAcked : indexedUpTo).entrySet()) {
      MessageId written = writtenHwm.get(e.getKey());
      if (written == null || e.getValue().compareTo(written) > 0) {
        candidate.put(e.getKey(), e.getValue());
        advanced = true;
      }
    }
    if (advanced) {
      writeHwm(candidate);
    }
  }

  private CompletableFuture<org.apache.pulsar.client.api.MessageId> writeEntry(String key, MessageId id, String fingerprint) {
    String value = fingerprint == null ? id.toString() : id + " " + fingerprint;
    return producer.newMessage().key(ENTRY_PREFIX + key).value(value.getBytes(StandardCharsets.UTF_8)).sendAsync();
  }

  private synchronized CompletableFuture<org.apache.pulsar.client.api.MessageId> writeHwm(Map<Integer, MessageId> position) {
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
