package dev.streamfold.transforms.source;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.pulsar.source.PulsarSource;
import org.apache.flink.connector.pulsar.source.enumerator.PulsarSourceEnumState;
import org.apache.flink.connector.pulsar.source.split.PulsarPartitionSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A {@link PulsarSource} whose splits come from a {@link PresetSubscriptionEnumerator}: the subscription is
 * created (or reset) at its start position through the admin API, not by the connector's enumerator with a
 * consumer per partition (subscribe, seek, close), which closed its client's connection now and then and
 * failed the job with {@code Disconnected from server} (see the enumerator). The readers are the connector's.
 *
 * @param <T> records
 */
public final class PresetSubscriptionSource<T>
    implements Source<T, PulsarPartitionSplit, PulsarSourceEnumState>, ResultTypeQueryable<T> {
  private static final long serialVersionUID = 1L;

  private final PulsarSource<T> delegate;
  private final PresetSubscriptionEnumerator.Setup setup;

  /**
   * @param delegate the source, built with the same subscription, topics, start and stop
   * @param setup what the enumerator sets up
   */
  public PresetSubscriptionSource(PulsarSource<T> delegate, PresetSubscriptionEnumerator.Setup setup) {
    this.delegate = delegate;
    this.setup = setup;
  }

  @Override
  public Boundedness getBoundedness() {
    return delegate.getBoundedness();
  }

  @Override
  public SourceReader<T, PulsarPartitionSplit> createReader(SourceReaderContext context) throws Exception {
    return delegate.createReader(context);
  }

  @Override
  public SplitEnumerator<PulsarPartitionSplit, PulsarSourceEnumState> createEnumerator(
      SplitEnumeratorContext<PulsarPartitionSplit> context) {
    return new PresetSubscriptionEnumerator(setup, context, null);
  }

  @Override
  public SplitEnumerator<PulsarPartitionSplit, PulsarSourceEnumState> restoreEnumerator(
      SplitEnumeratorContext<PulsarPartitionSplit> context, PulsarSourceEnumState checkpoint) {
    return new PresetSubscriptionEnumerator(setup, context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<PulsarPartitionSplit> getSplitSerializer() {
    return delegate.getSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<PulsarSourceEnumState> getEnumeratorCheckpointSerializer() {
    return delegate.getEnumeratorCheckpointSerializer();
  }

  @Override
  public TypeInformation<T> getProducedType() {
    return delegate.getProducedType();
  }
}
