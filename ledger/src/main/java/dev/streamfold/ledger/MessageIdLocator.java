package dev.streamfold.ledger;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which of some streams a message ID belongs to. A message ID names a BookKeeper ledger, and each ledger is a
 * segment of exactly one topic (one partition of one stream) for good, so the stream is the one whose segments
 * include that ledger in the message ID's partition. Thread-safe.
 *
 * <p>The segments seen are kept (a segment never moves to another stream); the streams' segments are read again
 * from the ledger only when a message ID is in none of the kept ones, e.g. one in a segment opened since.
 */
public final class MessageIdLocator {
  private final TieredStorage storage;
  /** Per stream: its segments seen so far. */
  private final ConcurrentHashMap<StreamRef, Set<Segment>> segments = new ConcurrentHashMap<>();

  /**
   * Create the locator.
   *
   * @param storage where the streams' segments are listed
   */
  public MessageIdLocator(TieredStorage storage) {
    this.storage = storage;
  }

  /**
   * The stream of a tenant's that holds a message ID.
   *
   * @param tenant the tenant
   * @param streams the candidate streams' names
   * @param id the message ID
   * @return the stream's name, or empty when none of the candidates has a segment of that ledger in that partition
   * @throws LedgerException.StreamNotFound if a candidate does not exist
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  public Optional<String> streamOf(String tenant, Collection<String> streams, MessageId id) {
    Segment key = new Segment(id.partition(), id.ledgerId());
    for (String stream : streams) {
      Set<Segment> known = segments.get(new StreamRef(tenant, stream));
      if (known != null && known.contains(key)) {
        return Optional.of(stream);
      }
    }
    for (String stream : streams) {
      StreamRef ref = new StreamRef(tenant, stream);
      Set<Segment> known = segments.computeIfAbsent(ref, r -> ConcurrentHashMap.newKeySet());
      for (LedgerSegment segment : storage.storage(ref).segments()) {
        known.add(new Segment(segment.partition(), segment.ledgerId()));
      }
      if (known.contains(key)) {
        return Optional.of(stream);
      }
    }
    return Optional.empty();
  }

  /** A segment: a ledger of one partition's topic (partition -1 for an unpartitioned stream). */
  private record Segment(int partition, long ledgerId) {}
}
