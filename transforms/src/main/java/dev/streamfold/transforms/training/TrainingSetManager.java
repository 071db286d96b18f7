package dev.streamfold.transforms.training;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.transforms.ReplayCursor;
import dev.streamfold.transforms.ServedTransforms;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.fold.FoldJarStore;
import dev.streamfold.transforms.replay.TickStops;
import dev.streamfold.transforms.job.ReplayBound;
import dev.streamfold.transforms.replay.EventLocator;
import dev.streamfold.transforms.runtime.CheckpointStore;
import dev.streamfold.transforms.runtime.FlinkCluster;
import dev.streamfold.transforms.runtime.JobFailures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds point-in-time-correct training sets (see {@link TrainingSetSpec}) as bounded Flink jobs and reports
 * their builds: validation of every field before anything starts, the projection of the label stream, the
 * range's stop, the job's submission and, when it ends, the status and the manifest. Builds are kept in memory
 * since the server started; a finished build's manifest, beside its output, is its durable record.
 */
public final class TrainingSetManager {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingSetManager.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The file in a running build's scratch directory that holds a labels file's rows in time order. */
  private static final String LABELS_IN_TIME_ORDER = "labels-in-time-order.tsv";
  /** The file in a running build's scratch directory that records it. */
  private static final String BUILD_RECORD = "build.json";

  private final Ledger ledger;
  private final FlinkCluster cluster;
  private final FoldJarStore jars;
  private final TrainingSetPreparer preparer;
  private final Path dataDir;
  private final Executor callbacks;
  private final Clock clock;
  /** Training-set builds since start, by "tenant/name", and the scratch directories of running ones. */
  private final Map<String, TrainingSetStatus> builds = new ConcurrentHashMap<>();
  private final Map<String, Path> scratchDirs = new ConcurrentHashMap<>();




  /**
   * @param ledger the label streams
   * @param cluster where the build jobs run
   * @param served the feature views' served definitions
   * @param jars the jars of Java transformations used as features
   * @param locator resolves the stop's message IDs
   * @param tickStops resolves a stop at a tick of the tenant clock to the label stream's position there
   * @param dataDir relative outputs go under {@code <dataDir>/training-sets}, scratch under {@code <dataDir>/training}
   * @param callbacks runs the end-of-build work (status, manifest, cleanup)
   * @param clock the builds' start and end times
   */
  public TrainingSetManager(Ledger ledger, FlinkCluster cluster, ServedTransforms served, FoldJarStore jars,
      EventLocator locator, TickStops tickStops, Path dataDir, Executor callbacks, Clock clock) {
    this.ledger = ledger;
    this.cluster = cluster;
    this.jars = jars;
    this.preparer = new TrainingSetPreparer(ledger, served, locator, tickStops, dataDir);
    this.dataDir = dataDir.toAbsolutePath();
    this.callbacks = callbacks;
    this.clock = clock;
  }

  /**
   * Build a point-in-time-correct training set from the ledger: validates everything first (views, columns,
   * expressions, output), then starts a bounded Flink job that folds the label stream from the earliest event
   * with each feature view's own SQL and writes one row per label event with the features as the views held
   * them just before it ({@link PointInTimeJoin}). Returns at once; follow it with {@link #status}. When the job
   * ends, a manifest ({@code <output>.manifest.json}) records the range, the transformation versions and the
   * command. A feature from a view over another stream than the label stream, or over several, is cut at the
   * last tick of the tenant clock before the label event ({@link ClockedTrainingSetJob}).
   *
   * @param spec the training set
   * @return its status (RUNNING, or COMPLETE at once for an empty stream)
   * @throws TransformException.InvalidTrainingSet if a name, view, column, expression, cursor or the
   *     output is not usable; the message names the field
   * @throws TransformException.Conflict if a build of that name is running, or one writing the same output file
   * @throws TransformException.NotFound if a feature view does not exist
   * @throws TransformException.InvalidReplay if the stop message ID is not in the stream
   * @throws dev.streamfold.ledger.LedgerException.StreamNotFound if the label stream does not exist
   */
  public TrainingSetStatus create(TrainingSetSpec spec) {
    checkNotRunning(spec.tenant(), spec.name(), null);
    TrainingSetPreparer.Prepared p = preparer.prepare(spec);
    synchronized (builds) { // one build starts at a time, so that the check sees every build started before it
      checkNotRunning(spec.tenant(), spec.name(), p.output());
      return start(p);
    }
  }

  /**
   * Refuse a build while one of the same name, or one writing the same output file, runs: two builds renaming their
   * files to one name would leave one's rows beside the other's manifest.
   *
   * @param output the output file, or null to check the name only
   */
  private void checkNotRunning(String tenant, String name, Path output) {
    for (Map.Entry<String, TrainingSetStatus> build : builds.entrySet()) {
      TrainingSetStatus running = build.getValue();
      if (!running.phase().equals(TrainingSetStatus.RUNNING)) {
        continue;
      }
      if (build.getKey().equals(tenant + "/" + name)) {
        throw new TransformException.Conflict("training set '" + name + "' is being built already");
      }
      if (output != null && Path.of(running.output()).toAbsolutePath().normalize()
          .equals(output.toAbsolutePath().normalize())) {
        boolean ours = build.getKey().startsWith(tenant + "/");
        throw new TransformException.Conflict("--out " + output + ": " + (ours ? "training set '" + running.name()
            + "'" : "another tenant's training set") + " is being built into it; wait for it (`training-set status"
            + (ours ? " " + running.name() : "") + "`) or give another --out");
      }
    }
  }

  /**
   * What {@link #create} would build, validated exactly as it validates, without building anything: no job, no
   * file, no directory. The stop is resolved now ({@code latest}: the stream's latest position now).
   *
   * @param asGiven the training set
   * @return its plan: the streams and views read, the stop, the events to read, the columns and the output
   * @throws TransformException.InvalidTrainingSet as {@link #create}; so do the other exceptions it lists, but for
   *     the build of that name that is running, which a plan does not disturb
   */
  public TrainingSetExplanation explain(TrainingSetSpec asGiven) {
    TrainingSetPreparer.Prepared p = preparer.prepare(asGiven);
    TrainingSetSpec spec = p.spec(); // a stop at a tick resolved to the label stream's position there
    TrainingSetColumns columns = columns(p);
    List<TrainingSetExplanation.Feature> features = new ArrayList<>();
    for (int f = 0; f < spec.features().size(); f++) {
      FeatureSpec feature = spec.features().get(f);
      TransformDefinition view = p.features().views().get(p.features().viewOf()[f]);
      features.add(new TrainingSetExplanation.Feature(feature.name(), view.name(), view.version(),
          view.isFold() ? "java" : "sql", view.streams(), feature.column(), p.features().types().get(feature.name()),
          p.features().joins().get(p.features().joinOf()[f]), feature.ttlMs(),
          cut(p, p.features().viewOf()[f])));
    }
    Path manifest = p.output().resolveSibling(p.output().getFileName() + ".manifest.json");
    String stop = p.asGiven().to().describe(p.asGiven().to().inclusive() ? "to" : "before");
    String output = p.output().toAbsolutePath().toString();
    String format = p.format().name().toLowerCase(java.util.Locale.ROOT);
    if (p.fromFile()) { // no label stream: every stream through the stop tick, and the file's rows
      return new TrainingSetExplanation(spec.name(), "", 0, stop, "", p.range().targetEvents(), false, "", output,
          format, manifest.toAbsolutePath().toString(), columns.names(), columns.types(), features, p.stopTick(),
          p.file().path().toAbsolutePath().toString(), p.file().rows(), p.file().timeColumn(), cutRule(p));
    }
    boolean eventTimeStop = spec.to().kind() == ReplayCursor.Kind.EVENT_TIME;
    String readThrough = String.join(",", p.range().readThrough().stream().map(Object::toString).toList());
    return new TrainingSetExplanation(spec.name(), spec.labelStream(), p.info().partitions(), stop, readThrough,
        p.range().targetEvents(), !p.byEventTime() && !eventTimeStop && !p.info().partitioned(), spec.where(), output, format,
        manifest.toAbsolutePath().toString(), columns.names(), columns.types(), features, p.stopTick(), "", 0, "",
        cutRule(p));
  }

  /** The output's columns: the label stream's own four, or the labels file's columns; then the features. */
  private static TrainingSetColumns columns(TrainingSetPreparer.Prepared p) {
    return p.fromFile() ? TrainingSetColumns.of(p.file().columns(), p.features().types())
        : TrainingSetColumns.of(p.labels().labelType(), p.features().types());
  }

  /** The cut rule of a build: {@code as-served}, {@code event-time} or {@code event-time known-at}. */
  static String cutRule(TrainingSetPreparer.Prepared p) {
    return p.spec().cut().text();
  }

  /** Where a feature view is cut: {@code event} or {@code tick} (as served), {@code event-time}. */
  private static String cut(TrainingSetPreparer.Prepared p, int view) {
    return p.byEventTime() ? "event-time" : p.features().tickViews()[view] ? "tick" : "event";
  }

  /** Submit the build's job (or write an empty file for an empty range) and follow it to its end. */
  private TrainingSetStatus start(TrainingSetPreparer.Prepared p) {
    TrainingSetSpec spec = p.spec();
    StreamRef stream = p.stream();
    StreamInfo info = p.info();
    Path output = p.output();
    TrainingSetFormat format = p.format();
    TrainingSetPreparer.Features features = p.features();
    TrainingSetPreparer.Range range = p.range();
    long stopTick = p.stopTick();
    // what the build reads through: the stop tick of a cut by event time, else the label stream's positions (null: none)
    String readThrough = p.byEventTime() ? "tick:" + stopTick : range.readThrough().isEmpty() ? null
        : String.join(",", range.readThrough().stream().map(Object::toString).toList());
    ReplayBound bound = new ReplayBound(null, Long.MIN_VALUE, range.stopText(),
        spec.to().inclusive(), spec.to().kind() == ReplayCursor.Kind.EVENT_TIME ? spec.to().eventTimeMs() : Long.MAX_VALUE,
        spec.to().inclusive());
    TrainingSetColumns columns = columns(p);
    String run = UUID.randomUUID().toString();
    Path scratch = dataDir.resolve("training").resolve(run);
    try {
      Files.createDirectories(scratch);
      Files.createDirectories(output.toAbsolutePath().getParent());
    } catch (IOException e) {
      throw new TransformException.InvalidTrainingSet("--out: cannot create " + output.getParent() + ": " + e.getMessage());
    }
    TrainingSetPlan plan = new TrainingSetPlan(spec.features(), features.viewNames(), features.viewOf(),
        features.joinOf(), features.columnOf(), features.keyIndexes(), columns, format,
        output.toAbsolutePath().toString(), scratch.resolve("progress.json").toString(),
        features.clocked() ? new TrainingSetPlan.Clocking(true, features.tickViews(),
            features.gated() ? "training-" + run : null)
            : TrainingSetPlan.Clocking.ledgerOrder(features.views().size()));
    String key = spec.tenant() + "/" + spec.name();
    long startedAt = clock.millis();
    String stopId = readThrough == null ? "" : readThrough;
    Path manifest = output.resolveSibling(output.getFileName() + ".manifest.json");
    TrainingSetStatus status = new TrainingSetStatus(spec.name(), TrainingSetStatus.RUNNING, 0, range.targetEvents(), 0,
        output.toString(), manifest.toString(), stopId, startedAt, 0, "");
    List<TransformDefinition> views = features.views();
    if (readThrough == null || range.targetEvents() == 0 || p.fromFile() && p.file().rows() == 0) {
      CheckpointStore.deleteLocalDir(scratch);
      try (TrainingSetWriter writer = TrainingSetWriter.open(format, output, columns)) {
        // an empty range: a file with the schema and no rows
      } catch (IOException e) {
        throw new TransformException.InvalidTrainingSet("--out: cannot write " + output + ": " + e.getMessage());
      }
      status = finish(p, status, columns, 0, 0, "");
      builds.put(key, status);
      return status;
    }
    String subscription = "streamfold-training-" + run;
    // the stop a build reports: the tick of a cut by event time, a partitioned stream's position vector, else the last
    // event read
    String fixedStop = p.byEventTime() ? readThrough
        : info.partitioned() && spec.to().inclusive() ? range.stopText() : null;
    if (p.fromFile()) {
      try {
        p.file().writeInTimeOrder(scratch.resolve(LABELS_IN_TIME_ORDER));
      } catch (IOException e) {
        CheckpointStore.deleteLocalDir(scratch);
        throw new TransformException("cannot write the labels of training set " + spec.name() + " to " + scratch + ": "
            + e.getMessage(), e);
      }
    }
    JobGraph graph = p.byEventTime()
        ? EventTimeTrainingSetJob.build(eventTimeReads(p, scratch), p.projection(), views, plan)
        : features.clocked()
        ? ClockedTrainingSetJob.build(new ClockedTrainingSetJob.Reads(spec.name(), spec.tenant(), spec.labelStream(),
            features.streams(), ledger.serviceUrl(), ledger.adminUrl(), stopTick, bound), p.projection(), views, plan)
        : TrainingSetJobBuilder.build(spec.name(), spec.labelStream(), info.columns(), stream.topic(),
            info.partitions(), ledger.serviceUrl(), ledger.adminUrl(), p.projection(), views, subscription, bound,
            range.readThrough(), plan);
    jars.attach(graph, views);
    try {
      writeBuildRecord(scratch, spec, status);
      cluster.submitJob(graph).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      CheckpointStore.deleteLocalDir(scratch);
      throw new TransformException("cannot submit the training set job " + spec.name() + ": " + e.getMessage(), e);
    }
    builds.put(key, status);
    scratchDirs.put(key, scratch);
    TrainingSetStatus started = status;
    cluster.requestJobResult(graph.getJobID()).whenCompleteAsync((result, error) -> {
      String cause = error != null ? error.getMessage()
          : result.getSerializedThrowable().map(t -> JobFailures.rootCause(t.getFullStringifiedStackTrace())).orElse("");
      long[] progress = progress(scratch);
      // The range ends at the last event folded (for --before and event-time stops, not the stop cursor); on a
      // partitioned stream a message stop is its position vector (rebuild with --to that vector), and an
      // event-time stop is rebuilt with the same event time.
      String lastRead = fixedStop != null ? fixedStop : lastMessageId(scratch);
      TrainingSetStatus ended = new TrainingSetStatus(started.name(), started.phase(), started.eventsRead(),
          started.targetEvents(), started.rows(), started.output(), started.manifest(), lastRead,
          started.startedAtMs(), 0, "");
      try {
        builds.put(key, finish(p, ended, columns, progress[0], progress[1], cause));
      } catch (RuntimeException e) {
        LOG.warn("cannot finish training set {}", key, e);
        builds.put(key, new TrainingSetStatus(spec.name(), TrainingSetStatus.FAILED, progress[0],
            started.targetEvents(), progress[1], started.output(), started.manifest(), lastRead,
            started.startedAtMs(), clock.millis(), "cannot write the manifest: " + e.getMessage()));
      } finally {
        scratchDirs.remove(key);
        CheckpointStore.deleteLocalDir(scratch);
        if (!features.clocked() && !p.byEventTime()) { // a clocked job reads with readers, which leave no subscription
          try {
            ledger.deleteSubscription(stream, subscription);
          } catch (RuntimeException e) {
            LOG.warn("cannot delete training subscription {}", subscription, e);
          }
        }
      }
    }, callbacks);
    return status;
  }

  /**
   * Write the record of a running build into its scratch directory ({@value #BUILD_RECORD}): a record found when the
   * server starts is a build the server stopped during ({@link #failInterrupted}).
   */
  private static void writeBuildRecord(Path scratch, TrainingSetSpec spec, TrainingSetStatus status) throws IOException {
    Map<String, Object> record = new java.util.LinkedHashMap<>();
    record.put("tenant", spec.tenant());
    record.put("name", spec.name());
    record.put("output", status.output());
    record.put("manifest", status.manifest());
    record.put("stop", status.stopMessageId());
    record.put("target_events", status.targetEvents());
    record.put("started_at_ms", status.startedAtMs());
    Files.writeString(scratch.resolve(BUILD_RECORD), JSON.writeValueAsString(record));
  }

  /**
   * Report the builds that were running when the server stopped as FAILED ({@link #status} says so until a build of
   * the same name runs), and delete what they left: the partial output under its temporary name (never the final
   * name: a build renames its file only when complete) and the scratch directory. Call once at start, before any build.
   */
  public void failInterrupted() {
    Path root = dataDir.resolve("training");
    if (!Files.isDirectory(root)) {
      return;
    }
    List<Path> left;
    try (java.util.stream.Stream<Path> dirs = Files.list(root)) {
      left = dirs.toList();
    } catch (IOException e) {
      LOG.warn("cannot list {}", root, e);
      return;
    }
    for (Path scratch : left) {
      try {
        Path file = scratch.resolve(BUILD_RECORD);
        if (Files.exists(file)) {
          JsonNode record = JSON.readTree(Files.readString(file));
          Path output = Path.of(record.path("output").asText());
          Files.deleteIfExists(PointInTimeJoin.inProgress(output));
          long[] progress = progress(scratch);
          String name = record.path("name").asText();
          TrainingSetStatus failed = new TrainingSetStatus(name, TrainingSetStatus.FAILED, progress[0],
              record.path("target_events").asLong(), progress[1], output.toString(), record.path("manifest").asText(),
              record.path("stop").asText(), record.path("started_at_ms").asLong(), clock.millis(),
              "the server stopped during the build (" + progress[0] + " events read); no file was written under "
                  + output + "; build it again");
          builds.put(record.path("tenant").asText() + "/" + name, failed);
          LOG.warn("training set {}/{}: {}", record.path("tenant").asText(), name, failed.error());
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("cannot read the record of an interrupted training set build in {}", scratch, e);
      } finally {
        CheckpointStore.deleteLocalDir(scratch);
      }
    }
  }

  /** What the job of a build cut by event time reads. */
  private EventTimeTrainingSetJob.Reads eventTimeReads(TrainingSetPreparer.Prepared p, Path scratch) {
    TrainingSetSpec spec = p.spec();
    String table = p.fromFile() ? TrainingSetPreparer.LABELS_TABLE : TrainingSetPreparer.LABEL_EVENTS_TABLE;
    EventTimeOrder.Labels labels = p.fromFile()
        ? EventTimeOrder.Labels.ofFile(scratch.resolve(LABELS_IN_TIME_ORDER).toString())
        : EventTimeOrder.Labels.ofStream(spec.labelStream());
    return new EventTimeTrainingSetJob.Reads(spec.name(), spec.tenant(), p.features().streams(), table,
        p.labels().streams().get(table), labels, spec.cut().knownAt(), scratch.toString(), ledger.serviceUrl(),
        ledger.adminUrl(), p.stopTick());
  }

  /** Record the end of a training set: the manifest when it succeeded. */
  private TrainingSetStatus finish(TrainingSetPreparer.Prepared p, TrainingSetStatus started, TrainingSetColumns columns,
      long events, long rows, String cause) {
    TrainingSetSpec spec = p.asGiven();
    TrainingSetPreparer.Features features = p.features();
    long now = clock.millis();
    if (cause != null && !cause.isEmpty()) {
      LOG.error("training set {} failed: {}", spec.name(), cause);
      return new TrainingSetStatus(spec.name(), TrainingSetStatus.FAILED, events, started.targetEvents(), rows,
          started.output(), started.manifest(), started.stopMessageId(), started.startedAtMs(), now, cause);
    }
    Map<String, String> cuts = new java.util.HashMap<>();
    for (int v = 0; v < features.views().size(); v++) {
      cuts.put(features.viewNames().get(v), cut(p, v));
    }
    TrainingSetManifest.write(spec, started, features.views(), columns, events, rows, now, cuts, p.stopTick(),
        p.file(), cutRule(p));
    LOG.info("training set {}: {} rows from {} events in {} ms", spec.name(), rows, events, now - started.startedAtMs());
    return new TrainingSetStatus(spec.name(), TrainingSetStatus.COMPLETE, events, started.targetEvents(), rows,
        started.output(), started.manifest(), started.stopMessageId(), started.startedAtMs(), now, "");
  }

  /**
   * Report a training set's build.
   *
   * @param tenant tenant name
   * @param name the training set
   * @return its status with current progress
   * @throws TransformException.InvalidTrainingSet if no build of that name ran since the server started
   */
  public TrainingSetStatus status(String tenant, String name) {
    String key = tenant + "/" + name;
    TrainingSetStatus status = builds.get(key);
    if (status == null) {
      throw new TransformException.InvalidTrainingSet("no training set '" + name + "' was built in tenant '" + tenant
          + "' since the server started (its manifest, beside the output file, records a finished one)");
    }
    Path scratch = scratchDirs.get(key);
    if (status.phase().equals(TrainingSetStatus.RUNNING) && scratch != null) {
      long[] progress = progress(scratch);
      return new TrainingSetStatus(status.name(), status.phase(), progress[0], status.targetEvents(), progress[1],
          status.output(), status.manifest(), status.stopMessageId(), status.startedAtMs(), 0, "");
    }
    return status;
  }

  /** {events, rows} from a running build's progress file; zeros before its first write. */
  private static long[] progress(Path scratch) {
    Optional<JsonNode> progress = progressFile(scratch);
    return progress.map(node -> new long[] {node.path("events").asLong(), node.path("rows").asLong()})
        .orElse(new long[] {0, 0});
  }

  /** The last message ID a build folded, from its progress file; "" before its first event. */
  private static String lastMessageId(Path scratch) {
    return progressFile(scratch).map(node -> node.path("last_message_id").asText("")).orElse("");
  }

  /** A build's progress file as written by its job, empty before the first write or when unreadable. */
  private static Optional<JsonNode> progressFile(Path scratch) {
    try {
      Path file = scratch.resolve("progress.json");
      return Files.exists(file) ? Optional.of(JSON.readTree(Files.readString(file))) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }


}
