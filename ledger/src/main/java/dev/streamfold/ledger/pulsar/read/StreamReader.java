package dev.streamfold.ledger.pulsar.read;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.StoredEvent;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.ledger.pulsar.admin.StreamTopics;
import dev.streamfold.ledger.pulsar.common.OffloadReadRace;
import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import dev.streamfold.ledger.pulsar.storage.TieredStorageAdmin;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/**
 * Reads a stream's events with Pulsar readers, wherever they are stored (BookKeeper or tiered storage): in
 * ledger order, at an exact message ID, and the latest one of each partition (for {@link #describe}). A read
 * that fails names where the next events are stored. Part of {@link PulsarLedger}. Thread-safe.
 */
public final class StreamReader {
  private final PulsarClient client;
  private final StreamTopics topics;
  private final TieredStorageAdmin storage;
  private final Duration operationTimeout;

  /**
   * Create the reader.
   *
   * @param client the client it opens readers on (not closed by this class)
   * @param topics the stream topics
   * @param storage where a stream's segments are stored, named in errors
   * @param operationTimeout longest wait for the latest event of a topic ({@link #describe})
   */
  public StreamReader(PulsarClient client, StreamTopics topics, TieredStorageAdmin storage, Duration operationTimeout) {
    this.client = client;
    this.topics = topics;
    this.storage = storage;
    this.operationTimeout = operationTimeout;
  }

  /**
   * Describe a stream ({@link Ledger#describe}): its columns and watermark delay (topic properties), and the
   * latest message of each partition (a reader per partition).
   *
   * @throws LedgerException.StreamNotFound if it does not exist
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public StreamInfo describe(StreamRef stream) {
    try {
      Map<String, String> props = topics.properties(stream);
      List<StreamColumn> columns = StreamTopics.columns(props);
      long delay = Long.parseLong(props.getOrDefault(StreamTopics.WATERMARK_DELAY_PROPERTY, "0"));
      int partitions = topics.partitions(stream);
      List<MessageId> latestPositions = new ArrayList<>();
      Message<byte[]> newest = null;
      int newestIndex = -1;
      List<String> physical = topics.physicalTopics(stream);
      for (int p = 0; p < physical.size(); p++) {
        Optional<Message<byte[]>> last = lastMessage(stream, physical.get(p), partitions == 0 ? -1 : p);
        if (last.isPresent()) {
          latestPositions.add(PulsarMessageIds.toText(last.get().getMessageId(), partitions == 0 ? -1 : p));
          if (newest == null || last.get().getSequenceId() > newest.getSequenceId()) {
            newest = last.get();
            newestIndex = partitions == 0 ? -1 : p;
          }
        }
      }
      Optional<MessageId> latest = Optional.empty();
      if (newest != null) {
        latest = Optional.of(PulsarMessageIds.toText(newest.getMessageId(), newestIndex));
      }
      return new StreamInfo(stream, columns, latest, newest == null ? 0L : newest.getSequenceId() + 1, delay,
          partitions, List.copyOf(latestPositions));
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot describe stream " + stream, e);
    }
  }

  private Optional<Message<byte[]>> lastMessage(StreamRef stream, String topic, int partition) {
    // The broker's last message ID (admin; entry -1 only for a topic without messages, as empty ledgers are
    // skipped: apache/pulsar#1550), then one reader starting at it, inclusive. A reader at org.apache.pulsar.client.api.MessageId.latest
    // inclusive costs ~100 ms more: the client seeks after subscribing, which reconnects the consumer.
    org.apache.pulsar.client.api.MessageId last;
    try {
      last = topics.lastMessageId(topic);
    } catch (PulsarAdminException e) {
      // The broker reads the latest entry for its batch size, from S3 when it was offloaded and deleted
      // locally (a topic whose open segment is still empty after a roll-over): say where it is.
      throw new LedgerException.Unavailable("cannot find the latest event of " + stream + " ("
          + whereLatest(stream, topic, partition) + ")", e);
    }
    if (!(last instanceof MessageIdAdv adv) || adv.getEntryId() < 0) {
      // no entry named (an empty topic, or an answer this code does not know): the slower, general lookup
      return lastMessageBySeek(stream, topic);
    }
    int timeoutMs = (int) operationTimeout.toMillis();
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(last)
        .startMessageIdInclusive().create()) {
      Message<byte[]> m = reader.readNext(timeoutMs, TimeUnit.MILLISECONDS);
      if (m == null) {
        throw new LedgerException.Unavailable("cannot read the latest event of " + stream + " (" + last + ") within "
            + operationTimeout.toMillis() + " ms: " + whereLatest(stream, topic, partition), null);
      }
      // Read on to the end: events appended meanwhile, and the rest of a batched entry if the broker's answer
      // did not name its last message (it does on 4.0, with the batch index).
      while (reader.hasMessageAvailable()) {
        Message<byte[]> next = reader.readNext(timeoutMs, TimeUnit.MILLISECONDS);
        if (next == null) {
          break;
        }
        m = next;
      }
      return Optional.of(m);
    } catch (LedgerException e) {
      throw e;
    } catch (Exception e) {
      throw new LedgerException.Unavailable("cannot read the latest event of " + stream, e);
    }
  }

  /** The latest message through a reader at {@link org.apache.pulsar.client.api.MessageId#latest}, inclusive (the client seeks to it). */
  private Optional<Message<byte[]>> lastMessageBySeek(StreamRef stream, String topic) {
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic)
        .startMessageId(org.apache.pulsar.client.api.MessageId.latest).startMessageIdInclusive().create()) {
      if (!reader.hasMessageAvailable()) {
        return Optional.empty();
      }
      return Optional.ofNullable(reader.readNext((int) operationTimeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (Exception e) {
      throw new LedgerException.Unavailable("cannot read the latest event of " + stream, e);
    }
  }

  /**
   * Read events of a stream in ledger order ({@link Ledger#read}).
   *
   * @throws IllegalArgumentException if {@code maxEvents} is below 1 or {@code after} names no partition of
   *     the stream
   * @throws LedgerException.StreamNotFound if the stream does not exist
   * @throws LedgerException.Unavailable if an event that exists cannot be read within the timeout
   */
  public List<StoredEvent> read(StreamRef stream, Optional<MessageId> after, int maxEvents, long timeoutMs) {
    if (maxEvents < 1) {
      throw new IllegalArgumentException("maxEvents must be >= 1, got " + maxEvents);
    }
    int partitions = existingPartitions(stream);
    if (partitions == 0) {
      return readTopic(stream, stream.topic(), -1, after, maxEvents, timeoutMs);
    }
    if (after.isPresent()) {
      int p = after.get().partition();
      if (p < 0 || p >= partitions) {
        throw new IllegalArgumentException("message ID " + after.get() + " names partition " + p + ", but stream "
            + stream + " has partitions 0 to " + (partitions - 1));
      }
      return readTopic(stream, stream.partitionTopic(p), p, after, maxEvents, timeoutMs);
    }
    List<StoredEvent> merged = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      merged.addAll(readTopic(stream, stream.partitionTopic(p), p, Optional.empty(), maxEvents, timeoutMs));
    }
    merged.sort(Comparator.comparingLong(StoredEvent::sequence));
    return merged.size() > maxEvents ? List.copyOf(merged.subList(0, maxEvents)) : merged;
  }

  /** An existing stream's partition count (0 when unpartitioned), before reading it. */
  private int existingPartitions(StreamRef stream) {
    try {
      topics.properties(stream);
      return topics.partitions(stream);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot read stream " + stream, e);
    }
  }

  private List<StoredEvent> readTopic(StreamRef stream, String topic, int partition, Optional<MessageId> after,
      int maxEvents, long timeoutMs) {
    List<StoredEvent> events = new ArrayList<>();
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic)
        .startMessageId(after.map(PulsarMessageIds::toPulsar).orElse(org.apache.pulsar.client.api.MessageId.earliest)).create()) {
      while (events.size() < maxEvents
          && hasMessageAvailable(reader, stream, topic, lastRead(events, after), timeoutMs)) {
        Message<byte[]> m = reader.readNext((int) timeoutMs, TimeUnit.MILLISECONDS);
        if (m == null) {
          throw new LedgerException.Unavailable("cannot read stream " + stream + " after "
              + after.map(Object::toString).orElse("earliest") + " within " + timeoutMs + " ms: "
              + whereStored(stream, topic, lastRead(events, after)), null);
        }
        events.add(new StoredEvent(PulsarMessageIds.toText(m.getMessageId(), partition), envelope(m),
            m.getSequenceId()));
      }
    } catch (LedgerException e) {
      throw e;
    } catch (Exception e) {
      // Any step may be the one that needs offloaded data: hasMessageAvailable asks the broker for the
      // last message ID, and the broker reads the last entry (for its batch size) even when that entry is
      // only in S3. So every failure names where the next events are stored, not only a readNext timeout.
      throw new LedgerException.Unavailable("cannot read stream " + stream + " ("
          + whereStored(stream, topic, lastRead(events, after)) + ")", e);
    }
    return events;
  }

  /**
   * Find the event at an exact message ID ({@link Ledger#locate}).
   *
   * @throws IllegalArgumentException if {@code id} has batch index -1 but names a batched entry
   * @throws LedgerException.StreamNotFound if the stream does not exist
   * @throws LedgerException.Unavailable if Pulsar fails, or the event's segment cannot be read within the timeout
   */
  public Optional<StoredEvent> locate(StreamRef stream, MessageId id, long timeoutMs) {
    String topic;
    int partitions = existingPartitions(stream);
    if (partitions == 0) {
      if (id.partition() != -1) {
        return Optional.empty(); // an unpartitioned stream's message IDs have partition -1
      }
      topic = stream.topic();
    } else {
      if (id.partition() < 0 || id.partition() >= partitions) {
        return Optional.empty();
      }
      topic = stream.partitionTopic(id.partition());
    }
    // A reader starting inclusively at a batch message ID skips the batch's earlier messages
    // (Pulsar client: startMessageIdInclusive with a batch index), so the first message read is the one
    // at {@code id} when it exists, or the next one when it does not.
    String wholeEntry; // the refusal of a batch index -1 that names a batched entry, thrown after the reader closed
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic)
        .startMessageId(PulsarMessageIds.toPulsar(id)).startMessageIdInclusive().create()) {
      if (!hasMessageAvailable(reader, stream, topic, Optional.of(id), timeoutMs)) {
        return Optional.empty();
      }
      Message<byte[]> m = reader.readNext((int) timeoutMs, TimeUnit.MILLISECONDS);
      if (m == null) {
        throw new LedgerException.Unavailable("cannot read stream " + stream + " at " + id + " within "
            + timeoutMs + " ms: " + whereStored(stream, topic, Optional.of(id)), null);
      }
      MessageId found = PulsarMessageIds.toText(m.getMessageId(), partitions == 0 ? -1 : id.partition());
      if (found.equals(id)) {
        return Optional.of(new StoredEvent(found, envelope(m), m.getSequenceId()));
      }
      if (id.batchIndex() >= 0 || found.batchIndex() < 0 || found.ledgerId() != id.ledgerId()
          || found.entryId() != id.entryId()) {
        return Optional.empty();
      }
      wholeEntry = wholeBatchedEntry(stream, id, m.getMessageId() instanceof MessageIdAdv adv ? adv.getBatchSize() : 0);
    } catch (LedgerException e) {
      throw e;
    } catch (Exception e) {
      throw new LedgerException.Unavailable("cannot read stream " + stream + " at " + id + " ("
          + whereStored(stream, topic, Optional.of(id)) + ")", e);
    }
    throw new IllegalArgumentException(wholeEntry);
  }

  /**
   * Say that a message ID with batch index -1 names a batched entry, which holds no event at batch index -1.
   *
   * @param stream the stream
   * @param id the message ID, batch index -1
   * @param batchSize events in the entry; 0 when unknown
   * @return the message, with the batch indexes the entry holds
   */
  static String wholeBatchedEntry(StreamRef stream, MessageId id, int batchSize) {
    String entry = id.ledgerId() + ":" + id.entryId() + ":" + id.partition() + ":";
    String holds = batchSize > 0
        ? "it holds batch indexes 0 to " + (batchSize - 1) + " (" + entry + "0 to " + entry + (batchSize - 1)
            + "; up to and including " + entry + (batchSize - 1) + " is the whole entry)"
        : "its batch indexes start at 0 (" + entry + "0 is its first event)";
    return "message ID " + id + " names no event of stream " + stream + ": entry " + id.ledgerId() + ":"
        + id.entryId() + " is batched (the ingestion API batches the events it appends), so each of its events has its"
        + " own batch index, and " + holds + "; batch index -1 names an entry that is not batched";
  }

  /**
   * Whether the reader has a next message, within the caller's timeout rather than the client's operation
   * timeout: the broker answers from the last entry, which it reads from S3 when only S3 holds it.
   *
   * @throws LedgerException.Unavailable if the broker does not answer within {@code timeoutMs} (the message
   *     names where the events after {@code at} are stored)
   */
  private boolean hasMessageAvailable(Reader<byte[]> reader, StreamRef stream, String topic,
      Optional<MessageId> at, long timeoutMs) throws Exception {
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      return OffloadReadRace.call(() -> reader.hasMessageAvailableAsync()
          .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      throw new LedgerException.Unavailable("cannot read stream " + stream + " after "
          + at.map(Object::toString).orElse("earliest") + ": the broker did not say within " + timeoutMs
          + " ms whether more events follow (" + whereStored(stream, topic, at) + ")", null);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  private static Optional<MessageId> lastRead(List<StoredEvent> events, Optional<MessageId> after) {
    return events.isEmpty() ? after : Optional.of(events.get(events.size() - 1).messageId());
  }

  /** Name the segment after {@code at} and where it is stored, for an error message. */
  private String whereStored(StreamRef stream, String topic, Optional<MessageId> at) {
    try {
      return storage.storage(stream, topic).whereAfter(at);
    } catch (RuntimeException e) {
      return "the broker does not answer (" + e.getMessage() + ")";
    }
  }

  private String whereLatest(StreamRef stream, String topic, int partition) {
    try {
      return storage.storage(stream, topic).whereLatest(partition);
    } catch (RuntimeException e) {
      return "the broker does not answer (" + e.getMessage() + ")";
    }
  }

  private static EventEnvelope envelope(Message<byte[]> m) {
    Map<String, String> headers = new TreeMap<>(m.getProperties());
    String type = headers.remove(EventEnvelope.TYPE_PROPERTY);
    String idempotencyKey = headers.remove(EventEnvelope.IDEMPOTENCY_KEY_PROPERTY);
    headers.remove(EventEnvelope.FINGERPRINT_PROPERTY);
    return new EventEnvelope(m.hasKey() ? m.getKey() : "", type == null ? "" : type, m.getEventTime(),
        new String(m.getValue(), StandardCharsets.UTF_8), idempotencyKey == null ? "" : idempotencyKey, headers);
  }
}
