package dev.streamfold.transforms.replay;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.StoredEvent;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.transforms.TransformException;
import java.util.Optional;

/**
 * Finds the event a replay's or a training set's message-ID cursor names, or says why it is not there: the
 * error names the stream and its valid range (its first and latest message IDs, or its latest position on a
 * partitioned stream).
 */
public final class EventLocator {
  /** How long a lookup in the ledger may take, ms. */
  static final long LOOKUP_TIMEOUT_MS = 30_000;

  private final Ledger ledger;

  public EventLocator(Ledger ledger) {
    this.ledger = ledger;
  }

  /**
   * The event at {@code id}.
   *
   * @param stream the stream (a partitioned stream's message IDs name their partition)
   * @param info the stream as described (for the error)
   * @param id the message ID
   * @return the event stored there
   * @throws TransformException.InvalidReplay if no event of the stream has that message ID
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public StoredEvent locate(StreamRef stream, StreamInfo info, MessageId id) {
    Optional<StoredEvent> found = ledger.locate(stream, id, LOOKUP_TIMEOUT_MS);
    if (found.isPresent()) {
      return found.get();
    }
    if (info.latest().isEmpty()) {
      throw new TransformException.InvalidReplay("message ID " + id + " is not in stream " + stream + ": the stream is empty");
    }
    if (info.partitioned()) {
      // a partitioned stream has no single first or latest message ID: name the latest position instead
      throw new TransformException.InvalidReplay("message ID " + id + " is not in stream " + stream + ": its "
          + info.eventCount() + " events in " + info.partitions() + " partitions end at the position "
          + info.latestPosition() + " (latest)");
    }
    String firstId = ledger.read(stream, Optional.empty(), 1, LOOKUP_TIMEOUT_MS).stream().findFirst()
        .map(e -> e.messageId().toString()).orElse("?");
    throw new TransformException.InvalidReplay("message ID " + id + " is not in stream " + stream + ": its "
        + info.eventCount() + " events run from " + firstId + " (first) to " + info.latest().get() + " (latest)");
  }
}
