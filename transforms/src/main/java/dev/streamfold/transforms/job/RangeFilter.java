package dev.streamfold.transforms.job;

import dev.streamfold.core.MessageId;
import dev.streamfold.transforms.source.SourceEvent;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A {@link ReplayBound} applied to one stream's events as they come, partition by partition (ledger order exists
 * within a partition): events before the start are skipped; from the first event past the stop, all of that
 * partition is. Not serializable: operators build it when they open.
 */
public final class RangeFilter {
  private final ReplayBound bound;
  private final Map<Integer, MessageId> stops;
  private final MessageId start;
  private final Set<Integer> started;
  private final Set<Integer> stopped = new HashSet<>();

  /**
   * @param bound the range
   * @param startedPartitions partitions already past the start (a restored operator's)
   */
  public RangeFilter(ReplayBound bound, Set<Integer> startedPartitions) {
    this.bound = bound;
    this.stops = bound.stops();
    this.start = bound.start();
    this.started = new HashSet<>(startedPartitions);
  }

  /**
   * Whether the event is in the range; call once per event, in ledger order within its partition.
   *
   * @param event the event
   * @return true when it is to be applied
   */
  public boolean accepts(SourceEvent event) {
    int partition = event.partitionIndex();
    if (stopped.contains(partition)) {
      return false;
    }
    if (bound.pastStop(event, stops)) {
      stopped.add(partition);
      return false;
    }
    if (!started.contains(partition)) {
      if (bound.beforeStart(event, start)) {
        return false;
      }
      started.add(partition);
    }
    return true;
  }
}
