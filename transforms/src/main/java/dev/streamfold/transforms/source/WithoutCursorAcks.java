package dev.streamfold.transforms.source;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A source that never acknowledges its reading position to Pulsar when a checkpoint completes: the
 * Pulsar connector acknowledges, at each completed checkpoint, the cursor of every split, and for a split
 * that already finished it opens a new consumer to do so (its {@code PulsarSourceFetcherManager}). In a
 * bounded job whose reader holds several partitions' splits, that consumer races with the reader shutting
 * down its Pulsar client, and the job failed with {@code Disconnected from server} (seen in replays of
 * partitioned streams). Bounded jobs (replays, training sets) start from their own exact position and
 * delete their subscription when they end, so the acknowledgement was of no use to them.
 *
 * <p>It also closes the connector's reader in the background: the reader's Pulsar client waits out
 * Netty's 2 s quiet period on its event loops when it shuts down, and the task (so the job, so a
 * replay's COMPLETE) waited for it after the last event was applied. The consumers close first inside
 * that call; the replay's subscription is deleted with force when the job has ended anyway.
 *
 * @param <T> records
 * @param <S> splits
 * @param <E> enumerator checkpoints
 */
public final class WithoutCursorAcks<T, S extends SourceSplit, E> implements Source<T, S, E>, ResultTypeQueryable<T> {
  private static final long serialVersionUID = 1L;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(WithoutCursorAcks.class);

  private final Source<T, S, E> delegate;
  private final TypeInformation<T> type;

  /**
   * @param delegate the source, e.g. a {@code PulsarSource}
   * @param type the records' type
   */
  public WithoutCursorAcks(Source<T, S, E> delegate, TypeInformation<T> type) {
    this.delegate = delegate;
    this.type = type;
  }

  @Override
  public Boundedness getBoundedness() {
    return delegate.getBoundedness();
  }

  @Override
  public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
    return new Reader<>(delegate.createReader(context));
  }

  @Override
  public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> context) throws Exception {
    return delegate.createEnumerator(context);
  }

  @Override
  public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> context, E checkpoint) throws Exception {
    return delegate.restoreEnumerator(context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<S> getSplitSerializer() {
    return delegate.getSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
    return delegate.getEnumeratorCheckpointSerializer();
  }

  @Override
  public TypeInformation<T> getProducedType() {
    return type;
  }

  private static final class Reader<T, S extends SourceSplit> implements SourceReader<T, S> {
    private final SourceReader<T, S> delegate;

    Reader(SourceReader<T, S> delegate) {
      this.delegate = delegate;
    }

    @Override
    public void start() {
      delegate.start();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
      return delegate.pollNext(output);
    }

    @Override
    public List<S> snapshotState(long checkpointId) {
      return delegate.snapshotState(checkpointId);
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      return delegate.isAvailable();
    }

    @Override
    public void addSplits(List<S> splits) {
      delegate.addSplits(splits);
    }

    @Override
    public void notifyNoMoreSplits() {
      delegate.notifyNoMoreSplits();
    }

    @Override
    public void handleSourceEvents(org.apache.flink.api.connector.source.SourceEvent event) {
      delegate.handleSourceEvents(event);
    }

    @Override
    public void pauseOrResumeSplits(java.util.Collection<String> toPause, java.util.Collection<String> toResume) {
      delegate.pauseOrResumeSplits(toPause, toResume);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      // deliberately not passed on: see the class comment
    }

    @Override
    public void close() {
      Thread closer = new Thread(() -> {
        try {
          delegate.close();
        } catch (Throwable e) { // nothing waits for it: say what was left open
          LOG.warn("closing a bounded job's Pulsar source reader failed: {}", e.toString());
        }
      }, "bounded-source-reader-close");
      closer.setDaemon(true);
      closer.start();
    }
  }
}
