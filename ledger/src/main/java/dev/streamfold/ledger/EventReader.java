package dev.streamfold.ledger;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import java.util.List;
import java.util.Optional;

/** Reads the events of the ledger's streams, wherever they are stored. Part of {@link Ledger}. Thread-safe. */
public interface EventReader {

  /**
   * Read events of a stream in ledger order, wherever they are stored (BookKeeper or tiered storage). On
   * a partitioned stream, reading from the earliest event merges the partitions by sequence id (the order
   * the appender accepted the events); reading after a message ID reads that message ID's partition.
   *
   * @param stream the stream
   * @param after read after this message ID (exclusive); empty to read from the earliest event
   * @param maxEvents most events to return, >= 1
   * @param timeoutMs longest wait for the next event, milliseconds; reaching the latest event returns
   *     what was read at once
   * @return up to {@code maxEvents} events; empty when none follow {@code after}
   * @throws LedgerException.StreamNotFound if the stream does not exist
   * @throws LedgerException.Unavailable if an event that exists cannot be read within the timeout (e.g.
   *     its segment was offloaded and the S3 endpoint is down): the message names the segment and where
   *     it is stored
   */
  List<StoredEvent> read(StreamRef stream, Optional<MessageId> after, int maxEvents,
      long timeoutMs);

  /**
   * Find the event at an exact message ID (batch index included).
   *
   * @param stream the stream
   * @param id the message ID
   * @param timeoutMs longest wait for the event, milliseconds
   * @return the event, or empty when the stream holds no event at exactly {@code id}
   * @throws IllegalArgumentException if {@code id} has batch index -1 (an entry that is not batched) but names
   *     a batched entry, which holds no event at -1; the message says which batch indexes the entry holds
   * @throws LedgerException.StreamNotFound if the stream does not exist
   * @throws LedgerException.Unavailable if Pulsar fails, or the event's segment cannot be read within
   *     the timeout (the message names the segment and where it is stored)
   */
  Optional<StoredEvent> locate(StreamRef stream, MessageId id, long timeoutMs);
}
