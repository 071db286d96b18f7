package dev.streamfold.transforms.source;

import dev.streamfold.core.MessageId;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Puts the events of a partitioned stream, read from its partitions in any interleaving, back into the
 * order the appender accepted them: ascending sequence id. Streamfold's appender numbers a stream's events
 * with one counter across partitions (each partition's sequence ids increase, so Pulsar's per-partition
 * deduplication still holds), so the sequence id is a total order of the stream: the ledger clock of
 * training sets ({@link dev.streamfold.transforms.job.PositionTracker} with {@code ledgerClock}) needs exactly that order.
 *
 * <p>An event is handed on once every partition still being read has an event waiting (the smallest
 * sequence id among the partitions' heads is then the next one of the stream); a partition is done once
 * its last message ID to read has arrived. Memory: the events one partition's reader is ahead of the
 * slowest one. Bounded jobs only (no state is checkpointed; the job does not restart). Upstream
 * watermarks are held back until the end of input, after every event.
 */
public final class LedgerOrderMerge extends AbstractStreamOperator<SourceEvent>
    implements OneInputStreamOperator<SourceEvent, SourceEvent>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  private final TreeMap<Integer, String> readThrough;
  private transient Map<Integer, ArrayDeque<SourceEvent>> waiting;
  private transient Set<Integer> open;
  private transient Map<Integer, MessageId> last;

  /**
   * @param readThrough the last message ID read of every partition the source reads (a partition not
   *     listed is not read)
   */
  public LedgerOrderMerge(List<MessageId> readThrough) {
    this.readThrough = new TreeMap<>();
    readThrough.forEach(id -> this.readThrough.put(id.partition(), id.toString()));
  }

  @Override
  public void open() throws Exception {
    super.open();
    waiting = new TreeMap<>();
    open = new HashSet<>(readThrough.keySet());
    last = new TreeMap<>();
    readThrough.forEach((p, id) -> {
      waiting.put(p, new ArrayDeque<>());
      last.put(p, MessageId.parse(id));
    });
  }

  @Override
  public void processElement(StreamRecord<SourceEvent> element) {
    SourceEvent event = element.getValue();
    MessageId id = event.position();
    ArrayDeque<SourceEvent> queue = waiting.get(id.partition());
    if (queue == null) {
      throw new IllegalStateException("event " + event.messageId + " of partition " + id.partition()
          + ", which this job does not read (partitions: " + readThrough.keySet() + ")");
    }
    queue.add(event);
    if (id.compareTo(last.get(id.partition())) >= 0) {
      open.remove(id.partition());
    }
    drain(false);
  }

  private void drain(boolean all) {
    StreamRecord<SourceEvent> out = new StreamRecord<>(null);
    while (true) {
      ArrayDeque<SourceEvent> next = null;
      for (Map.Entry<Integer, ArrayDeque<SourceEvent>> e : waiting.entrySet()) {
        ArrayDeque<SourceEvent> queue = e.getValue();
        if (queue.isEmpty()) {
          if (!all && open.contains(e.getKey())) {
            return; // this partition's next event may come first
          }
          continue;
        }
        if (next == null || queue.peek().sequenceId < next.peek().sequenceId) {
          next = queue;
        }
      }
      if (next == null) {
        return;
      }
      output.collect(out.replace(next.poll()));
    }
  }

  @Override
  public void processWatermark(Watermark mark) {
    // held back: the source's final watermark must follow every event (see the class comment)
  }

  @Override
  public void endInput() {
    drain(true);
    output.emitWatermark(Watermark.MAX_WATERMARK);
  }
}
