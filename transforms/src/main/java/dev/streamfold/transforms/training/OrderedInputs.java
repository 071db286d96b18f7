package dev.streamfold.transforms.training;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.InputSelectable;
import org.apache.flink.streaming.api.operators.InputSelection;
import org.apache.flink.streaming.api.operators.OperatorAttributes;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.StreamTaskStateInitializer;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.operators.YieldingOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeServiceAware;
import org.apache.flink.streaming.runtime.tasks.TwoInputStreamTask;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Makes the two-input operators of a training job (the joins of Flink SQL) read their inputs in the ledger clock's
 * order, so that their output obeys that clock too and a view joining several streams is exact per event, without a
 * {@link dev.streamfold.transforms.source.TickGate}.
 *
 * <p>Why it holds: upstream, every element of the clock is followed by a watermark of its ordinal on every channel,
 * and every one-input operator forwards the records an element caused before that watermark. So on each input of a
 * join, a record after watermark {@code w} was caused by an element after {@code w}. A join reads whichever input has
 * data; wrapped here, it reads only the input whose watermark is the lower (the first on a tie) and blocks until that
 * one has data, so it takes records in the order of their elements and emits, between two output watermarks (the
 * lower of its inputs'), only what the one element between them caused. It cannot deadlock as long as no task but the
 * source feeds both inputs: the input behind has been sent every element the other has seen, with its watermark (each
 * element's watermark goes to every channel), and the source sends a bounded number of records per element. (A shared
 * sub-plan could block on the input not read while sending the other its watermark: training jobs plan without sub-plan
 * reuse, {@link TrainingJobs#tableEnvironment}. An input marked idle is not expected: the clock never idles.) A union
 * (several channels into one input) cannot be ordered this way: a view that unions streams is cut through a gate
 * instead, and {@link #apply} refuses a graph with a union when there is none.
 */
final class OrderedInputs {
  private OrderedInputs() {}

  /**
   * Wrap the head operator of every task with two network inputs in {@link Ordered}.
   *
   * @param graph the job graph, not yet submitted
   * @param classLoader loads the operators' factories (the planner's classes)
   * @param pointInTimeJoin the name of the point-in-time join, which orders its inputs itself (by their watermarks)
   * @param unionsGated whether the views that union streams are cut at markers through a gate (their tasks may merge
   *     channels then); false: no task may
   * @return the number of operators wrapped
   * @throws IllegalStateException if some task merges several channels into one input (a union), or reads more than
   *     two inputs, and {@code unionsGated} is false: its output would not obey the clock
   */
  static int apply(JobGraph graph, ClassLoader classLoader, String pointInTimeJoin, boolean unionsGated) {
    int wrapped = 0;
    for (JobVertex vertex : graph.getVertices()) {
      if (vertex.getName().contains(pointInTimeJoin)) {
        continue;
      }
      boolean twoInputs = TwoInputStreamTask.class.getName().equals(vertex.getInvokableClassName());
      if (!unionsGated && vertex.getInputs().size() > (twoInputs ? 2 : 1)) {
        throw new IllegalStateException("task '" + vertex.getName() + "' merges " + vertex.getInputs().size()
            + " inputs (a union): its output would not follow the ledger clock; refusing to write rows that may leak");
      }
      if (!twoInputs || vertex.getInputs().size() != 2) {
        continue;
      }
      StreamConfig config = new StreamConfig(vertex.getConfiguration());
      StreamOperatorFactory<Object> inner = config.getStreamOperatorFactory(classLoader);
      config.setStreamOperatorFactory(new Factory<>(inner));
      config.serializeAllConfigs();
      wrapped++;
    }
    return wrapped;
  }

  /** Creates the wrapped operator, handing the task's processing-time service to the inner factory. */
  static final class Factory<OUT> extends AbstractStreamOperatorFactory<OUT> {
    private static final long serialVersionUID = 1L;
    private final StreamOperatorFactory<OUT> inner;

    Factory(StreamOperatorFactory<OUT> inner) {
      this.inner = inner;
      this.chainingStrategy = inner.getChainingStrategy();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<OUT>> T createStreamOperator(StreamOperatorParameters<OUT> parameters) {
      if (inner instanceof ProcessingTimeServiceAware aware) {
        aware.setProcessingTimeService(processingTimeService);
      }
      TwoInputStreamOperator<Object, Object, OUT> operator = inner.createStreamOperator(parameters);
      return (T) new Ordered<>(operator);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
      return Ordered.class;
    }
  }

  /** A two-input operator that reads the input with the lower watermark first; everything else delegated. */
  static final class Ordered<IN1, IN2, OUT> implements TwoInputStreamOperator<IN1, IN2, OUT>, InputSelectable,
      BoundedMultiInput, YieldingOperator<OUT> {
    private static final long serialVersionUID = 1L;
    private final TwoInputStreamOperator<IN1, IN2, OUT> inner;
    private long watermark1 = Long.MIN_VALUE;
    private long watermark2 = Long.MIN_VALUE;

    Ordered(TwoInputStreamOperator<IN1, IN2, OUT> inner) {
      this.inner = inner;
    }

    /**
     * The input with the lower watermark (the first on a tie); both once either has seen the final watermark (its
     * records are all taken: only its end is left, which a selection must not wait for).
     */
    @Override
    public InputSelection nextSelection() {
      if (watermark1 == Long.MAX_VALUE || watermark2 == Long.MAX_VALUE) {
        return InputSelection.ALL;
      }
      return watermark1 <= watermark2 ? InputSelection.FIRST : InputSelection.SECOND;
    }

    @Override
    public void processWatermark1(Watermark mark) throws Exception {
      watermark1 = Math.max(watermark1, mark.getTimestamp());
      inner.processWatermark1(mark);
    }

    @Override
    public void processWatermark2(Watermark mark) throws Exception {
      watermark2 = Math.max(watermark2, mark.getTimestamp());
      inner.processWatermark2(mark);
    }

    @Override
    public void endInput(int inputId) throws Exception {
      if (inputId == 1) {
        watermark1 = Long.MAX_VALUE;
      } else {
        watermark2 = Long.MAX_VALUE;
      }
      if (inner instanceof BoundedMultiInput bounded) {
        bounded.endInput(inputId);
      }
    }

    @Override
    public void setMailboxExecutor(MailboxExecutor executor) {
      if (inner instanceof YieldingOperator<OUT> yielding) {
        yielding.setMailboxExecutor(executor);
      }
    }

    @Override
    public void processElement1(StreamRecord<IN1> element) throws Exception {
      inner.processElement1(element);
    }

    @Override
    public void processElement2(StreamRecord<IN2> element) throws Exception {
      inner.processElement2(element);
    }

    @Override
    public void processLatencyMarker1(LatencyMarker marker) throws Exception {
      inner.processLatencyMarker1(marker);
    }

    @Override
    public void processLatencyMarker2(LatencyMarker marker) throws Exception {
      inner.processLatencyMarker2(marker);
    }

    @Override
    public void processWatermarkStatus1(WatermarkStatus status) throws Exception {
      inner.processWatermarkStatus1(status);
    }

    @Override
    public void processWatermarkStatus2(WatermarkStatus status) throws Exception {
      inner.processWatermarkStatus2(status);
    }

    @Override
    public void processRecordAttributes1(RecordAttributes attributes) throws Exception {
      inner.processRecordAttributes1(attributes);
    }

    @Override
    public void processRecordAttributes2(RecordAttributes attributes) throws Exception {
      inner.processRecordAttributes2(attributes);
    }

    @Override
    public void open() throws Exception {
      inner.open();
    }

    @Override
    public void finish() throws Exception {
      inner.finish();
    }

    @Override
    public void close() throws Exception {
      inner.close();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
      inner.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public OperatorSnapshotFutures snapshotState(long checkpointId, long timestamp, CheckpointOptions options,
        CheckpointStreamFactory storageLocation) throws Exception {
      return inner.snapshotState(checkpointId, timestamp, options, storageLocation);
    }

    @Override
    public void initializeState(StreamTaskStateInitializer initializer) throws Exception {
      inner.initializeState(initializer);
    }

    @Override
    public void setKeyContextElement1(StreamRecord<?> record) throws Exception {
      inner.setKeyContextElement1(record);
    }

    @Override
    public void setKeyContextElement2(StreamRecord<?> record) throws Exception {
      inner.setKeyContextElement2(record);
    }

    @Override
    public OperatorMetricGroup getMetricGroup() {
      return inner.getMetricGroup();
    }

    @Override
    public OperatorID getOperatorID() {
      return inner.getOperatorID();
    }

    @Override
    public OperatorAttributes getOperatorAttributes() {
      return inner.getOperatorAttributes();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
      inner.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
      ((CheckpointListener) inner).notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void setCurrentKey(Object key) {
      inner.setCurrentKey(key);
    }

    @Override
    public Object getCurrentKey() {
      return inner.getCurrentKey();
    }
  }
}
