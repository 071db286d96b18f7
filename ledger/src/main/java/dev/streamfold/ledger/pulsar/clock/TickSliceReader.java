package dev.streamfold.ledger.pulsar.clock;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.clock.TickSlice;
import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/**
 * Reads the events of tick slices ({@link TickSlice}) of some of a tenant's streams, in the clock's order: range
 * by range as the slice lists them (stream name, then partition), each range in ledger order from just after its
 * {@code after} through its {@code through}. Reading the slices of consecutive ticks gives those streams' events in
 * the tenant's one total order, each event once.
 *
 * <p>One Pulsar reader stays open per partition read, positioned after the last event it handed over: the next
 * slice's range of that partition starts there, so a tail of small ticks opens no reader per tick. A range that
 * starts elsewhere (the first one read, or after a restart) opens its reader at its {@code after}. Not
 * thread-safe: one caller at a time.
 */
public final class TickSliceReader implements AutoCloseable {
  /** Receives the events of a slice, in order. */
  @FunctionalInterface
  public interface EventSink {
    /**
     * Take one event.
     *
     * @param range the range it belongs to (its stream and partition)
     * @param id its message ID, with the partition set
     * @param message the Pulsar message (payload, key, event time, properties, sequence id)
     */
    void accept(TickSlice.Range range, MessageId id, Message<byte[]> message);
  }

  private final PulsarClient client;
  private final String tenant;
  private final Set<String> streams;
  private final Duration timeout;
  private final Map<String, Open> open = new HashMap<>();

  /** A partition's open reader and the last event it handed over. */
  private record Open(Reader<byte[]> reader, MessageId last) {}

  /**
   * Create a reader of some of a tenant's streams.
   *
   * @param client the Pulsar client (not closed by this class)
   * @param tenant the tenant whose clock made the slices
   * @param streams the stream names read; a slice's ranges of other streams are skipped
   * @param timeout the longest wait for one event the slice says exists
   */
  public TickSliceReader(PulsarClient client, String tenant, Set<String> streams, Duration timeout) {
    this.client = Objects.requireNonNull(client, "client");
    this.tenant = Objects.requireNonNull(tenant, "tenant");
    this.streams = Set.copyOf(streams);
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * Read one slice's events of the streams read, handing each to {@code sink} in the clock's order.
   *
   * @param slice the slice of the tick after the one read last (or of any tick, after a restart)
   * @param sink receives the events
   * @return the events handed over
   * @throws LedgerException.Unavailable if Pulsar fails or an event the slice covers does not arrive within the
   *     timeout (the message names the stream, partition and message ID); the partition's reader is then closed,
   *     so reading the slice again starts over at its ranges
   */
  public long read(TickSlice slice, EventSink sink) {
    long count = 0;
    for (TickSlice.Range range : slice.ranges()) {
      if (streams.contains(range.stream())) {
        count += read(slice.tick(), range, sink);
      }
    }
    return count;
  }

  private long read(long tick, TickSlice.Range range, EventSink sink) {
    String key = range.stream() + "/" + range.partition();
    Open current = open.remove(key);
    if (current != null && !Optional.of(current.last()).equals(range.after())) {
      close(current.reader());
      current = null;
    }
    StreamRef stream = new StreamRef(tenant, range.stream());
    String topic = range.partition() < 0 ? stream.topic() : stream.partitionTopic(range.partition());
    Reader<byte[]> reader = current == null ? null : current.reader();
    boolean keep = false;
    try {
      if (reader == null) {
        reader = client.newReader(Schema.BYTES).topic(topic)
            .startMessageId(range.after().map(PulsarMessageIds::toPulsar)
                .orElse(org.apache.pulsar.client.api.MessageId.earliest))
            .create();
      }
      long count = 0;
      MessageId last = range.after().orElse(null);
      while (last == null || last.compareTo(range.through()) < 0) {
        Message<byte[]> message = reader.readNext((int) timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (message == null) {
          throw new LedgerException.Unavailable("tick " + tick + " covers " + stream + " partition " + range.partition()
              + " through " + range.through() + ", but no event after " + (last == null ? "the first" : last)
              + " arrived within " + timeout.toMillis() + " ms", null);
        }
        MessageId id = PulsarMessageIds.toText(message.getMessageId(), range.partition());
        if (id.compareTo(range.through()) > 0) {
          throw new LedgerException.Unavailable("tick " + tick + " covers " + stream + " partition " + range.partition()
              + " through " + range.through() + ", but the next event after " + last + " is " + id
              + ": the clock names a message ID that is not an event", null);
        }
        sink.accept(range, id, message);
        count++;
        last = id;
      }
      open.put(key, new Open(reader, last));
      keep = true;
      return count;
    } catch (PulsarClientException e) {
      throw new LedgerException.Unavailable("cannot read " + stream + " partition " + range.partition()
          + " for tick " + tick, e);
    } finally {
      if (!keep) {
        close(reader); // a failed range starts over at its own start when read again
      }
    }
  }

  private static void close(Reader<byte[]> reader) {
    if (reader == null) {
      return;
    }
    try {
      reader.close();
    } catch (IOException e) {
      // a reader's non-durable subscription goes with its connection
    }
  }

  @Override
  public void close() {
    open.values().forEach(partition -> close(partition.reader()));
    open.clear();
  }
}
