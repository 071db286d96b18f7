package dev.streamfold.transforms.sink;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.PositionVector;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewStore;
import dev.streamfold.views.ViewWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The view sink, Flink's Sink V2 two-phase API. The writer buffers the row changes between two
 * checkpoint barriers (the last change per key wins) and, at the barrier, turns them and the position
 * the {@link dev.streamfold.transforms.job.PositionTracker} emitted before that barrier into one {@link ViewCommit}. Flink keeps the
 * commit in the checkpoint; the committer applies it to Redis only once the checkpoint has completed,
 * in one atomic script ({@link ViewWriter#commit}) that skips a commit already applied. After a crash
 * the job restores the last completed checkpoint and the committer re-applies that checkpoint's
 * commits, so every view state in Redis is the fold of the ledger up to its recorded position: nothing
 * is applied twice and nothing is skipped. Runs with parallelism 1 (the position is one vector per view).
 *
 * <p>A bounded sink (a replay into a virtual state) applies each commit itself, in order, at the barrier
 * and at the end of input, and hands nothing to the committer: a replay never restarts (a failed one is
 * reported and run again from scratch), so it needs no two-phase commit, and its job can end as soon as
 * its input does instead of waiting for a final checkpoint (see {@link dev.streamfold.transforms.job.ViewJobBuilder#buildReplay}).
 */
public final class RedisViewSink implements Sink<ViewChange>, SupportsCommitter<ViewCommit> {
  private static final long serialVersionUID = 2L;
  private static final Logger LOG = LoggerFactory.getLogger(RedisViewSink.class);

  private final String redisUri;
  private final String tenant;
  private final String view;
  private final int version;
  private final String[] columns;
  private final String backfillTargetMessageId;
  private final long backfillTargetEvents;
  private final boolean bounded;
  /** True for a view over several streams: positions and the target are {@link ClockPosition} texts. */
  private final boolean clocked;

  /**
   * Create the sink of one view version.
   *
   * @param redisUri Redis URI
   * @param name the view
   * @param version the version this job fills
   * @param columns result column names in order
   * @param backfillTargetMessageId the backfill target's text form ({@link PositionVector}): the latest message ID
   *     of every partition holding events when the job started, "" when the stream was empty
   * @param backfillTargetEvents events in the stream when the job started
   * @param bounded true for a replay into a virtual state: its phase stays BACKFILLING and it is never
   *     served by the sink (the transform manager completes and serves it once the job has finished);
   *     false for a view job, whose version is served once it is LIVE
   */
  public RedisViewSink(String redisUri, ViewName name, int version, List<String> columns,
      String backfillTargetMessageId, long backfillTargetEvents, boolean bounded) {
    this(redisUri, name, version, columns, backfillTargetMessageId, backfillTargetEvents, bounded, false);
  }

  private RedisViewSink(String redisUri, ViewName name, int version, List<String> columns, String backfillTarget,
      long backfillTargetEvents, boolean bounded, boolean clocked) {
    this.clocked = clocked;
    this.bounded = bounded;
    this.redisUri = redisUri;
    this.tenant = name.tenant();
    this.view = name.view();
    this.version = version;
    this.columns = columns.toArray(new String[0]);
    this.backfillTargetMessageId = backfillTarget;
    this.backfillTargetEvents = backfillTargetEvents;
  }

  /**
   * Create the sink of one version of a view over several streams, whose commits are at ticks of the tenant
   * clock: each commit's position is a {@link ClockPosition} text, and the version is LIVE once a commit's tick
   * has reached the target's.
   *
   * @param redisUri Redis URI
   * @param name the view
   * @param version the version this job fills
   * @param columns result column names in order
   * @param backfillTarget the clock's last tick when the job started, with its vectors of the streams read
   *     ({@link ClockPosition#START} when the clock had no tick)
   * @param backfillTargetEvents events in the streams read when the job started
   * @return the sink
   */
  public static RedisViewSink clocked(String redisUri, ViewName name, int version, List<String> columns,
      ClockPosition backfillTarget, long backfillTargetEvents) {
    return new RedisViewSink(redisUri, name, version, columns, backfillTarget.toString(), backfillTargetEvents, false,
        true);
  }

  /**
   * Create the sink of a replay of a view over several streams into a virtual state (bounded: phase BACKFILLING,
   * never served by the sink; see the bounded constructor argument).
   *
   * @param redisUri Redis URI
   * @param target the virtual state (version 1)
   * @param columns result column names in order
   * @param stop the tick the replay stops after, with its vectors of the streams read
   * @param targetEvents events the replay may apply at most
   * @return the sink
   */
  public static RedisViewSink clockedReplay(String redisUri, ViewName target, List<String> columns, ClockPosition stop,
      long targetEvents) {
    return new RedisViewSink(redisUri, target, 1, columns, stop.toString(), targetEvents, true, true);
  }

  /** The progress a commit records, in the position form of this sink's view. */
  private ViewWriter.Progress progress(ViewPhase phase, ViewCommit commit) {
    if (clocked) {
      return ViewWriter.Progress.clocked(phase, commit.eventsApplied(), ClockPosition.parse(commit.position()),
          backfillTargetEvents, ClockPosition.parse(backfillTargetMessageId), commit.eventsBehindWatermark());
    }
    return new ViewWriter.Progress(phase, commit.eventsApplied(), PositionVector.parse(commit.position()),
        backfillTargetEvents, PositionVector.parse(backfillTargetMessageId), commit.eventsBehindWatermark());
  }

  /** The phase after a commit at {@code position} of a view job (not a bounded one). */
  private ViewPhase phase(String position) {
    if (clocked) {
      return ClockPosition.parse(position).tick() >= ClockPosition.parse(backfillTargetMessageId).tick()
          ? ViewPhase.LIVE : ViewPhase.BACKFILLING;
    }
    return phase(position, backfillTargetMessageId);
  }

  @Override
  public CommittingSinkWriter<ViewChange, ViewCommit> createWriter(WriterInitContext context) {
    return bounded ? new Writer(columns, new DirectCommits()) : new Writer(columns);
  }

  @Override
  @SuppressWarnings("deprecation")
  public SinkWriter<ViewChange> createWriter(InitContext context) {
    return bounded ? new Writer(columns, new DirectCommits()) : new Writer(columns);
  }

  /** Where a bounded writer applies its commits itself (the virtual state in Redis). */
  interface CommitTarget extends AutoCloseable {
    void apply(ViewCommit commit);

    @Override
    void close();
  }

  /** Applies a bounded sink's commits to Redis from the writer, in order (phase BACKFILLING). */
  private final class DirectCommits implements CommitTarget {
    private ViewStore store;
    private ViewWriter writer;

    @Override
    public void apply(ViewCommit commit) {
      if (store == null) {
        store = ViewStore.connect(redisUri);
        writer = store.writer(new ViewName(tenant, view), version);
      }
      writer.commit(commit.upserts(), commit.deletes(), progress(ViewPhase.BACKFILLING, commit),
          System.currentTimeMillis());
    }

    @Override
    public void close() {
      if (writer != null) {
        writer.close();
      }
      if (store != null) {
        store.close();
      }
    }
  }

  @Override
  public Committer<ViewCommit> createCommitter(CommitterInitContext context) {
    return new ViewCommitter();
  }

  @Override
  public SimpleVersionedSerializer<ViewCommit> getCommittableSerializer() {
    return new ViewCommitSerializer();
  }

  /**
   * Decide the phase after a commit at {@code position}.
   *
   * @param position last applied message IDs (text), one per partition, comma-separated; "" when none
   * @param target backfill target: the latest message ID of each partition holding events when the version
   *     started (a position vector, comma-separated); "" when the stream was empty at start
   * @return LIVE when the position has reached the target in every partition of the target, else BACKFILLING
   */
  static ViewPhase phase(String position, String target) {
    return PositionVector.parse(position).reached(PositionVector.parse(target)) ? ViewPhase.LIVE
        : ViewPhase.BACKFILLING;
  }

  /** Buffers changes between barriers and hands them over as one commit per checkpoint. */
  static final class Writer implements CommittingSinkWriter<ViewChange, ViewCommit> {
    private final String[] columns;
    private final CommitTarget direct;
    private final Map<String, Map<String, String>> upserts = new LinkedHashMap<>();
    private final Set<String> deletes = new LinkedHashSet<>();
    private ViewChange progress;
    private String lastPosition;
    private long lastEvents = -1;

    Writer(String[] columns) {
      this(columns, null);
    }

    /**
     * @param columns result column names in order
     * @param direct where to apply each commit at once (a bounded sink), or null to hand commits to the
     *     committer through the checkpoint
     */
    Writer(String[] columns, CommitTarget direct) {
      this.columns = columns;
      this.direct = direct;
    }

    @Override
    public void write(ViewChange change, Context context) {
      switch (change.kind) {
        case ViewChange.UPSERT -> {
          deletes.remove(change.key);
          Map<String, String> row = new LinkedHashMap<>();
          for (int i = 0; i < columns.length; i++) {
            if (change.values[i] != null) {
              row.put(columns[i], change.values[i]);
            }
          }
          upserts.put(change.key, row);
        }
        case ViewChange.DELETE -> {
          upserts.remove(change.key);
          deletes.add(change.key);
        }
        default -> progress = change;
      }
    }

    @Override
    public void flush(boolean endOfInput) {
      // Nothing to do: changes leave the writer only through prepareCommit, at the barrier.
    }

    @Override
    public Collection<ViewCommit> prepareCommit() {
      if (progress == null) {
        if (!upserts.isEmpty() || !deletes.isEmpty()) {
          throw new IllegalStateException("row changes without a position at a barrier: the position "
              + "tracker must emit progress before every barrier");
        }
        return List.of();
      }
      if (upserts.isEmpty() && deletes.isEmpty() && progress.position.equals(lastPosition)
          && progress.eventsApplied == lastEvents) {
        progress = null;
        return List.of();
      }
      ViewCommit commit = new ViewCommit(new LinkedHashMap<>(upserts), new ArrayList<>(deletes),
          progress.position, progress.eventsApplied, progress.eventsBehindWatermark);
      lastPosition = progress.position;
      lastEvents = progress.eventsApplied;
      upserts.clear();
      deletes.clear();
      progress = null;
      if (direct != null) {
        direct.apply(commit); // at a barrier or at the end of input (after flush(true))
        return List.of();
      }
      return List.of(commit);
    }

    @Override
    public void close() {
      if (direct != null) {
        direct.close();
      }
    }
  }

  /** Applies completed checkpoints' commits to Redis, idempotently, in checkpoint order. */
  private final class ViewCommitter implements Committer<ViewCommit> {
    private final ViewName name = new ViewName(tenant, view);
    private ViewStore store;
    private ViewWriter writer;
    private boolean live;

    private void open() {
      if (store == null) {
        store = ViewStore.connect(redisUri);
        writer = store.writer(name, version);
      }
    }

    @Override
    public void commit(Collection<CommitRequest<ViewCommit>> requests) {
      boolean blocked = false;
      for (CommitRequest<ViewCommit> request : requests) {
        if (blocked) {
          // keep commit order: a request left unsignalled would count as committed
          request.retryLater();
          continue;
        }
        ViewCommit commit = request.getCommittable();
        try {
          open();
          ViewPhase phase = bounded ? ViewPhase.BACKFILLING
              : live ? ViewPhase.LIVE : phase(commit.position());
          boolean applied = writer.commit(commit.upserts(), commit.deletes(), progress(phase, commit),
              System.currentTimeMillis());
          if (!applied) {
            request.signalAlreadyCommitted();
          }
          if (phase == ViewPhase.LIVE && !live) {
            // Served unless a newer version is (atomic for readers); the transform manager retires
            // older versions once their jobs are stopped.
            store.serve(name, version);
            live = true;
            LOG.info("view {} v{} is LIVE: committed {} events, position {}", name, version, commit.eventsApplied(),
                commit.position());
          }
        } catch (RuntimeException e) {
          if (ViewStore.isRedisFailure(e) && request.getNumberOfRetries() < 100) {
            LOG.warn("commit to view {} v{} failed (retry {}): {}", name, version, request.getNumberOfRetries(),
                e.getMessage());
            closeQuietly();
            request.retryLater();
          } else {
            request.signalFailedWithUnknownReason(e);
          }
          blocked = true;
        }
      }
    }

    private void closeQuietly() {
      try {
        close();
      } catch (RuntimeException ignored) {
        // reconnect on the next attempt
      }
      store = null;
      writer = null;
    }

    @Override
    public void close() {
      if (writer != null) {
        writer.close();
      }
      if (store != null) {
        store.close();
      }
    }
  }
}
