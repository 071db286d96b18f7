package dev.streamfold.transforms.manager;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.MessageIdLocator;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.ReplayCursor;
import dev.streamfold.transforms.ServedTransforms;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.TransformOptions;
import dev.streamfold.transforms.ViewStatus;
import dev.streamfold.transforms.VirtualStateStatus;
import dev.streamfold.transforms.fold.FoldClasses;
import dev.streamfold.transforms.fold.FoldJarStore;
import dev.streamfold.transforms.replay.EventLocator;
import dev.streamfold.transforms.replay.ReplayManager;
import dev.streamfold.transforms.replay.TickStops;
import dev.streamfold.transforms.runtime.CheckpointStore;
import dev.streamfold.transforms.runtime.EmbeddedMiniCluster;
import dev.streamfold.transforms.runtime.FlinkCluster;
import dev.streamfold.transforms.runtime.StallDetector;
import dev.streamfold.transforms.runtime.ViewJobSupervisor;
import dev.streamfold.transforms.sql.SqlPlanner;
import dev.streamfold.transforms.training.TrainingSetManager;
import dev.streamfold.transforms.training.TrainingSetSpec;
import dev.streamfold.transforms.training.TrainingSetExplanation;
import dev.streamfold.transforms.training.TrainingSetStatus;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.flink.api.common.JobID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every transformation as a Flink job (on the embedded MiniCluster or a session cluster): the facade the
 * gRPC services and the query-service call, over one class per role: {@link TransformPlanner} (SQL checked and
 * planned before anything starts), {@link ViewVersions} (served versions, updates, retirement, resumption),
 * {@link ViewJobSupervisor} (jobs, restarts, stalls), {@link ReplayManager} (virtual states, rollback),
 * {@link TrainingSetManager} and {@link FoldJarStore}. On start every view resumes from its latest retained
 * checkpoint; a version with no checkpoint is never restarted from earliest on its existing subscription (that
 * would re-read everything into live rows): it is rebuilt as the next version on a new subscription and served
 * once caught up. Every method that changes state runs under this manager's lock.
 */
public final class TransformManager implements ServedTransforms, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TransformManager.class);

  private final Ledger ledger;
  private final ViewStore views;
  private final TransformOptions options;
  private final TransformCatalog catalog;
  private final CheckpointStore checkpoints;
  private final ViewVersions versions;
  private final StallDetector stalls;
  private final FoldJarStore jars;
  private final EventLocator locator;
  private final MessageIdLocator streams;
  private final TransformPlanner planner;
  private final Clock clock;
  private final Supplier<FlinkCluster> clusters;
  private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "transform-housekeeping");
    t.setDaemon(true);
    return t;
  });
  private FlinkCluster cluster;
  private ViewJobSupervisor jobs;
  private ReplayManager replays;
  private TrainingSetManager trainingSets;

  /**
   * Create a manager; call {@link #start()} before use.
   *
   * @param ledger the ledger (catalog storage and sources)
   * @param views the view store
   * @param options Redis URI, data directory, checkpoint interval, parallelism
   */
  public TransformManager(Ledger ledger, ViewStore views, TransformOptions options) {
    this(ledger, views, options, Clock.systemUTC(), () -> clusterFor(options));
  }

  /**
   * Create a manager with its time and its Flink cluster given; call {@link #start()} before use.
   *
   * @param ledger the ledger (catalog storage and sources)
   * @param views the view store
   * @param options Redis URI, data directory, checkpoint interval, parallelism
   * @param clock the time of commits, submissions, restarts and stalls
   * @param clusters the Flink cluster the jobs run on, asked for once by {@link #start()} (which owns it from
   *     then on and closes it in {@link #close()})
   */
  public TransformManager(Ledger ledger, ViewStore views, TransformOptions options, Clock clock,
      Supplier<FlinkCluster> clusters) {
    this.clock = clock;
    this.clusters = clusters;
    this.ledger = ledger;
    this.views = views;
    this.options = options;
    this.catalog = new TransformCatalog(ledger, TransformCatalog.TABLE);
    this.checkpoints = new CheckpointStore(options.checkpointsUri());
    this.versions = new ViewVersions(ledger, views, catalog,
        new TransformCatalog(ledger, TransformCatalog.UPDATES_TABLE), checkpoints);
    this.stalls = new StallDetector(ledger, options.stallAfter(), clock);
    this.locator = new EventLocator(ledger);
    this.streams = new MessageIdLocator(ledger);
    this.planner = new TransformPlanner(ledger);
    this.jars = new FoldJarStore(ledger, options.dataDir().resolve("jars"));
  }

  /**
   * Start the Flink cluster (the embedded MiniCluster unless {@link TransformOptions#flinkRestAddress} names one) and resume every transformation of every tenant.
   *
   * @throws TransformException if the cluster cannot start
   */
  public synchronized void start() {
    cluster = clusters.get();
    jobs = new ViewJobSupervisor(ledger, views, options, cluster, checkpoints, jars, stalls, housekeeping, clock, this);
    replays = new ReplayManager(ledger, views, options, cluster, this, jars, locator, streams, stalls, housekeeping,
        clock);
    trainingSets = new TrainingSetManager(ledger, cluster, this, jars, locator, new TickStops(ledger, streams),
        options.dataDir(), housekeeping, clock);
    trainingSets.failInterrupted();
    versions.start(jobs);
    for (String tenant : ledger.tenants()) {
      if (!options.tenants().isEmpty() && !options.tenants().contains(tenant)) {
        continue;
      }
      versions.resumeTenant(tenant);
      replays.failInterrupted(tenant);
    }
    housekeeping.scheduleWithFixedDelay(this::retireSafely, 250, 250, TimeUnit.MILLISECONDS);
  }

  /** The cluster {@code options} name: a session cluster's REST address, else the embedded MiniCluster. */
  private static FlinkCluster clusterFor(TransformOptions options) {
    if (options.flinkRestAddress() != null) {
      FlinkCluster remote = FlinkCluster.remote(options.flinkRestAddress());
      LOG.info("running view jobs on {}", remote.describe());
      return remote;
    }
    return FlinkCluster.embedded(EmbeddedMiniCluster.start(options.dataDir().resolve("flink-tmp"), options.taskSlots()));
  }

  /**
   * Validate and plan a SQL transformation, store it in the catalog and start its job (backfill from
   * earliest, then tail).
   *
   * @param tenant tenant name
   * @param name transformation and view name
   * @param sql Flink SQL over one or more of the tenant's streams
   * @param keyColumns row-key columns, or empty for the first result column
   * @return the stored definition (version 1)
   * @throws IllegalArgumentException if the name is malformed
   * @throws TransformException.AlreadyExists if the name is taken
   * @throws TransformException.InvalidSql if the SQL does not plan; nothing was stored or started
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public synchronized TransformDefinition create(String tenant, String name, String sql, List<String> keyColumns) {
    checkNewName(tenant, name);
    long start = System.nanoTime();
    Map<String, List<StreamColumn>> streams = planner.streamColumns(tenant);
    long described = System.nanoTime();
    SqlPlanner.PlannedQuery plan = planner.plan(tenant, sql, streams, keyColumns);
    long planned = System.nanoTime();
    TransformDefinition created = versions.startNew(TransformDefinition.sql(tenant, name, sql.trim(), plan.streams(),
        plan.keyColumns(), plan.columns(), 1, clock.millis(), planner.clockOrdered(tenant, plan)));
    LOG.info("view {}/{} v1 created in {} ms: columns of {} streams {} ms, SQL validated and planned {} ms, job built"
        + " and submitted {} ms", tenant, name, (System.nanoTime() - start) / 1_000_000, streams.size(),
        (described - start) / 1_000_000, (planned - described) / 1_000_000, (System.nanoTime() - planned) / 1_000_000);
    return created;
  }

  /** Check a new transformation's name is free (a view name, not a virtual state's). */
  private void checkNewName(String tenant, String name) {
    ViewName viewName = new ViewName(tenant, name);
    if (viewName.isPositionForm()) {
      throw new IllegalArgumentException("invalid transformation name '" + name + "': '@' marks virtual states");
    }
    if (catalog.get(tenant, name).isPresent()) {
      throw new TransformException.AlreadyExists(tenant, name);
    }
    if (views.virtualState(viewName).isPresent()) {
      throw new TransformException.VirtualStateExists(tenant, name, "a virtual state: drop it first with streamfold"
          + " view drop " + name + ", or choose another view name");
    }
  }

  /**
   * Validate a Java transformation, store its jar in the tenant's ledger (kept forever, so the view can be
   * rebuilt or replayed years later), store the transformation in the catalog and start its job
   * (backfill from earliest, then tail). The class is loaded and checked before anything is stored or
   * started (see {@link FoldClasses#inspect}).
   *
   * @param tenant tenant name
   * @param name transformation and view name
   * @param stream the stream it folds
   * @param jar the jar holding the class (its dependencies included; Flink, Jackson and Streamfold's
   *     {@code transforms} classes are provided)
   * @param className the {@link dev.streamfold.transforms.fold.Transformation} class
   * @return the stored definition (version 1)
   * @throws IllegalArgumentException if the name is malformed or the jar is empty or too large
   * @throws TransformException.AlreadyExists if the name is taken
   * @throws TransformException.InvalidFold if the class cannot run; nothing was stored or started
   * @throws dev.streamfold.ledger.LedgerException.StreamNotFound if the stream does not exist
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public synchronized TransformDefinition createFold(String tenant, String name, String stream, byte[] jar,
      String className) {
    checkNewName(tenant, name);
    return versions.startNew(foldDefinition(tenant, name, stream, jar, className, 1));
  }

  /**
   * Start the next version of a transformation as a Java transformation (a SQL transformation may become
   * one, and back); otherwise exactly like {@link #update}.
   *
   * @return the new version's definition
   * @throws TransformException.NotFound if the transformation does not exist
   * @throws TransformException.InvalidFold if the class cannot run; nothing changed
   */
  public synchronized TransformDefinition updateFold(String tenant, String name, String stream, byte[] jar,
      String className) {
    get(tenant, name);
    return versions.startUpdate(foldDefinition(tenant, name, stream, jar, className, versions.nextVersion(tenant, name)));
  }

  private TransformDefinition foldDefinition(String tenant, String name, String stream, byte[] jar, String className,
      int version) {
    ledger.describe(new StreamRef(tenant, stream)); // StreamNotFound first
    if (jar == null || jar.length == 0) {
      throw new TransformException.InvalidFold("the jar is empty", null);
    }
    FoldJarStore.Stored stored = jars.store(tenant, name, jar, className);
    return new TransformDefinition(tenant, name, null, stream, List.of(stored.shape().keyColumn()),
        stored.shape().viewColumns(), version, clock.millis(), className, stored.sha256());
  }

  /**
   * Start the next version of a transformation beside the served one: the new SQL is validated and
   * planned first (an invalid update changes nothing), then its job backfills from the earliest event
   * into its own view version while the served version keeps serving. When the new version is LIVE
   * (caught up with the ledger as of its start), its sink serves it (one atomic swap for readers), and
   * the manager stops the old version's job and removes its rows, subscription and checkpoints. An
   * update started while another is in progress replaces it. A failed update leaves the served version
   * untouched; its error shows in {@link #status}.
   *
   * @param tenant tenant name
   * @param name the transformation
   * @param sql the new Flink SQL (may read another stream, add, drop or retype columns)
   * @param keyColumns row-key columns, or empty for the first result column
   * @return the new version's definition
   * @throws TransformException.NotFound if the transformation does not exist
   * @throws TransformException.InvalidSql if the SQL does not plan; nothing changed
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public synchronized TransformDefinition update(String tenant, String name, String sql, List<String> keyColumns) {
    get(tenant, name);
    SqlPlanner.PlannedQuery plan = planner.plan(tenant, sql, planner.streamColumns(tenant), keyColumns);
    return versions.startUpdate(TransformDefinition.sql(tenant, name, sql.trim(), plan.streams(),
        plan.keyColumns(), plan.columns(), versions.nextVersion(tenant, name), clock.millis(),
        planner.clockOrdered(tenant, plan)));
  }

  private void retireSafely() {
    jobs.recordPendingFailures();
    try {
      synchronized (this) {
        versions.retire();
      }
    } catch (RuntimeException e) {
      LOG.warn("retiring superseded view versions failed (will retry)", e);
    }
  }

  /**
   * Return a transformation as served: the version readers see once an update's job has swapped it in,
   * even before housekeeping has moved it from the updates to the catalog.
   *
   * @throws TransformException.NotFound if it does not exist
   */
  @Override
  public TransformDefinition get(String tenant, String name) {
    return versions.current(tenant, name).served();
  }

  /**
   * The stream of those a view reads (as served) that holds a message ID: for waits on a view over several
   * streams, which commits at ticks of the tenant clock.
   *
   * @param tenant tenant name
   * @param view view (transformation) name
   * @param id the message ID
   * @return the stream's name, or empty when none of the view's streams holds it
   * @throws TransformException.NotFound if the view does not exist
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public Optional<String> streamOf(String tenant, String view, MessageId id) {
    return streams.streamOf(tenant, get(tenant, view).streams(), id);
  }

  /**
   * Count the events in the streams a view reads now (for the lag in events).
   *
   * @param tenant tenant name
   * @param view view (transformation) name
   * @return the count, or empty when the view is unknown or the ledger cannot say
   */
  public OptionalLong sourceEvents(String tenant, String view) {
    if (catalog.get(tenant, view).isEmpty()) {
      return OptionalLong.empty();
    }
    try {
      // the served version's stream: an update may fold another stream
      long events = 0;
      for (String stream : get(tenant, view).streams()) {
        events += ledger.describe(new StreamRef(tenant, stream)).eventCount();
      }
      return OptionalLong.of(events);
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  @Override
  public boolean exists(String tenant, String name) {
    return catalog.get(tenant, name).isPresent();
  }

  @Override
  public List<String> names(String tenant) {
    return catalog.list(tenant).stream().map(TransformDefinition::name).toList();
  }

  /** List a tenant's transformations as served (see {@link #get}), by name. */
  public List<TransformDefinition> list(String tenant) {
    List<TransformDefinition> served = new ArrayList<>();
    for (TransformDefinition definition : catalog.list(tenant)) {
      try {
        served.add(get(tenant, definition.name()));
      } catch (TransformException.NotFound deletedMeanwhile) {
        // gone since the listing
      }
    }
    return served;
  }

  /**
   * Report a transformation's view status: the served version's figures (those {@code VIEW.INFO} reports),
   * and an update only while it is not served yet.
   *
   * @throws TransformException.NotFound if it does not exist
   */
  public ViewStatus status(String tenant, String name) {
    ViewVersions.Current current = versions.current(tenant, name);
    TransformDefinition definition = current.served();
    ViewName viewName = ViewVersions.viewName(definition);
    Optional<ViewMetadata> building = views.metadata(viewName, definition.version());
    ViewJobSupervisor.Report job = jobs.report(definition, building);
    Optional<ViewStatus.Update> update = current.pending().map(next -> {
      Optional<ViewMetadata> progress = views.metadata(viewName, next.version());
      ViewJobSupervisor.Report nextJob = jobs.report(next, progress);
      return new ViewStatus.Update(next, progress, nextJob.state(), nextJob.error(), nextJob.stalled());
    });
    return new ViewStatus(definition, building, current.servedVersion(), job.state(), job.error(), update,
        views.rollbackTarget(viewName).map(ViewName::view), job.stalled());
  }

  /**
   * Replay a view's transformation over a range of the ledger into a new virtual state; returns at once (see
   * {@link ReplayManager#replay}).
   *
   * @param tenant tenant name
   * @param view the view (transformation) to replay
   * @param from where to start, or empty for the earliest event (a full-history state)
   * @param to where to stop ({@code inclusive} false for {@code --before})
   * @param as the virtual state's name; empty for the position form {@code <view>@<message ID>}
   * @return the new virtual state
   * @throws TransformException.NotFound if the view does not exist
   * @throws TransformException.InvalidReplay if a message ID is not in the stream (the message names the
   *     stream and its first and latest message IDs), the start is after the stop, or a name is needed
   * @throws TransformException.VirtualStateExists if the name is taken
   * @throws TransformException.Conflict if the view's transformation no longer plans against its stream
   * @throws IllegalArgumentException if the name is malformed
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public synchronized VirtualStateStatus replay(String tenant, String view, Optional<ReplayCursor> from,
      ReplayCursor to, Optional<String> as) {
    return replays.replay(tenant, view, from, to, as);
  }

  /**
   * When the replay into a virtual state ends: completes once its job has ended and the state is recorded
   * COMPLETE or FAILED.
   *
   * @param tenant tenant name
   * @param name the virtual state
   * @return a future completed on the end of its running replay, or already completed when none runs
   */
  public CompletableFuture<Void> replayEnded(String tenant, String name) {
    return replays.replayEnded(tenant, name);
  }

  /**
   * Describe a virtual state and its progress.
   *
   * @throws TransformException.VirtualStateNotFound if {@code name} is not a virtual state
   */
  public VirtualStateStatus virtualState(String tenant, String name) {
    return replays.virtualState(tenant, name);
  }

  /** List a tenant's virtual states, by name. */
  public List<VirtualStateStatus> virtualStates(String tenant) {
    return replays.virtualStates(tenant);
  }

  /**
   * Remove a virtual state (stopping its replay if it still runs).
   *
   * @return true when it existed
   * @throws TransformException.Conflict if a view is rolled back to it (resume the view first)
   */
  public synchronized boolean dropVirtualState(String tenant, String name) {
    return replays.dropVirtualState(tenant, name);
  }

  /**
   * Roll a view back: its reads return a complete, full-history virtual state of it until {@link #resume}
   * (see {@link ReplayManager#rollback}).
   *
   * @param tenant tenant name
   * @param view the view
   * @param state the virtual state to serve (replayed from this view, from the earliest event)
   * @throws TransformException.NotFound if the view does not exist
   * @throws TransformException.VirtualStateNotFound if the state does not exist
   * @throws TransformException.Conflict if the state is of another view, does not start at the earliest
   *     event, or is not complete
   */
  public synchronized void rollback(String tenant, String view, String state) {
    replays.rollback(tenant, view, state);
  }

  /**
   * Point a rolled-back view's reads at its live state again (one Redis write, atomic for readers).
   *
   * @return true when the view was rolled back, false when it already served its live state
   * @throws TransformException.NotFound if the view does not exist
   */
  public synchronized boolean resume(String tenant, String view) {
    return replays.resume(tenant, view);
  }

  /**
   * Build a point-in-time-correct training set from the ledger; returns at once (see
   * {@link TrainingSetManager#create}).
   *
   * @param spec the training set
   * @return its status (RUNNING, or COMPLETE at once for an empty stream)
   * @throws TransformException.InvalidTrainingSet if a name, view, column, expression, cursor or the
   *     output is not usable; the message names the field
   * @throws TransformException.Conflict if a build of that name is running
   * @throws TransformException.NotFound if a feature view does not exist
   * @throws TransformException.InvalidReplay if the stop message ID is not in the stream
   * @throws dev.streamfold.ledger.LedgerException.StreamNotFound if the label stream does not exist
   */
  public synchronized TrainingSetStatus createTrainingSet(TrainingSetSpec spec) {
    return trainingSets.create(spec);
  }

  /**
   * The plan of a training set, validated as {@link #createTrainingSet} validates it, without building it
   * ({@code training-set create --dry-run}).
   *
   * @param spec the training set
   * @return what the build would read and write
   * @throws TransformException.InvalidTrainingSet as {@link #createTrainingSet}, and its other exceptions but
   *     the conflict with a running build
   */
  public TrainingSetExplanation explainTrainingSet(TrainingSetSpec spec) {
    return trainingSets.explain(spec);
  }

  /**
   * Report a training set's build.
   *
   * @param tenant tenant name
   * @param name the training set
   * @return its status with current progress
   * @throws TransformException.InvalidTrainingSet if no build of that name ran since the server started
   */
  public TrainingSetStatus trainingSet(String tenant, String name) {
    return trainingSets.status(tenant, name);
  }

  /**
   * Stop a transformation's job and remove it, its view and its checkpoints.
   *
   * @return true when it existed
   */
  public synchronized boolean delete(String tenant, String name) {
    return versions.delete(tenant, name);
  }

  /**
   * Cancel every job and stop the MiniCluster. Checkpoints are retained on cancellation, so each view
   * resumes from its latest checkpoint on the next start.
   */
  @Override
  public synchronized void close() {
    housekeeping.shutdownNow();
    List<JobID> running = new ArrayList<>();
    if (jobs != null) {
      running.addAll(jobs.detachAll());
      running.addAll(replays.detachAll());
    }
    if (cluster != null) {
      // all at once, within one deadline: one after the other, the deadlines would add up per job
      List<CompletableFuture<?>> ends = new ArrayList<>();
      for (JobID id : running) {
        ends.add(cluster.cancelJob(id).thenCompose(cancelled -> cluster.requestJobResult(id))
            .exceptionally(e -> {
              LOG.warn("cancelling job {} failed", id, e);
              return null;
            }));
      }
      try {
        CompletableFuture.allOf(ends.toArray(new CompletableFuture<?>[0]))
            .get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("not every job ended within 30 s of its cancellation", e);
      }
      try {
        cluster.close();
      } catch (Exception e) {
        LOG.warn("closing the Flink MiniCluster failed", e);
      }
    }
  }
}
