package dev.streamfold.transforms.training;

import dev.streamfold.transforms.job.RangeFilter;
import dev.streamfold.transforms.job.ReplayBound;
import dev.streamfold.transforms.source.ClockedLedgerSource;
import dev.streamfold.transforms.source.SourceEvent;
import java.util.Set;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The ledger clock of a training set that reads several streams ({@link ClockedLedgerSource}, the tenant clock's
 * order): numbers every event handed on and every end-of-tick marker 0, 1, 2, ... (its <i>ordinal</i>), hands it
 * on with its ordinal as Flink timestamp, and follows it with a watermark of that ordinal. Downstream, as on the
 * one-stream ledger clock ({@link PointInTimeJoin}), every record between two watermarks of a channel with one
 * input was caused by the one event or marker after the first.
 *
 * <p>Events of the label stream outside the set's range (past its stop) are dropped; the other streams' events
 * are all handed on: the source stops after the tick that covers the range's stop, and a label event takes those
 * streams' features at the tick before its own.
 */
final class ClockOrdinals extends AbstractStreamOperator<SourceEvent>
    implements OneInputStreamOperator<SourceEvent, SourceEvent> {
  private static final long serialVersionUID = 1L;

  private final String labelStream;
  private final ReplayBound bound;
  private transient RangeFilter range;
  private transient long ordinal;

  /**
   * @param labelStream the label stream
   * @param bound the label stream's range
   */
  ClockOrdinals(String labelStream, ReplayBound bound) {
    this.labelStream = labelStream;
    this.bound = bound;
    setChainingStrategy(ChainingStrategy.ALWAYS); // in the source's task
  }

  @Override
  public void open() throws Exception {
    super.open();
    range = new RangeFilter(bound, Set.of());
  }

  @Override
  public void processElement(StreamRecord<SourceEvent> element) {
    SourceEvent event = element.getValue();
    if (!event.endOfTick && labelStream.equals(event.stream) && !range.accepts(event)) {
      return;
    }
    long at = ordinal++;
    output.collect(element.replace(event, at));
    output.emitWatermark(new Watermark(at));
  }
}
