package dev.streamfold.transforms.job;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.transforms.sink.ViewChange;
import dev.streamfold.transforms.source.ClockedLedgerSource;
import dev.streamfold.transforms.source.SourceEvent;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Follows the position of a job that reads several streams in the tenant clock's order ({@link ClockedLedgerSource}):
 * hands every event on unchanged and keeps the last tick read whole (from the source's end-of-tick markers, which it
 * does not hand on) and the last message ID of every partition of every stream read. The source emits a tick's
 * events and its marker between two checkpoint barriers, so at a barrier the position is a tick and those message
 * IDs are the tick's own vectors of the streams read. Just before each barrier leaves this operator
 * ({@code prepareSnapshotPreBarrier}) it emits that {@link ClockPosition} on {@link PositionTracker#PROGRESS}; the
 * view sink commits it with every row change the events before the barrier caused.
 *
 * <p>For a view with event-time windows it also counts the events read behind their stream's watermark
 * ({@link #countEventsBehindWatermark}): each stream's {@link EventTimeWatermark} over its events in the clock's
 * order, the rule {@link StreamRows} closes that stream's windows by, so the count (the view's
 * {@code events_behind_watermark}) is of the events those windows dropped as late.
 *
 * <p>After a restore the source starts after the view's committed tick (at or before the checkpoint's), and this
 * operator drops every event and marker of a tick at or before its restored tick: the resume is exact at tick
 * level, and so at event level.
 */
public final class TickTracker extends AbstractStreamOperator<SourceEvent>
    implements OneInputStreamOperator<SourceEvent, SourceEvent>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  private long signalAtTick = -1;
  private Map<String, Long> watermarkDelays = Map.of();
  private transient ListState<String> positionState;
  private transient ListState<Long> countState;
  private transient ListState<String> eventTimeState;
  private transient Map<String, EventTimeWatermark> watermarks;
  private transient long eventsBehindWatermark;
  private transient long tick;
  private transient long restoredTick;
  private transient Map<String, Map<Integer, MessageId>> lastByStream;
  private transient long eventsApplied;

  /** Track the position of a view job over several streams. */
  public TickTracker() {
    setChainingStrategy(ChainingStrategy.ALWAYS); // in the source's task: no serialization of each event
  }

  /**
   * Signal {@link BackfillSignals#reached} for this job once the marker of {@code tick} has passed (a view job's
   * backfill target: the clock's last tick when its version started), so that the LIVE commit is checkpointed at
   * once.
   *
   * @param tick the tick to signal at, 0 or less for never
   * @return this tracker
   */
  public TickTracker signalBackfillTargetAt(long tick) {
    this.signalAtTick = tick > 0 ? tick : -1;
    return this;
  }

  /**
   * Count the events read behind their stream's event-time watermark, for the streams whose rows feed event-time
   * windows.
   *
   * @param watermarkDelays each such stream's watermark delay, ms
   * @return this tracker
   */
  public TickTracker countEventsBehindWatermark(Map<String, Long> watermarkDelays) {
    this.watermarkDelays = new TreeMap<>(watermarkDelays);
    return this;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    positionState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("clock-position", Types.STRING));
    countState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("events-applied", Types.LONG));
    ClockPosition restored = ClockPosition.START;
    for (String text : positionState.get()) {
      restored = ClockPosition.parse(text);
    }
    tick = restored.tick();
    restoredTick = tick;
    lastByStream = new TreeMap<>();
    restored.streams().forEach((stream, vector) -> {
      Map<Integer, MessageId> partitions = new TreeMap<>();
      vector.messageIds().forEach(id -> partitions.put(id.partition(), id));
      lastByStream.put(stream, partitions);
    });
    eventsApplied = 0;
    eventsBehindWatermark = 0;
    List<Long> counts = new java.util.ArrayList<>();
    countState.get().forEach(counts::add);
    if (!counts.isEmpty()) {
      eventsApplied = counts.get(0);
      eventsBehindWatermark = counts.size() > 1 ? counts.get(1) : 0;
    }
    eventTimeState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("event-time", Types.STRING));
    watermarks = new TreeMap<>();
    watermarkDelays.forEach((stream, delay) -> watermarks.put(stream,
        new EventTimeWatermark(delay, Long.MIN_VALUE, Long.MIN_VALUE)));
    for (String entry : eventTimeState.get()) { // stream TAB largest event time TAB watermark
      String[] parts = entry.split("\t");
      if (watermarkDelays.containsKey(parts[0])) {
        watermarks.put(parts[0], new EventTimeWatermark(watermarkDelays.get(parts[0]), Long.parseLong(parts[1]),
            Long.parseLong(parts[2])));
      }
    }
  }

  @Override
  public void processElement(StreamRecord<SourceEvent> element) {
    SourceEvent event = element.getValue();
    if (event.tick <= restoredTick) {
      return; // re-read after a restore: applied before the checkpoint
    }
    if (event.endOfTick) {
      tick = event.tick;
      if (tick == signalAtTick) {
        BackfillSignals.reached(getContainingTask().getEnvironment().getJobID());
      }
      return;
    }
    lastByStream.computeIfAbsent(event.stream, s -> new TreeMap<>()).put(event.partitionIndex(), event.position());
    eventsApplied++;
    EventTimeWatermark watermark = watermarks.get(event.stream);
    if (watermark != null) {
      if (watermark.behind(event.eventTimeMs)) {
        eventsBehindWatermark++;
      }
      watermark.advance(event.eventTimeMs);
    }
    output.collect(element);
  }

  /** The position now: the last tick read whole and the last message IDs read of each stream. */
  ClockPosition position() {
    TreeMap<String, PositionVector> vectors = new TreeMap<>();
    lastByStream.forEach((stream, partitions) -> vectors.put(stream, PositionVector.of(partitions.values())));
    return new ClockPosition(tick, vectors);
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
    output.collect(PositionTracker.PROGRESS, new StreamRecord<>(ViewChange.progress(position().toString(), eventsApplied,
        eventsBehindWatermark)));
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    positionState.update(List.of(position().toString()));
    countState.update(List.of(eventsApplied, eventsBehindWatermark));
    List<String> eventTimes = new java.util.ArrayList<>();
    watermarks.forEach((stream, w) -> eventTimes.add(stream + "\t" + w.maxEventTimeMs() + "\t" + w.watermarkMs()));
    eventTimeState.update(eventTimes);
  }
}
