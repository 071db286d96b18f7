package dev.streamfold.transforms.job;

import dev.streamfold.transforms.source.EventConverter;
import dev.streamfold.transforms.source.SourceEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * One stream's rows of a job that reads several streams from one source: the events of {@code stream}, each
 * converted to a SQL row, in the order they come (the clock's order, so the stream's own ledger order).
 *
 * <p>For event-time windows it also owns the stream's event-time clock ({@link EventTimeWatermark}, the rule
 * {@link PositionTracker} applies for a view over one stream): each row carries its event time as its Flink
 * timestamp, and the stream's watermarks follow its events in the stream's own order. So a window over this
 * stream's rows closes at the same event whenever the ledger is read (backfill, tail, replay), whatever the other
 * streams hold; upstream watermarks are not forwarded (the final
 * one of a bounded replay must not close the windows still open at its stop). The maximum and the watermark are
 * checkpointed.
 *
 * @param <OUT> the row type
 */
public final class StreamRows<OUT> extends AbstractStreamOperator<OUT> implements OneInputStreamOperator<SourceEvent, OUT> {
  private static final long serialVersionUID = 1L;

  private final String stream;
  private final EventConverter<OUT> converter;
  private final long watermarkDelayMs;
  private final boolean ledgerClock;
  private transient ListState<Long> eventTimeState;
  private transient EventTimeWatermark watermark;
  private transient StreamRecord<OUT> reuse;

  /**
   * @param stream the stream whose events become rows
   * @param converter turns one of its events into a row
   * @param watermarkDelayMs for event-time windows, the stream's bounded out-of-orderness in ms; -1 for none (rows
   *     without timestamps, upstream watermarks forwarded)
   */
  StreamRows(String stream, EventConverter<OUT> converter, long watermarkDelayMs) {
    this(stream, converter, watermarkDelayMs, false);
  }

  private StreamRows(String stream, EventConverter<OUT> converter, long watermarkDelayMs, boolean ledgerClock) {
    this.stream = Objects.requireNonNull(stream, "stream");
    this.converter = Objects.requireNonNull(converter, "converter");
    this.watermarkDelayMs = watermarkDelayMs;
    this.ledgerClock = ledgerClock;
    setChainingStrategy(ChainingStrategy.ALWAYS); // in the source's task, as the tracker before it
  }

  /**
   * One stream's rows on a clock set upstream (a training job's ordinals): each row is the event's ledger-clock
   * row ({@link EventConverter#convert} with {@code ledgerClock} true) and keeps the event's Flink timestamp;
   * upstream watermarks are forwarded as they come.
   *
   * @param stream the stream whose events become rows
   * @param converter turns one of its events into a row
   * @param <OUT> the row type
   * @return the operator
   */
  public static <OUT> StreamRows<OUT> ledgerClock(String stream, EventConverter<OUT> converter) {
    return new StreamRows<>(stream, converter, -1, true);
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    eventTimeState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("event-time", Types.LONG));
    List<Long> restored = new ArrayList<>();
    eventTimeState.get().forEach(restored::add);
    watermark = new EventTimeWatermark(watermarkDelayMs, restored.size() == 2 ? restored.get(0) : Long.MIN_VALUE,
        restored.size() == 2 ? restored.get(1) : Long.MIN_VALUE);
    reuse = new StreamRecord<>(null);
  }

  @Override
  public void processElement(StreamRecord<SourceEvent> element) {
    SourceEvent event = element.getValue();
    if (!stream.equals(event.stream)) {
      return;
    }
    if (ledgerClock) {
      output.collect(reuse.replace(converter.convert(event, true), element.getTimestamp()));
      return;
    }
    if (watermarkDelayMs < 0) {
      output.collect(reuse.replace(converter.convert(event, false)));
      return;
    }
    output.collect(reuse.replace(converter.convert(event, false), event.eventTimeMs));
    long next = watermark.advance(event.eventTimeMs);
    if (next != EventTimeWatermark.NONE) {
      output.emitWatermark(new Watermark(next));
    }
  }

  @Override
  public void processWatermark(Watermark mark) throws Exception {
    if (watermarkDelayMs >= 0) {
      return; // this operator owns the stream's event-time clock
    }
    super.processWatermark(mark);
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    eventTimeState.update(List.of(watermark.maxEventTimeMs(), watermark.watermarkMs()));
  }
}
