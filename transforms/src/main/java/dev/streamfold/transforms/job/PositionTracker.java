package dev.streamfold.transforms.job;

import dev.streamfold.core.MessageId;
import dev.streamfold.transforms.sink.ViewChange;
import dev.streamfold.transforms.source.EventConverter;
import dev.streamfold.transforms.source.SourceEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Follows the source's position: turns each event into a SQL row and remembers the last message ID of
 * every partition and the count of events seen. Just before each checkpoint barrier leaves this
 * operator ({@code prepareSnapshotPreBarrier}) it emits that position on {@link #PROGRESS}; the view
 * sink receives it before the same barrier, together with every row change the events before the
 * barrier caused, and commits both at once. The position and count are operator state, so a job
 * restored from a checkpoint continues them exactly.
 *
 * <p>After a restore the source re-reads from an earlier position (the view's committed one, entry
 * included; see {@link ViewJobBuilder}) and this operator drops every event at or before its restored
 * position, partition by partition. That makes the resume exact at message level, batch index
 * included: the Pulsar connector's own resume seeks past the whole batched entry of its last message
 * ID and would lose the rest of the batch.
 */
public final class PositionTracker<OUT> extends AbstractStreamOperator<OUT>
    implements OneInputStreamOperator<SourceEvent, OUT>, BoundedOneInput {
  /** Side output carrying {@link ViewChange#PROGRESS} records to the view sink. */
  public static final OutputTag<ViewChange> PROGRESS =
      new OutputTag<>("progress", TypeInformation.of(ViewChange.class));

  private static final long serialVersionUID = 1L;

  private final EventConverter<OUT> parser;
  private final ReplayBound bound;
  private final boolean ledgerClock;
  private final long watermarkDelayMs;
  private transient ListState<Long> eventTimeState;
  private transient EventTimeWatermark watermark;
  private transient long eventsBehindWatermark;
  private transient RangeFilter range;
  private transient Map<Integer, String> lastByPartition;
  private transient long eventsApplied;
  private transient ListState<String> positionState;
  private transient ListState<Long> countState;
  private transient StreamRecord<OUT> reuse;
  private transient Map<Integer, MessageId> resumeAfter;
  private long signalAtEvents = -1;

  /**
   * Track the position of an unbounded view job.
   *
   * @param parser turns events into the records handed on (SQL rows, or the events themselves)
   */
  public PositionTracker(EventConverter<OUT> parser) {
    this(parser, null);
  }

  /**
   * Track the position of a job that applies only a range of the ledger (a replay).
   *
   * @param parser turns events into the records handed on (SQL rows, or the events themselves)
   * @param bound the range to apply, or null for everything
   */
  public PositionTracker(EventConverter<OUT> parser, ReplayBound bound) {
    this(parser, bound, false);
  }

  /**
   * Track the position, optionally running a ledger clock.
   *
   * @param parser turns events into the records handed on (SQL rows, or the events themselves)
   * @param bound the range to apply, or null for everything
   * @param ledgerClock when true, each row carries its event's sequence id (its ordinal in the stream) as
   *     its Flink timestamp, and a watermark of that sequence id follows each row: downstream, every
   *     record between two watermarks of one channel was caused by the one event after the first (used by
   *     the point-in-time join of training sets; see {@code PointInTimeJoin})
   */
  public PositionTracker(EventConverter<OUT> parser, ReplayBound bound, boolean ledgerClock) {
    this(parser, bound, ledgerClock, -1);
  }

  /**
   * Track the position, optionally with event-time watermarks.
   *
   * @param parser turns events into the records handed on (SQL rows, or the events themselves)
   * @param bound the range to apply, or null for everything
   * @param ledgerClock see {@link #PositionTracker(EventConverter, ReplayBound, boolean)}
   * @param watermarkDelayMs for event-time jobs (windows), the stream's bounded out-of-orderness in ms:
   *     each row carries its event time as its Flink timestamp, and after each event whose event time
   *     raises the maximum seen, a watermark of that maximum minus the delay follows. The watermarks are
   *     a function of the events in ledger order only (never of wall-clock time or of when checkpoints
   *     happen), so backfill, live tail and replay close the same windows at the same positions. Upstream
   *     watermarks (a bounded source's final one) are not forwarded: a replay must not close the windows
   *     its last event did not close. -1 for jobs without event time.
   */
  public PositionTracker(EventConverter<OUT> parser, ReplayBound bound, boolean ledgerClock, long watermarkDelayMs) {
    this.parser = parser;
    this.bound = bound;
    this.ledgerClock = ledgerClock;
    this.watermarkDelayMs = watermarkDelayMs;
    // Chain to the source (same task, no serialization of each event between two threads); a plain
    // AbstractStreamOperator would start a new chain (HEAD).
    setChainingStrategy(org.apache.flink.streaming.api.operators.ChainingStrategy.ALWAYS);
  }

  /**
   * Signal {@link BackfillSignals#reached} for this job when the count of events applied reaches
   * {@code events} (a view job's backfill target: the events in the stream when its version started), so
   * that the view's LIVE commit can be checkpointed at once. The count is only the hint's trigger; LIVE
   * itself is decided from the committed message IDs.
   *
   * @param events the count to signal at, 0 or less for never
   * @return this tracker
   */
  public PositionTracker<OUT> signalBackfillTargetAt(long events) {
    this.signalAtEvents = events > 0 ? events : -1;
    return this;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    positionState = context.getOperatorStateStore().getListState(
        new ListStateDescriptor<>("position", Types.STRING));
    countState = context.getOperatorStateStore().getListState(
        new ListStateDescriptor<>("events-applied", Types.LONG));
    lastByPartition = new TreeMap<>();
    eventsApplied = 0;
    resumeAfter = new TreeMap<>();
    for (String id : positionState.get()) {
      MessageId parsed = MessageId.parse(id);
      lastByPartition.put(parsed.partition(), id);
      resumeAfter.put(parsed.partition(), parsed);
    }
    for (Long count : countState.get()) {
      eventsApplied += count;
    }
    eventTimeState = context.getOperatorStateStore().getListState(
        new ListStateDescriptor<>("event-time", Types.LONG));
    List<Long> clock = new ArrayList<>();
    eventTimeState.get().forEach(clock::add);
    watermark = new EventTimeWatermark(watermarkDelayMs, clock.size() == 3 ? clock.get(0) : Long.MIN_VALUE,
        clock.size() == 3 ? clock.get(1) : Long.MIN_VALUE);
    eventsBehindWatermark = clock.size() == 3 ? clock.get(2) : 0;
    reuse = new StreamRecord<>(null);
    // a partition with something applied has reached the start
    range = bound == null ? null : new RangeFilter(bound, lastByPartition.keySet());
  }

  @Override
  public void processElement(StreamRecord<SourceEvent> element) {
    SourceEvent event = element.getValue();
    if (!resumeAfter.isEmpty() && alreadyApplied(event)) {
      return;
    }
    if (range != null && !range.accepts(event)) {
      return;
    }
    if (ledgerClock) {
      output.collect(reuse.replace(parser.convert(event, true), event.sequenceId));
      output.emitWatermark(new org.apache.flink.streaming.api.watermark.Watermark(event.sequenceId));
    } else if (watermarkDelayMs >= 0) {
      if (watermark.behind(event.eventTimeMs)) {
        eventsBehindWatermark++;
      }
      output.collect(reuse.replace(parser.convert(event, false), event.eventTimeMs));
      long next = watermark.advance(event.eventTimeMs);
      if (next != EventTimeWatermark.NONE) {
        output.emitWatermark(new org.apache.flink.streaming.api.watermark.Watermark(next));
      }
    } else {
      output.collect(reuse.replace(parser.convert(event, false)));
    }
    lastByPartition.put(event.partitionIndex(), event.messageId);
    if (++eventsApplied == signalAtEvents) {
      BackfillSignals.reached(getContainingTask().getEnvironment().getJobID());
    }
  }

  /** True for an event at or before the restored position of its partition (re-read after a restore). */
  private boolean alreadyApplied(SourceEvent event) {
    MessageId id = event.position();
    MessageId restored = resumeAfter.get(id.partition());
    if (restored == null) {
      return false;
    }
    if (id.compareTo(restored) <= 0) {
      return true;
    }
    resumeAfter.remove(id.partition()); // past the restored position: no more checks for this partition
    return false;
  }

  @Override
  public void processWatermark(org.apache.flink.streaming.api.watermark.Watermark mark) throws Exception {
    if (watermarkDelayMs >= 0) {
      return; // this operator owns the event-time clock (see the constructor)
    }
    super.processWatermark(mark);
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) {
    emitProgress();
  }

  @Override
  public void endInput() {
    emitProgress();
  }

  private void emitProgress() {
    output.collect(PROGRESS, new StreamRecord<>(
        ViewChange.progress(String.join(",", lastByPartition.values()), eventsApplied, eventsBehindWatermark)));
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    positionState.update(new ArrayList<>(lastByPartition.values()));
    countState.update(List.of(eventsApplied));
    eventTimeState.update(List.of(watermark.maxEventTimeMs(), watermark.watermarkMs(), eventsBehindWatermark));
  }
}
