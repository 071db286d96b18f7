package dev.streamfold.ledger;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import java.util.List;

/**
 * Where a stream's events are stored.
 *
 * @param stream the stream
 * @param segments its segments, oldest first; the last one is open for appends
 * @param localBytes bytes still held by BookKeeper (segments not yet offloaded, or offloaded but not
 *     yet deleted locally)
 * @param offloadedBytes bytes of segments offloaded to tiered storage
 */
public record StreamStorage(StreamRef stream, List<LedgerSegment> segments, long localBytes, long offloadedBytes) {

  /**
   * Find the segment that holds the events after a message ID: the first segment of its partition whose ledger
   * id is not below the message ID's (the same segment when more entries follow in it, else the next one).
   *
   * @param after the last event read; empty for the stream's earliest event (the first segment of any partition)
   * @return the segment, or empty when the stream has none at or after {@code after}
   */
  public java.util.Optional<LedgerSegment> segmentAfter(java.util.Optional<MessageId> after) {
    for (LedgerSegment segment : segments) {
      if (after.isEmpty() || segment.partition() == after.get().partition()
          && segment.ledgerId() >= after.get().ledgerId()) {
        return java.util.Optional.of(segment);
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * Say in words where the events after a message ID are stored, for an error message: the segment, and
   * whether reading it needs the S3 endpoint (offloaded and deleted locally) or BookKeeper.
   *
   * @param after the last event read; empty for the stream's earliest event
   * @return e.g. "the next events are in segment 12, offloaded to S3 bucket b and deleted locally: is the S3
   *     endpoint reachable?"
   */
  public String whereAfter(java.util.Optional<MessageId> after) {
    return segmentAfter(after).map(segment -> "the next events are in segment " + describe(segment))
        .orElse("no segment found");
  }
  /**
   * Say in words where a partition's latest event is stored, for an error message: the last segment of the
   * partition that holds entries (a topic whose open segment is still empty has its latest event in the segment
   * before it, which may be offloaded and deleted locally).
   *
   * @param partition the partition (0..N-1), or -1 for an unpartitioned stream
   * @return e.g. "the latest events are in segment 12, offloaded to S3 bucket b and deleted locally: is the S3
   *     endpoint reachable?", or "no segment holds events"
   */
  public String whereLatest(int partition) {
    LedgerSegment latest = null;
    for (LedgerSegment segment : segments) {
      if (segment.partition() == partition && segment.entries() > 0) {
        latest = segment;
      }
    }
    return latest == null ? "no segment holds events" : "the latest events are in segment " + describe(latest);
  }

  private static String describe(LedgerSegment segment) {
    return segment.ledgerId() + (segment.offloaded() && segment.localDeleted()
        ? ", offloaded to " + segment.location() + " and deleted locally: is the S3 endpoint reachable?"
        : ", held by BookKeeper");
  }
}
