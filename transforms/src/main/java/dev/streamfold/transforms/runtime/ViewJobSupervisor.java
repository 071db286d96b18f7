package dev.streamfold.transforms.runtime;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.TransformOptions;
import dev.streamfold.transforms.fold.FoldJarStore;
import dev.streamfold.transforms.job.BackfillSignals;
import dev.streamfold.transforms.job.ViewJobBuilder;
import dev.streamfold.transforms.job.ViewJobSpec;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewSchema;
import dev.streamfold.views.ViewStore;
import dev.streamfold.views.ViewWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Supervises the view jobs, one per view version (the served version's, and an update's beside it): submits
 * each from its checkpoint or from the earliest event, triggers the checkpoint that makes a backfilled version
 * LIVE, follows each job to its end, restarts a failed job from its latest checkpoint with {@link RestartBackoff},
 * records a final failure in the view's metadata (later, when the view store is down), cancels jobs, and reports
 * each job's state, error and stall.
 */
public final class ViewJobSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(ViewJobSupervisor.class);
  /** How often the failures the view store did not take are recorded again, at most, ms. */
  private static final long FAILURE_RECORDING_RETRY_MS = 5_000;

  private final Ledger ledger;
  private final ViewStore views;
  private final TransformOptions options;
  private final FlinkCluster cluster;
  private final CheckpointStore checkpoints;
  private final FoldJarStore jars;
  private final StallDetector stalls;
  private final ScheduledExecutorService restarts;
  private final Clock clock;
  private final Object lock;
  /** Running view jobs by view version. */
  private final Map<JobKey, JobID> jobs = new ConcurrentHashMap<>();
  /** When each running view job was submitted, epoch ms: a stall counts from it or from the last commit. */
  private final Map<JobKey, Long> submittedAtMs = new ConcurrentHashMap<>();
  private final Map<JobKey, String> failures = new ConcurrentHashMap<>();
  private final Map<JobKey, RestartBackoff> backoffs = new ConcurrentHashMap<>();
  /**
   * Jobs that failed and wait for their restart: what {@link #report} reports meanwhile (job state RESTARTING,
   * not FAILED, and the cause as the error), e.g. {@code restart 1 of 5 after: Foo failed on event ...}.
   */
  private final Map<JobKey, String> restarting = new ConcurrentHashMap<>();
  /** Failures the view store did not take yet (it was down), by view job. */
  private final Map<JobKey, String> unrecordedFailures = new ConcurrentHashMap<>();
  private volatile long lastFailureRecordingMs;

  /** One view version's job. */
  private record JobKey(ViewName name, int version) {}

  /**
   * A view job as reported.
   *
   * @param state the Flink job's state, or NOT_RUNNING, RESTARTING (waiting for its restart), FAILING (failed,
   *     its failure not handled yet) or UNKNOWN (the cluster did not answer)
   * @param error the cause of its failure or pending restart, else the error recorded in its metadata, or ""
   * @param stalled why its backfill looks stuck, or ""
   */
  public record Report(String state, String error, String stalled) {}

  /**
   * @param ledger the views' source streams
   * @param views the view store (versions' progress, failures)
   * @param options Redis URI, checkpoint interval, parallelism of the jobs
   * @param cluster where the jobs run
   * @param checkpoints where their checkpoints are kept
   * @param jars the jars of Java transformations
   * @param stalls says why a backfill looks stuck
   * @param restarts runs the delayed restarts
   * @param clock submission, commit and failure times; the restart backoff's time
   * @param lock held while a restart resubmits a job, so that it never races the view lifecycle (update, delete)
   */
  public ViewJobSupervisor(Ledger ledger, ViewStore views, TransformOptions options, FlinkCluster cluster,
      CheckpointStore checkpoints, FoldJarStore jars, StallDetector stalls, ScheduledExecutorService restarts,
      Clock clock, Object lock) {
    this.ledger = ledger;
    this.views = views;
    this.options = options;
    this.cluster = cluster;
    this.checkpoints = checkpoints;
    this.jars = jars;
    this.stalls = stalls;
    this.restarts = restarts;
    this.clock = clock;
    this.lock = lock;
  }

  /**
   * Start a version's job: from {@code checkpoint} (its committed position and backfill target kept) or, with
   * none, from the earliest event with the backfill target recorded now (the latest position, and the event
   * count). The job's end is followed: a failure is restarted with backoff, then recorded.
   *
   * @param definition the version
   * @param checkpoint the retained checkpoint to restore, or empty for a new version
   * @throws TransformException if the cluster does not take the job
   * @throws dev.streamfold.ledger.LedgerException if the stream cannot be described
   */
  public void submit(TransformDefinition definition, Optional<String> checkpoint) {
    ViewName name = viewName(definition);
    JobKey key = new JobKey(name, definition.version());
    views.defineVersion(name, definition.version(), schema(definition));
    JobGraph graph = definition.readsInClockOrder() ? clockedGraph(definition, name, checkpoint)
        : graph(definition, name, checkpoint);
    jars.attach(graph, List.of(definition));
    checkpoint.ifPresent(path -> graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(path, true)));
    JobID id = graph.getJobID();
    // When the job's tracker has applied the backfill target, checkpoint at once: that checkpoint's commit
    // makes the version LIVE (a hint from the task, in this JVM only; see BackfillSignals).
    BackfillSignals.register(id, () -> {
      LOG.info("view {} v{} applied its backfill target: triggering a checkpoint", name, definition.version());
      cluster.triggerCheckpoint(id).whenComplete((done, error) -> {
        if (error != null) {
          LOG.info("checkpoint at the backfill target of view {} v{} not taken ({}); the next periodic one"
              + " commits it", name, definition.version(), error.getMessage());
        }
      });
    });
    try {
      cluster.submitJob(graph).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      BackfillSignals.unregister(id);
      throw new TransformException("cannot submit the job of view " + name + ": " + e.getMessage(), e);
    }
    jobs.put(key, id);
    submittedAtMs.put(key, clock.millis());
    failures.remove(key);
    restarting.remove(key);
    cluster.requestJobResult(id).whenComplete((result, error) -> {
      BackfillSignals.unregister(id);
      if (!id.equals(jobs.get(key))) {
        return; // cancelled or replaced on purpose
      }
      String cause = error != null ? error.getMessage()
          : result.getSerializedThrowable().map(t -> JobFailures.rootCause(t.getFullStringifiedStackTrace())).orElse(null);
      if (cause != null) {
        LOG.error("view job {} v{} failed: {}", name, definition.version(), cause);
        if (restartLater(definition, key, id, cause)) {
          return;
        }
        recordFailure(key, cause);
      }
    });
  }

  /**
   * The job of a version over one stream: from the view's committed message IDs when restored, else from the
   * earliest event with the backfill target (the stream's latest position and event count) recorded now.
   */
  private JobGraph graph(TransformDefinition definition, ViewName name, Optional<String> checkpoint) {
    StreamRef stream = new StreamRef(definition.tenant(), definition.sourceStream());
    StreamInfo info = ledger.describe(stream);
    PositionVector target;
    long targetEvents;
    PositionVector resumeFrom = PositionVector.EMPTY;
    Optional<ViewMetadata> existing = views.metadata(name, definition.version());
    if (checkpoint.isPresent() && existing.isPresent()) {
      target = existing.get().backfillTarget();
      targetEvents = existing.get().backfillTargetEvents();
      resumeFrom = existing.get().position();
    } else {
      // The backfill target is recorded once, when the version starts.
      target = info.latestPosition();
      targetEvents = info.eventCount();
      try (ViewWriter writer = views.writer(name, definition.version())) {
        writer.commit(Map.of(), List.of(), new ViewWriter.Progress(ViewPhase.BACKFILLING, 0, PositionVector.EMPTY,
            targetEvents, target), clock.millis());
      }
    }
    ViewJobSpec spec = ViewJobSpec.builder(definition)
        .stream(info.columns(), stream.topic(), info.partitions(), info.watermarkDelayMs())
        .ledger(ledger.serviceUrl(), ledger.adminUrl())
        .redisUri(options.redisUri())
        .checkpoints(checkpoints.versionDir(definition), options.checkpointInterval())
        .parallelism(options.parallelism())
        .build();
    return ViewJobBuilder.build(spec, target, targetEvents, resumeFrom);
  }

  /**
   * The job of a version over several streams, read in the tenant clock's order: after the view's committed
   * tick when restored, else from the first tick with the backfill target (the clock's last tick and the
   * streams' event count) recorded now.
   */
  private JobGraph clockedGraph(TransformDefinition definition, ViewName name, Optional<String> checkpoint) {
    Map<String, List<StreamColumn>> columns = new TreeMap<>();
    Map<String, Long> delays = new TreeMap<>();
    long events = 0;
    for (String stream : definition.streams()) {
      StreamInfo info = ledger.describe(new StreamRef(definition.tenant(), stream));
      columns.put(stream, info.columns());
      delays.put(stream, info.watermarkDelayMs());
      events += info.eventCount();
    }
    ClockPosition target;
    long targetEvents;
    long resumeAfterTick = 0;
    Optional<ViewMetadata> existing = views.metadata(name, definition.version());
    if (checkpoint.isPresent() && existing.isPresent()) {
      target = existing.get().backfillTargetClock();
      targetEvents = existing.get().backfillTargetEvents();
      resumeAfterTick = Math.max(0, existing.get().clockPosition().tick());
    } else {
      target = ledger.lastTick(definition.tenant()).map(t -> ClockPosition.at(t, definition.streams()))
          .orElse(ClockPosition.START);
      targetEvents = events;
      try (ViewWriter writer = views.writer(name, definition.version())) {
        writer.commit(Map.of(), List.of(), ViewWriter.Progress.clocked(ViewPhase.BACKFILLING, 0, ClockPosition.START,
            targetEvents, target), clock.millis());
      }
    }
    ViewJobSpec spec = ViewJobSpec.builder(definition)
        .clockedStreams(columns, delays)
        .ledger(ledger.serviceUrl(), ledger.adminUrl())
        .redisUri(options.redisUri())
        .checkpoints(checkpoints.versionDir(definition), options.checkpointInterval())
        .parallelism(options.parallelism())
        .build();
    return ViewJobBuilder.buildClocked(spec, target, targetEvents, resumeAfterTick);
  }

  /**
   * Restart a failed view job the exact way: resubmit it from its latest retained checkpoint with the
   * source at the view's committed position (as after a server restart). View jobs run with Flink's
   * restart strategy {@code none} on purpose: Flink's own restart restores the Pulsar source's split
   * state, and the connector resumes after the whole batched entry of its last message ID, losing the rest
   * of that batch ({@code RemoteFlinkIT} kills a TaskManager during a backfill and checks every event).
   *
   * @return true when a restart is scheduled; false when the job failed {@link RestartBackoff#DEFAULT_MAX_RESTARTS}
   *     times within the {@link RestartBackoff} window (or the manager is closing): then it is FAILED
   */
  private boolean restartLater(TransformDefinition definition, JobKey key, JobID failed, String cause) {
    RestartBackoff backoff = backoffs.computeIfAbsent(key, k -> new RestartBackoff(clock));
    long delayMs;
    synchronized (backoff) {
      OptionalLong delay = backoff.next();
      if (delay.isEmpty()) {
        restarting.remove(key);
        return false;
      }
      delayMs = delay.getAsLong();
      restarting.put(key, "restart " + backoff.granted() + " of " + backoff.maxRestarts() + " after: " + cause);
      LOG.warn("restarting view job {} v{} from its latest checkpoint in {} ms (restart {} of {} allowed in {} min)",
          key.name(), key.version(), delayMs, backoff.granted(), backoff.maxRestarts(), backoff.windowMs() / 60_000);
    }
    try {
      restarts.schedule(() -> restart(definition, key, failed), delayMs, TimeUnit.MILLISECONDS);
      return true;
    } catch (RejectedExecutionException closing) {
      restarting.remove(key);
      return false;
    }
  }

  private void restart(TransformDefinition definition, JobKey key, JobID failed) {
    synchronized (lock) {
      restartHoldingLock(definition, key, failed);
    }
  }

  private void restartHoldingLock(TransformDefinition definition, JobKey key, JobID failed) {
    if (!failed.equals(jobs.get(key))) {
      restarting.remove(key);
      return; // deleted, retired, replaced or closed meanwhile
    }
    try {
      submit(definition, checkpoints.latest(definition)); // replaces the job: no longer restarting
    } catch (RuntimeException e) {
      // e.g. the view store still down: a failed resubmission is one more failure, restarted the same way, so
      // a view rides out an outage shorter than the backoff's window
      String cause = "cannot restart: " + (ViewStore.isRedisFailure(e) ? ViewStore.describeRedisFailure(e)
          : e.getMessage());
      LOG.error("cannot restart view job {} v{}", key.name(), key.version(), e);
      if (!restartLater(definition, key, failed, cause)) {
        recordFailure(key, cause);
      }
    }
  }

  /**
   * A view job's final failure: reported by {@link #status} from memory at once, and recorded in the view's
   * metadata (what {@code VIEW.INFO}, {@code VIEW.LIST} and the metrics read) now, or by housekeeping once the
   * view store answers again.
   */
  private void recordFailure(JobKey key, String cause) {
    failures.put(key, cause);
    unrecordedFailures.put(key, cause);
    recordFailures();
  }

  /** Record the failures not recorded yet in the views' metadata; at most every 5 s while the view store is down. */
  private void recordFailures() {
    for (Map.Entry<JobKey, String> failure : unrecordedFailures.entrySet()) {
      JobKey key = failure.getKey();
      try {
        if (failure.getValue().equals(failures.get(key))) { // not restarted or cancelled meanwhile
          views.fail(key.name(), key.version(), failure.getValue());
        }
        unrecordedFailures.remove(key, failure.getValue());
      } catch (RuntimeException e) {
        LOG.warn("cannot record the failure of view {} v{} yet: {}", key.name(), key.version(), e.getMessage());
        lastFailureRecordingMs = clock.millis();
        return;
      }
    }
  }

  /**
   * Cancel a version's job and wait (up to 60 s each) for the cancellation and the job's end; nothing when it has
   * none. Its end is then not followed (no restart, no failure recorded).
   */
  public void cancel(ViewName name, int version) {
    JobKey key = new JobKey(name, version);
    JobID id = jobs.remove(key);
    submittedAtMs.remove(key);
    if (id == null) {
      return;
    }
    try {
      cluster.cancelJob(id).get(60, TimeUnit.SECONDS);
      cluster.requestJobResult(id).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("cancelling the job of {} v{} failed", key.name(), key.version(), e);
    }
  }

  /**
   * Say why a backfill looks stuck, or "" when it does not: its job is RUNNING, it has events left to apply, and
   * its last commit and its job's submission are older than {@link TransformOptions#stallAfter} (a backfill
   * commits at every checkpoint in which it made progress). The cause is named from where the next events are stored: a segment
   * offloaded to S3 and deleted locally points at the S3 endpoint, whose reads the broker retries while the
   * job's consumer waits without an error.
   *
   * @param key the version's job
   * @param definition the version's definition (its source stream)
   * @param metadata the version's metadata, empty before its first commit
   * @param jobState the version's Flink job state
   * @return the stall in words, "" when none
   */
  private String stalled(JobKey key, TransformDefinition definition, Optional<ViewMetadata> metadata,
      String jobState) {
    if (!"RUNNING".equals(jobState) || metadata.isEmpty()) {
      return "";
    }
    return stalls.stalled(new StreamRef(definition.tenant(), definition.sourceStream()), metadata.get(),
        submittedAtMs.getOrDefault(key, 0L), "backfill");
  }

  private String jobState(JobKey key, String restartCause) {
    JobID id = jobs.get(key);
    if (id == null) {
      return "NOT_RUNNING";
    }
    if (restartCause != null) {
      return "RESTARTING"; // the failed job waits for its restart from the latest checkpoint: not FAILED yet
    }
    String state;
    try {
      state = cluster.getJobStatus(id).get(10, TimeUnit.SECONDS).name();
    } catch (Exception e) {
      return "UNKNOWN";
    }
    // Flink's FAILED ends the job, not the view: until the job's result is handled (a restart scheduled, or the
    // failure recorded once restarts ran out) the view is still failing over, not FAILED, which clients take as final
    return state.equals("FAILED") && !failures.containsKey(key) ? "FAILING" : state;
  }

  /** Whether a version has a job (running, or failed and waiting for its restart). */
  public boolean hasJob(ViewName name, int version) {
    return jobs.containsKey(new JobKey(name, version));
  }

  /** Remember a version's failure to start (reported by {@link #report}; not recorded in its metadata). */
  public void failedToStart(ViewName name, int version, String cause) {
    failures.put(new JobKey(name, version), cause);
  }

  /** Forget a version's failure (its rows and metadata are gone). */
  public void forget(ViewName name, int version) {
    failures.remove(new JobKey(name, version));
  }

  /** Forget the failures of every version of a view (it is deleted). */
  public void forgetView(ViewName name) {
    failures.keySet().removeIf(k -> k.name().equals(name));
  }

  /**
   * Report a version's job.
   *
   * @param version the version
   * @param metadata its metadata as just read, empty before its first commit
   */
  public Report report(TransformDefinition version, Optional<ViewMetadata> metadata) {
    JobKey key = new JobKey(viewName(version), version.version());
    // the restart cause read once, for both the state and the error: read apart, a restart scheduled in between
    // showed RESTARTING with no error
    String restartCause = restarting.get(key);
    String error = failures.getOrDefault(key, restartCause != null ? restartCause
        : metadata.map(ViewMetadata::error).orElse(""));
    String state = jobState(key, restartCause);
    return new Report(state, error == null ? "" : error, stalled(key, version, metadata, state));
  }

  /** Housekeeping: record the failures the view store did not take, at most every 5 s while it is down. */
  public void recordPendingFailures() {
    if (!unrecordedFailures.isEmpty() && clock.millis() - lastFailureRecordingMs >= FAILURE_RECORDING_RETRY_MS) {
      recordFailures();
    }
  }

  /**
   * Forget every job (their ends are then not followed) and return them, for the caller to cancel as it closes.
   */
  public List<JobID> detachAll() {
    List<JobID> running = new ArrayList<>(jobs.values());
    jobs.clear();
    return running;
  }

  private static ViewName viewName(TransformDefinition definition) {
    return new ViewName(definition.tenant(), definition.name());
  }

  private static ViewSchema schema(TransformDefinition definition) {
    return new ViewSchema(definition.columns(), definition.keyColumns());
  }
}
