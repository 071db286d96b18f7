package dev.streamfold.transforms.training;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.StoredEvent;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.schema.StreamColumn;
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
import dev.streamfold.transforms.source.PayloadParser;
import dev.streamfold.transforms.sql.SqlPlanner;
import dev.streamfold.transforms.sql.TableEnvironments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
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
  /** The training set's own columns, which a feature may not be named after. */
  private static final List<String> OWN_COLUMNS = List.of("message_id", "event_time", "entity", "label");

  private final Ledger ledger;
  private final FlinkCluster cluster;
  private final ServedTransforms served;
  private final FoldJarStore jars;
  private final EventLocator locator;
  private final TickStops tickStops;
  private final Path dataDir;
  private final Executor callbacks;
  private final Clock clock;
  /** Training-set builds since start, by "tenant/name", and the scratch directories of running ones. */
  private final Map<String, TrainingSetStatus> builds = new ConcurrentHashMap<>();
  private final Map<String, Path> scratchDirs = new ConcurrentHashMap<>();

  /** The label stream's side of a build: its table, the entity, label and filter expressions and their types. */
  private record Labels(String table, Map<String, List<StreamColumn>> streams, String entity, String label,
      String labelType, String where) {}

  /**
   * The features resolved: the distinct views they read (in first-use order), the distinct join expressions,
   * each feature's view, join and column index, the output types by feature name, and each view's key column
   * indexes; per view, whether it is cut at ticks (it reads another stream than the label stream, or several); every
   * stream read (the label stream first) to its columns.
   */
  private record Features(List<TransformDefinition> views, List<String> viewNames, List<String> joins, int[] viewOf,
      int[] joinOf, int[] columnOf, LinkedHashMap<String, String> types, List<int[]> keyIndexes, boolean[] tickViews,
      LinkedHashMap<String, List<StreamColumn>> streams) {
    /** True when some feature is cut at the tenant clock's ticks: the job reads its streams in the clock's order. */
    boolean clocked() {
      for (boolean tick : tickViews) {
        if (tick) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * The range a build reads: through these positions, about this many events (exact on an unpartitioned
   * stream, an upper bound on a partitioned one), stopping at this message ID or position vector (null for an
   * event-time stop).
   */
  private record Range(List<MessageId> readThrough, long targetEvents, String stopText) {}

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
    this.tickStops = tickStops;
    this.ledger = ledger;
    this.cluster = cluster;
    this.served = served;
    this.jars = jars;
    this.locator = locator;
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
   * command. Features must read the label stream: ledger order is defined within one stream only.
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
  public TrainingSetStatus create(TrainingSetSpec spec) {
    TrainingSetStatus running = builds.get(spec.tenant() + "/" + spec.name());
    if (running != null && running.phase().equals(TrainingSetStatus.RUNNING)) {
      throw new TransformException.Conflict("training set '" + spec.name() + "' is being built already");
    }
    Prepared p = prepare(spec);
    return start(p.spec(), p.stream(), p.info(), p.output(), p.format(), p.labels(), p.features(), p.projection(),
        p.range(), p.stopTick());
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
    Prepared p = prepare(asGiven);
    TrainingSetSpec spec = p.spec(); // a stop at a tick resolved to the label stream's position there
    TrainingSetColumns columns = TrainingSetColumns.of(p.labels().labelType(), p.features().types());
    List<TrainingSetExplanation.Feature> features = new ArrayList<>();
    for (int f = 0; f < spec.features().size(); f++) {
      FeatureSpec feature = spec.features().get(f);
      TransformDefinition view = p.features().views().get(p.features().viewOf()[f]);
      features.add(new TrainingSetExplanation.Feature(feature.name(), view.name(), view.version(),
          view.isFold() ? "java" : "sql", view.streams(), feature.column(), p.features().types().get(feature.name()),
          p.features().joins().get(p.features().joinOf()[f]), feature.ttlMs(),
          p.features().tickViews()[p.features().viewOf()[f]] ? "tick" : "event"));
    }
    boolean eventTimeStop = spec.to().kind() == ReplayCursor.Kind.EVENT_TIME;
    String readThrough = String.join(",", p.range().readThrough().stream().map(Object::toString).toList());
    Path manifest = p.output().resolveSibling(p.output().getFileName() + ".manifest.json");
    return new TrainingSetExplanation(spec.name(), spec.labelStream(), p.info().partitions(),
        spec.to().describe(spec.to().inclusive() ? "to" : "before"), readThrough,
        p.range().targetEvents(), !eventTimeStop && !p.info().partitioned(), spec.where(),
        p.output().toAbsolutePath().toString(), p.format().name().toLowerCase(java.util.Locale.ROOT),
        manifest.toAbsolutePath().toString(), columns.names(), columns.types(), features, p.stopTick());
  }

  /**
   * A validated training set: its spec (a stop at a tick resolved to a message ID or position), label stream,
   * output, labels, features, projection and range; the last tick read when a feature is cut at ticks, else -1.
   */
  private record Prepared(TrainingSetSpec spec, StreamRef stream, StreamInfo info, Path output, TrainingSetFormat format,
      Labels labels, Features features, String projection, Range range, long stopTick) {}

  /** Validate every field of a training set and resolve its stop; starts nothing. */
  private Prepared prepare(TrainingSetSpec asGiven) {
    if (!asGiven.name().matches("[A-Za-z_][A-Za-z0-9_-]{0,99}")) {
      throw new TransformException.InvalidTrainingSet("invalid training set name '" + asGiven.name()
          + "': use a letter or '_' then letters, digits, '_' or '-'");
    }
    StreamRef stream = new StreamRef(asGiven.tenant(), asGiven.labelStream());
    StreamInfo info = ledger.describe(stream);
    Labels labels = labels(asGiven, info);
    Features features = features(asGiven, info, labels);
    long stopTick = -1;
    TrainingSetSpec spec;
    if (features.clocked()) {
      stopTick = clockStop(asGiven, stream);
      spec = atTick(asGiven.to().kind() == ReplayCursor.Kind.LATEST ? withStop(asGiven, ReplayCursor.tick(stopTick, true))
          : asGiven, stream, info);
    } else {
      spec = atTick(asGiven, stream, info);
    }
    if (info.partitioned() && spec.to().kind() == ReplayCursor.Kind.MESSAGE) {
      throw new TransformException.InvalidTrainingSet("stream " + stream + " has " + info.partitions() + " partitions:"
          + " --to takes a position vector (one message ID per partition, joined by ','), latest or an event time");
    }
    if (!info.partitioned() && spec.to().kind() == ReplayCursor.Kind.POSITION) {
      throw new TransformException.InvalidTrainingSet("stream " + stream + " is not partitioned: give one message ID,"
          + " not a position vector");
    }
    Path output = Path.of(spec.output());
    if (!output.isAbsolute()) {
      output = dataDir.resolve("training-sets").resolve(output);
    }
    TrainingSetFormat format;
    try {
      format = TrainingSetFormat.of(output);
    } catch (IllegalArgumentException e) {
      throw new TransformException.InvalidTrainingSet("--out: " + e.getMessage());
    }
    String projection = projection(labels, features.joins());
    Range range = range(spec, stream, info);
    return new Prepared(spec, stream, info, output, format, labels, features, projection, range, stopTick);
  }

  /**
   * A spec whose stop is a tick of the tenant clock ({@code --to tick:N}, {@code --before tick:N}) as a stop at the
   * label stream's position at that tick, so that a training set and every view of the tenant can be cut at one
   * instant; any other spec as it is.
   *
   * @throws TransformException.InvalidTrainingSet if the clock has no such tick yet, or the stream held no event at it
   */
  private TrainingSetSpec atTick(TrainingSetSpec spec, StreamRef stream, StreamInfo info) {
    if (spec.to().kind() != ReplayCursor.Kind.TICK) {
      return spec;
    }
    ReplayCursor to;
    try {
      to = tickStops.streamStopAt(stream, info, spec.to());
    } catch (TransformException.InvalidReplay e) {
      throw new TransformException.InvalidTrainingSet("--" + (spec.to().inclusive() ? "to" : "before") + " tick:"
          + spec.to().tick() + ": " + e.getMessage());
    }
    return withStop(spec, to);
  }

  private static TrainingSetSpec withStop(TrainingSetSpec spec, ReplayCursor to) {
    return new TrainingSetSpec(spec.tenant(), spec.name(), spec.labelStream(), spec.entity(), spec.label(),
        spec.where(), spec.features(), to, spec.output(), spec.command());
  }

  /**
   * The last tick a build with features cut at ticks reads: the one that covers the label stream's stop (every
   * label event then has its tick and the one before it read). {@code tick:N}: N ({@code --before}: N - 1); a message
   * ID: the first tick covering it; latest: the clock's last tick now (label events appended since are left out); an
   * event time: the clock's last tick now (the label stream's events are cut at the time).
   *
   * @throws TransformException.InvalidTrainingSet if the clock has no tick yet, or none covering the message ID
   */
  private long clockStop(TrainingSetSpec spec, StreamRef stream) {
    ReplayCursor to = spec.to();
    long last = ledger.lastTick(spec.tenant()).map(dev.streamfold.core.Tick::number).orElse(0L);
    String option = "--" + to.describe(to.inclusive() ? "to" : "before");
    if (last == 0) {
      throw new TransformException.InvalidTrainingSet(option + ": the tenant clock of '" + spec.tenant() + "' has no"
          + " tick yet, and features from views over other streams are cut at its ticks; retry in a moment");
    }
    return switch (to.kind()) {
      case TICK -> to.inclusive() ? to.tick() : Math.max(0, to.tick() - 1);
      case LATEST, EVENT_TIME -> last;
      case MESSAGE -> ledger.firstTick(spec.tenant(), tick -> tick.covers(stream.stream(), to.messageId().get()))
          .map(dev.streamfold.core.Tick::number).orElseThrow(() -> new TransformException.InvalidTrainingSet(option
              + ": no tick of the tenant clock covers it yet (its last tick is " + last + "): it was appended within the"
              + " last tick interval, or is not in stream " + stream + "; retry in a moment"));
      default -> throw new TransformException.InvalidTrainingSet(option + ": features from views over other streams"
          + " are cut at the tenant clock's ticks; stop at a message ID, tick:N, an event time or latest");
    };
  }

  /** Check the entity, label and filter expressions against the label stream. */
  private static Labels labels(TrainingSetSpec spec, StreamInfo info) {
    Map<String, List<StreamColumn>> streams = Map.of(spec.labelStream(), info.columns());
    String table = TableEnvironments.quote(spec.labelStream());
    String entity = requireExpression("--entity", spec.entity());
    String label = requireExpression("--label", spec.label());
    checkExpression("--entity", entity, "CAST((" + entity + ") AS STRING)", table, streams);
    String labelType = checkExpression("--label", label, label, table, streams);
    String where = spec.where().isEmpty() ? "TRUE" : spec.where();
    String whereType = checkExpression("--where", where, where, table, streams);
    if (!whereType.equals("BOOLEAN")) {
      // a CAST to BOOLEAN plans for any string and fails the job on the first value that is not 'true'/'false'
      throw new TransformException.InvalidTrainingSet("--where: '" + where + "' is " + whereType + ", not a condition;"
          + " give a condition on the label stream's columns, e.g. delay > 15");
    }
    return new Labels(table, streams, entity, label, labelType, where);
  }

  /** Resolve each feature to its view, column and join, checking each, in the order given. */
  private Features features(TrainingSetSpec spec, StreamInfo info, Labels labels) {
    List<TransformDefinition> views = new ArrayList<>();
    List<String> viewNames = new ArrayList<>();
    List<String> joins = new ArrayList<>();
    int n = spec.features().size();
    int[] viewOf = new int[n];
    int[] joinOf = new int[n];
    int[] columnOf = new int[n];
    LinkedHashMap<String, String> featureTypes = new LinkedHashMap<>();
    LinkedHashMap<String, List<StreamColumn>> streams = new LinkedHashMap<>();
    streams.put(spec.labelStream(), info.columns());
    List<Boolean> tickOfView = new ArrayList<>();
    for (int f = 0; f < n; f++) {
      FeatureSpec feature = spec.features().get(f);
      TransformDefinition view = served.get(spec.tenant(), feature.view());
      Map<String, List<StreamColumn>> viewStreams = new LinkedHashMap<>();
      for (String read : view.streams()) {
        viewStreams.put(read, streams.computeIfAbsent(read, r -> read.equals(spec.labelStream()) ? info.columns()
            : ledger.describe(new StreamRef(spec.tenant(), r)).columns()));
      }
      boolean tickView = view.readsSeveralStreams() || !view.sourceStream().equals(spec.labelStream());
      if (!view.isFold() && SqlPlanner.analyze(view.sql(), viewStreams, null).eventTimeWindows()) {
        throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": view '" + view.name()
            + "' uses event-time windows; windowed views are not supported as features yet");
      }
      if (tickView && feature.ttlMs() >= 0) {
        throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": view '" + view.name()
            + "' reads " + (view.readsSeveralStreams() ? "several streams " + view.streams() : "stream '"
            + view.sourceStream() + "'") + ", not the label stream alone, so it is cut at the tenant clock's ticks and"
            + " its rows carry no event time of the label stream to age; a time to live (/ttl) is supported on"
            + " features from views over the label stream only");
      }
      if (tickView && info.partitioned()) {
        throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": view '" + view.name()
            + "' reads " + view.streams() + ", not the label stream alone, and the label stream '" + spec.labelStream()
            + "' has " + info.partitions() + " partitions; features cut at the tenant clock's ticks are supported with"
            + " an unpartitioned label stream only, for now");
      }
      List<String> columns = new ArrayList<>(view.columns().keySet());
      columnOf[f] = columns.indexOf(feature.column());
      if (columnOf[f] < 0) {
        throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": view '" + view.name()
            + "' has no column '" + feature.column() + "'; its columns: " + columns);
      }
      if (OWN_COLUMNS.contains(feature.name())) {
        throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": the column name '"
            + feature.name() + "' is taken by the training set's own columns (message_id, event_time, entity, label);"
            + " name the feature, e.g. " + feature.column() + "_feature=" + feature.view() + "." + feature.column());
      }
      if (featureTypes.put(feature.name(), view.columns().get(feature.column())) != null) {
        throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": the column name '"
            + feature.name() + "' is used by another feature; give one of them another name (name=VIEW.column)");
      }
      if (!viewNames.contains(view.name())) {
        viewNames.add(view.name());
        views.add(view);
        tickOfView.add(tickView);
      }
      viewOf[f] = viewNames.indexOf(view.name());
      String join = feature.join().isEmpty() ? labels.entity() : feature.join();
      checkExpression("feature " + feature.describe() + " join", join, "CAST((" + join + ") AS STRING)",
          labels.table(), labels.streams());
      if (!joins.contains(join)) {
        joins.add(join);
      }
      joinOf[f] = joins.indexOf(join);
    }
    List<int[]> keyIndexes = new ArrayList<>();
    for (TransformDefinition view : views) {
      List<String> columns = new ArrayList<>(view.columns().keySet());
      keyIndexes.add(view.keyColumns().stream().mapToInt(columns::indexOf).toArray());
    }
    boolean[] tickViews = new boolean[views.size()];
    for (int v = 0; v < tickViews.length; v++) {
      tickViews[v] = tickOfView.get(v);
    }
    return new Features(views, viewNames, joins, viewOf, joinOf, columnOf, featureTypes, keyIndexes, tickViews,
        streams);
  }

  /** The projection of the label stream the job folds: entity, label, label filter, time, message ID, joins. */
  private static String projection(Labels labels, List<String> joins) {
    StringBuilder projection = new StringBuilder("SELECT CAST((" + labels.entity() + ") AS STRING) AS `_entity`, ("
        + labels.label() + ") AS `_label`, COALESCE(CAST((" + labels.where() + ") AS BOOLEAN), FALSE) AS `_is_label`, `"
        + PayloadParser.EVENT_TIME_COLUMN + "`, `" + PayloadParser.MESSAGE_ID_COLUMN + "`");
    for (int j = 0; j < joins.size(); j++) {
      projection.append(", CAST((").append(joins.get(j)).append(") AS STRING) AS `_join_").append(j).append('`');
    }
    projection.append(" FROM ").append(labels.table());
    return projection.toString();
  }

  /** Resolve the stop cursor to the positions read through. */
  private Range range(TrainingSetSpec spec, StreamRef stream, StreamInfo info) {
    if (info.partitioned()) {
      // Per partition (as replays of partitioned streams); the events are merged back into sequence-id order in
      // the job.
      List<MessageId> stops = new ArrayList<>();
      if (spec.to().kind() == ReplayCursor.Kind.POSITION) {
        for (MessageId id : spec.to().position()) {
          if (id.partition() < 0 || id.partition() >= info.partitions()) {
            throw new TransformException.InvalidTrainingSet("message ID " + id + " names partition " + id.partition()
                + ", but stream " + stream + " has partitions 0 to " + (info.partitions() - 1));
          }
          stops.add(locator.locate(stream, info, id).messageId());
        }
      } else if (spec.to().kind() == ReplayCursor.Kind.LATEST) {
        stops.addAll(info.latestPositions());
      }
      stops.sort(Comparator.comparingInt(MessageId::partition));
      return new Range(spec.to().kind() == ReplayCursor.Kind.EVENT_TIME ? info.latestPositions() : stops,
          info.eventCount(), // an upper bound: progress only
          spec.to().kind() == ReplayCursor.Kind.EVENT_TIME ? null
              : String.join(",", stops.stream().map(Object::toString).toList()));
    }
    Optional<StoredEvent> stop = spec.to().kind() == ReplayCursor.Kind.MESSAGE
        ? Optional.of(locator.locate(stream, info, spec.to().messageId().get()))
        : spec.to().kind() == ReplayCursor.Kind.LATEST && info.latest().isPresent()
            ? Optional.of(locator.locate(stream, info, info.latest().get())) : Optional.empty();
    return new Range(stop.map(StoredEvent::messageId).or(info::latest).map(List::of).orElse(List.of()),
        stop.map(e -> e.sequence() + (spec.to().inclusive() ? 1 : 0)).orElse(info.eventCount()),
        stop.map(e -> e.messageId().toString()).orElse(null));
  }

  /** Submit the build's job (or write an empty file for an empty range) and follow it to its end. */
  private TrainingSetStatus start(TrainingSetSpec spec, StreamRef stream, StreamInfo info, Path output,
      TrainingSetFormat format, Labels labels, Features features, String projection, Range range, long stopTick) {
    String readThrough = range.readThrough().isEmpty() ? null
        : String.join(",", range.readThrough().stream().map(Object::toString).toList());
    ReplayBound bound = new ReplayBound(null, Long.MIN_VALUE, range.stopText(),
        spec.to().inclusive(), spec.to().kind() == ReplayCursor.Kind.EVENT_TIME ? spec.to().eventTimeMs() : Long.MAX_VALUE,
        spec.to().inclusive());
    TrainingSetColumns columns = TrainingSetColumns.of(labels.labelType(), features.types());
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
        features.clocked() ? new TrainingSetPlan.Clocking(true, features.tickViews(), "training-" + run)
            : TrainingSetPlan.Clocking.ledgerOrder(features.views().size()));
    String key = spec.tenant() + "/" + spec.name();
    long startedAt = clock.millis();
    String stopId = readThrough == null ? "" : readThrough;
    Path manifest = output.resolveSibling(output.getFileName() + ".manifest.json");
    TrainingSetStatus status = new TrainingSetStatus(spec.name(), TrainingSetStatus.RUNNING, 0, range.targetEvents(), 0,
        output.toString(), manifest.toString(), stopId, startedAt, 0, "");
    List<TransformDefinition> views = features.views();
    if (readThrough == null || range.targetEvents() == 0) {
      try (TrainingSetWriter writer = TrainingSetWriter.open(format, output, columns)) {
        // an empty range: a file with the schema and no rows
      } catch (IOException e) {
        throw new TransformException.InvalidTrainingSet("--out: cannot write " + output + ": " + e.getMessage());
      }
      status = finish(spec, status, features, stopTick, columns, 0, 0, "");
      builds.put(key, status);
      return status;
    }
    String subscription = "streamfold-training-" + run;
    String partitionedStop = info.partitioned() && spec.to().inclusive() ? range.stopText() : null;
    JobGraph graph = features.clocked()
        ? ClockedTrainingSetJob.build(new ClockedTrainingSetJob.Reads(spec.name(), spec.tenant(), spec.labelStream(),
            features.streams(), ledger.serviceUrl(), ledger.adminUrl(), stopTick, bound), projection, views, plan)
        : TrainingSetJobBuilder.build(spec.name(), spec.labelStream(), info.columns(), stream.topic(),
            info.partitions(), ledger.serviceUrl(), ledger.adminUrl(), projection, views, subscription, bound,
            range.readThrough(), plan);
    jars.attach(graph, views);
    try {
      cluster.submitJob(graph).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
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
      String lastRead = partitionedStop != null ? partitionedStop : lastMessageId(scratch);
      TrainingSetStatus ended = new TrainingSetStatus(started.name(), started.phase(), started.eventsRead(),
          started.targetEvents(), started.rows(), started.output(), started.manifest(), lastRead,
          started.startedAtMs(), 0, "");
      try {
        builds.put(key, finish(spec, ended, features, stopTick, columns, progress[0], progress[1], cause));
      } catch (RuntimeException e) {
        LOG.warn("cannot finish training set {}", key, e);
        builds.put(key, new TrainingSetStatus(spec.name(), TrainingSetStatus.FAILED, progress[0],
            started.targetEvents(), progress[1], started.output(), started.manifest(), lastRead,
            started.startedAtMs(), clock.millis(), "cannot write the manifest: " + e.getMessage()));
      } finally {
        scratchDirs.remove(key);
        CheckpointStore.deleteLocalDir(scratch);
        if (!features.clocked()) { // a clocked job reads with readers, which leave no subscription
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

  /** Record the end of a training set: the manifest when it succeeded. */
  private TrainingSetStatus finish(TrainingSetSpec spec, TrainingSetStatus started, Features features, long stopTick,
      TrainingSetColumns columns, long events, long rows, String cause) {
    long now = clock.millis();
    if (cause != null && !cause.isEmpty()) {
      LOG.error("training set {} failed: {}", spec.name(), cause);
      return new TrainingSetStatus(spec.name(), TrainingSetStatus.FAILED, events, started.targetEvents(), rows,
          started.output(), started.manifest(), started.stopMessageId(), started.startedAtMs(), now, cause);
    }
    java.util.Set<String> tickViews = new java.util.HashSet<>();
    for (int v = 0; v < features.views().size(); v++) {
      if (features.tickViews()[v]) {
        tickViews.add(features.viewNames().get(v));
      }
    }
    TrainingSetManifest.write(spec, started, features.views(), columns, events, rows, now, tickViews, stopTick);
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

  private static String requireExpression(String field, String expression) {
    if (expression == null || expression.isBlank()) {
      throw new TransformException.InvalidTrainingSet(field + " is required");
    }
    return expression.trim();
  }

  /** Plan {@code SELECT expression FROM table}; return its SQL type, or fail naming the field. */
  private static String checkExpression(String field, String asWritten, String expression, String table,
      Map<String, List<StreamColumn>> streams) {
    try {
      return SqlPlanner.planColumns("SELECT " + expression + " AS `v` FROM " + table, streams).get("v");
    } catch (TransformException.InvalidSql e) {
      throw new TransformException.InvalidTrainingSet(field + ": invalid expression '" + asWritten + "': " + e.getMessage());
    }
  }
}
