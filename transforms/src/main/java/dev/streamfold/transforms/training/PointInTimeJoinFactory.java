package dev.streamfold.transforms.training;

import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;

/** Creates the {@link PointInTimeJoin} of a training-set job. */
final class PointInTimeJoinFactory extends AbstractStreamOperatorFactory<Void> {
  private static final long serialVersionUID = 1L;

  private final TrainingSetPlan plan;

  PointInTimeJoinFactory(TrainingSetPlan plan) {
    this.plan = plan;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends StreamOperator<Void>> T createStreamOperator(StreamOperatorParameters<Void> parameters) {
    return (T) new PointInTimeJoin(parameters, plan);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
    return PointInTimeJoin.class;
  }
}
