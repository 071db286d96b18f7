package dev.streamfold.ledger;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.StreamRef;
import dev.streamfold.schema.StreamColumn;
import java.util.List;
import java.util.Optional;

/**
 * What the ledger knows about a stream.
 *
 * @param ref the stream
 * @param columns declared payload columns (empty when none were declared)
 * @param latest the latest event's message ID, empty when the stream is empty
 * @param eventCount events appended to the stream (the latest event's sequence id + 1; exact while
 *     Streamfold's appender is the stream's only writer)
 * @param watermarkDelayMs bounded out-of-orderness of the stream's event times, milliseconds (0 unless
 *     set when the stream was created)
 * @param partitions the stream's partitions: 0 for an unpartitioned stream (one Pulsar topic, message IDs
 *     with partition -1), else N >= 2 (a Pulsar partitioned topic; events with the same key are in the
 *     same partition)
 * @param latestPositions the position vector of the latest events: the latest message ID of every
 *     partition that holds events, ordered by partition (for an unpartitioned stream, {@code latest} alone;
 *     empty when the stream is empty). For a partitioned stream {@code latest} is the latest event of all
 *     (highest sequence id).
 */
public record StreamInfo(StreamRef ref, List<StreamColumn> columns, Optional<MessageId> latest,
    long eventCount, long watermarkDelayMs, int partitions, List<MessageId> latestPositions) {

  /** An unpartitioned stream's description. */
  public StreamInfo(StreamRef ref, List<StreamColumn> columns, Optional<MessageId> latest, long eventCount,
      long watermarkDelayMs) {
    this(ref, columns, latest, eventCount, watermarkDelayMs, 0, latest.map(List::of).orElse(List.of()));
  }

  /** True for a partitioned stream ({@code partitions >= 2}). */
  public boolean partitioned() {
    return partitions > 0;
  }

  /** The latest position vector: {@code latestPositions} (empty when the stream is empty). */
  public PositionVector latestPosition() {
    return PositionVector.of(latestPositions);
  }
}
