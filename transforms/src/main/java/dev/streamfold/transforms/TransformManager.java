package dev.streamfold.transforms;

import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.StreamColumn;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.ledger.StreamRef;
import dev.streamfold.transforms.job.ViewJobBuilder;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewSchema;
import dev.streamfold.views.ViewStore;
import dev.streamfold.views.ViewWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every transformation as a Flink job in an embedded MiniCluster: validates and plans SQL before
 * anything starts, stores definitions in the catalog, submits, watches and cancels jobs, and on start
 * resumes every view from its latest retained checkpoint. A view version with no checkpoint is never
 * restarted from earliest on its existing subscription (that would re-read everything into live
 * rows): it is rebuilt as the next version on a new subscription and served once caught up.
 */
public final class TransformManager implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TransformManager.class);

  private final Ledger ledger;
  private final ViewStore views;
  private final TransformOptions options;
  private final TransformCatalog catalog;
  private final Map<ViewName, JobID> jobs = new ConcurrentHashMap<>();
  private final Map<ViewName, String> failures = new ConcurrentHashMap<>();
  private MiniCluster cluster;

  /**
   * Create a manager; call {@link #start()} before use.
   *
   * @param ledger the ledger (catalog storage and sources)
   * @param views the view store
   * @param options Redis URI, data directory, checkpoint interval, parallelism
   */
  public TransformManager(Ledger ledger, ViewStore views, TransformOptions options) {
    this.ledger = ledger;
    this.views = views;
    this.options = options;
    this.catalog = new TransformCatalog(ledger);
  }

  /**
   * Start the embedded Flink MiniCluster and resume every transformation of every tenant.
   *
   * @throws TransformException if the cluster cannot start
   */
  public synchronized void start() {
    try {
      Path tmp = options.dataDir().resolve("flink-tmp");
      Files.createDirectories(tmp);
      Configuration conf = new Configuration();
      conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
      conf.set(RestOptions.BIND_PORT, "0");
      conf.set(CoreOptions.TMP_DIRS, tmp.toString());
      conf.set(TaskManagerOptions.NUM_TASK_SLOTS, options.taskSlots());
      conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(64));
      conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(128));
      conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(128));
      cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
          .setNumTaskManagers(1).setNumSlotsPerTaskManager(options.taskSlots()).build());
      cluster.start();
    } catch (Exception e) {
      throw new TransformException("cannot start the embedded Flink MiniCluster: " + e.getMessage(), e);
    }
    for (String tenant : ledger.tenants()) {
      if (!options.tenants().isEmpty() && !options.tenants().contains(tenant)) {
        continue;
      }
      for (TransformDefinition definition : catalog.list(tenant)) {
        try {
          resume(definition);
        } catch (RuntimeException e) {
          LOG.error("cannot resume transformation {}/{}", tenant, definition.name(), e);
          failures.put(viewName(definition), e.getMessage());
        }
      }
    }
  }

  private void resume(TransformDefinition definition) {
    views.define(viewName(definition), schema(definition));
    Optional<Path> checkpoint = latestCheckpoint(definition);
    if (checkpoint.isPresent()) {
      LOG.info("resuming {} v{} from {}", viewName(definition), definition.version(), checkpoint.get());
      submit(definition, checkpoint);
    } else {
      TransformDefinition next = definition.withVersion(definition.version() + 1);
      LOG.info("no checkpoint for {} v{}: rebuilding as v{}", viewName(definition), definition.version(), next.version());
      catalog.put(next);
      submit(next, Optional.empty());
    }
  }

  /**
   * Validate and plan a SQL transformation, store it in the catalog and start its job (backfill from
   * earliest, then tail).
   *
   * @param tenant tenant name
   * @param name transformation and view name
   * @param sql Flink SQL over one of the tenant's streams
   * @param keyColumns row-key columns, or empty for the first result column
   * @return the stored definition (version 1)
   * @throws IllegalArgumentException if the name is malformed
   * @throws TransformException.AlreadyExists if the name is taken
   * @throws TransformException.InvalidSql if the SQL does not plan; nothing was stored or started
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public synchronized TransformDefinition create(String tenant, String name, String sql, List<String> keyColumns) {
    ViewName viewName = new ViewName(tenant, name);
    if (catalog.get(tenant, name).isPresent()) {
      throw new TransformException.AlreadyExists(tenant, name);
    }
    Map<String, List<StreamColumn>> streams = new LinkedHashMap<>();
    for (StreamRef stream : ledger.listStreams(tenant)) {
      streams.put(stream.stream(), ledger.describe(stream).columns());
    }
    ViewJobBuilder.PlannedQuery plan = ViewJobBuilder.plan(sql, streams, keyColumns);
    TransformDefinition definition = new TransformDefinition(tenant, name, sql.trim(), plan.sourceStream(),
        plan.keyColumns(), plan.columns(), 1, System.currentTimeMillis());
    views.drop(viewName);
    deleteCheckpoints(definition);
    catalog.put(definition);
    views.define(viewName, schema(definition));
    submit(definition, Optional.empty());
    return definition;
  }

  private void submit(TransformDefinition definition, Optional<Path> checkpoint) {
    ViewName name = viewName(definition);
    StreamRef stream = new StreamRef(definition.tenant(), definition.sourceStream());
    StreamInfo info = ledger.describe(stream);
    String targetId;
    long targetEvents;
    List<String> resumeFrom = List.of();
    Optional<ViewMetadata> existing = views.metadata(name, definition.version());
    if (checkpoint.isPresent() && existing.isPresent()) {
      targetId = existing.get().backfillTargetMessageId();
      targetEvents = existing.get().backfillTargetEvents();
      resumeFrom = existing.get().position();
    } else {
      // The backfill target is recorded once, when the version starts.
      targetId = info.latest().map(Object::toString).orElse("");
      targetEvents = info.eventCount();
      try (ViewWriter writer = views.writer(name, definition.version())) {
        writer.commit(Map.of(), List.of(), new ViewWriter.Progress(ViewPhase.BACKFILLING, 0, List.of(),
            targetEvents, targetId), System.currentTimeMillis());
      }
    }
    JobGraph graph = ViewJobBuilder.build(definition, info.columns(), stream.topic(), ledger.serviceUrl(),
        ledger.adminUrl(), options.redisUri(), checkpointDir(definition).toUri().toString(),
        options.checkpointInterval(), options.parallelism(), targetId, targetEvents, resumeFrom);
    checkpoint.ifPresent(path -> graph.setSavepointRestoreSettings(
        SavepointRestoreSettings.forPath(path.toString(), true)));
    try {
      cluster.submitJob(graph).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new TransformException("cannot submit the job of view " + name + ": " + e.getMessage(), e);
    }
    JobID id = graph.getJobID();
    jobs.put(name, id);
    failures.remove(name);
    cluster.requestJobResult(id).whenComplete((result, error) -> {
      if (!id.equals(jobs.get(name))) {
        return; // cancelled or replaced on purpose
      }
      String cause = error != null ? error.getMessage()
          : result.getSerializedThrowable().map(t -> t.getFullStringifiedStackTrace().split("\n")[0]).orElse(null);
      if (cause != null) {
        LOG.error("view job {} failed: {}", name, cause);
        failures.put(name, cause);
        try {
          views.fail(name, definition.version(), cause);
        } catch (RuntimeException e) {
          LOG.warn("cannot record the failure of {}", name, e);
        }
      }
    });
  }

  /**
   * Return a transformation.
   *
   * @throws TransformException.NotFound if it does not exist
   */
  public TransformDefinition get(String tenant, String name) {
    return catalog.get(tenant, name).orElseThrow(() -> new TransformException.NotFound(tenant, name));
  }

  /**
   * Count the events in a view's source stream now (for the lag in events).
   *
   * @param tenant tenant name
   * @param view view (transformation) name
   * @return the count, or empty when the view is unknown or the ledger cannot say
   */
  public java.util.OptionalLong sourceEvents(String tenant, String view) {
    Optional<TransformDefinition> definition = catalog.get(tenant, view);
    if (definition.isEmpty()) {
      return java.util.OptionalLong.empty();
    }
    try {
      return java.util.OptionalLong.of(ledger.describe(new StreamRef(tenant, definition.get().sourceStream())).eventCount());
    } catch (RuntimeException e) {
      return java.util.OptionalLong.empty();
    }
  }

  /** List a tenant's transformations, by name. */
  public List<TransformDefinition> list(String tenant) {
    return catalog.list(tenant);
  }

  /**
   * Report a transformation's view status.
   *
   * @throws TransformException.NotFound if it does not exist
   */
  public ViewStatus status(String tenant, String name) {
    TransformDefinition definition = get(tenant, name);
    ViewName viewName = viewName(definition);
    Optional<ViewMetadata> building = views.metadata(viewName, definition.version());
    String state = "NOT_RUNNING";
    JobID id = jobs.get(viewName);
    if (id != null) {
      try {
        JobStatus status = cluster.getJobStatus(id).get(10, TimeUnit.SECONDS);
        state = status.name();
      } catch (Exception e) {
        state = "UNKNOWN";
      }
    }
    String error = failures.getOrDefault(viewName, building.map(ViewMetadata::error).orElse(""));
    return new ViewStatus(definition, building, views.servedVersion(viewName), state, error == null ? "" : error);
  }

  /**
   * Stop a transformation's job and remove it, its view and its checkpoints.
   *
   * @return true when it existed
   */
  public synchronized boolean delete(String tenant, String name) {
    Optional<TransformDefinition> definition = catalog.get(tenant, name);
    if (definition.isEmpty()) {
      return false;
    }
    ViewName viewName = viewName(definition.get());
    JobID id = jobs.remove(viewName);
    if (id != null) {
      try {
        cluster.cancelJob(id).get(60, TimeUnit.SECONDS);
        cluster.requestJobResult(id).get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("cancelling the job of {} failed", viewName, e);
      }
    }
    catalog.delete(tenant, name);
    views.drop(viewName);
    failures.remove(viewName);
    deleteCheckpoints(definition.get());
    StreamRef stream = new StreamRef(tenant, definition.get().sourceStream());
    for (int v = 1; v <= definition.get().version(); v++) {
      ledger.deleteSubscription(stream, ViewJobBuilder.subscription(definition.get().withVersion(v)));
    }
    return true;
  }

  private static ViewName viewName(TransformDefinition definition) {
    return new ViewName(definition.tenant(), definition.name());
  }

  private static ViewSchema schema(TransformDefinition definition) {
    return new ViewSchema(definition.columns(), definition.keyColumns());
  }

  private Path checkpointDir(TransformDefinition definition) {
    return options.dataDir().toAbsolutePath().resolve("checkpoints").resolve(definition.tenant())
        .resolve(definition.name()).resolve("v" + definition.version());
  }

  private void deleteCheckpoints(TransformDefinition definition) {
    Path dir = options.dataDir().toAbsolutePath().resolve("checkpoints").resolve(definition.tenant())
        .resolve(definition.name());
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The newest completed retained checkpoint of a version: {@code <dir>/<job id>/chk-N/_metadata}. */
  private Optional<Path> latestCheckpoint(TransformDefinition definition) {
    Path dir = checkpointDir(definition);
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.find(dir, 3, (p, attrs) -> p.getFileName().toString().equals("_metadata")
        && p.getParent().getFileName().toString().startsWith("chk-"))) {
      return files.max(Comparator.comparingLong(p -> p.toFile().lastModified())).map(Path::getParent);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Cancel every job and stop the MiniCluster. Checkpoints are retained on cancellation, so each view
   * resumes from its latest checkpoint on the next start.
   */
  @Override
  public synchronized void close() {
    List<JobID> running = List.copyOf(jobs.values());
    jobs.clear();
    if (cluster != null) {
      for (JobID id : running) {
        try {
          cluster.cancelJob(id).get(30, TimeUnit.SECONDS);
          cluster.requestJobResult(id).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
          LOG.warn("cancelling job {} failed", id, e);
        }
      }
      try {
        cluster.close();
      } catch (Exception e) {
        LOG.warn("closing the Flink MiniCluster failed", e);
      }
    }
  }
}
