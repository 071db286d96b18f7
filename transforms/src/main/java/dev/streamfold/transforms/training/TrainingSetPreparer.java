package dev.streamfold.transforms.training;

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
import dev.streamfold.transforms.replay.EventLocator;
import dev.streamfold.transforms.replay.TickStops;
import dev.streamfold.transforms.source.PayloadParser;
import dev.streamfold.transforms.sql.SqlPlanner;
import dev.streamfold.transforms.sql.TableEnvironments;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Validates a training set's request and resolves what its build reads, before anything runs: the name, the label
 * stream and its entity, label and filter expressions, each feature's view, column, join and cut (just before the
 * label event for a view over the label stream alone, at the last tick before it for any other view), the output and
 * its format, and the stop (a tick, message ID, position vector, event time or latest) as the positions read through
 * and, when a feature is cut at ticks, the last tick read. Reads the ledger, the clock and the served definitions;
 * keeps nothing.
 */
final class TrainingSetPreparer {
  /** The training set's own columns, which a feature may not be named after. */
  private static final List<String> OWN_COLUMNS = List.of("message_id", "event_time", "entity", "label");

  private final Ledger ledger;
  private final ServedTransforms served;
  private final EventLocator locator;
  private final TickStops tickStops;
  private final Path dataDir;

  /**
   * @param ledger the streams and the tenants' clocks
   * @param served the feature views' served definitions
   * @param locator resolves the stop's message IDs
   * @param tickStops resolves a stop at a tick of the tenant clock to the label stream's position there
   * @param dataDir relative outputs go under {@code <dataDir>/training-sets}
   */
  TrainingSetPreparer(Ledger ledger, ServedTransforms served, EventLocator locator, TickStops tickStops, Path dataDir) {
    this.ledger = ledger;
    this.served = served;
    this.locator = locator;
    this.tickStops = tickStops;
    this.dataDir = dataDir.toAbsolutePath();
  }

  /** The label stream's side of a build: its table, the entity, label and filter expressions and their types. */
  record Labels(String table, Map<String, List<StreamColumn>> streams, String entity, String label,
      String labelType, String where) {}

  /**
   * The features resolved: the distinct views they read (in first-use order), the distinct join expressions,
   * each feature's view, join and column index, the output types by feature name, and each view's key column
   * indexes; per view, whether it is cut at ticks (it reads another stream than the label stream, or several); every
   * stream read (the label stream first) to its columns; whether some view cut at ticks unions streams, so that the
   * job waits at a gate for each tick (or marker) to settle (the joins of a view read their inputs in the clock's order
   * without one: {@link OrderedInputs}).
   */
  record Features(List<TransformDefinition> views, List<String> viewNames, List<String> joins, int[] viewOf,
      int[] joinOf, int[] columnOf, LinkedHashMap<String, String> types, List<int[]> keyIndexes, boolean[] tickViews,
      LinkedHashMap<String, List<StreamColumn>> streams, boolean gated) {
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
  record Range(List<MessageId> readThrough, long targetEvents, String stopText) {}

  /**
   * A validated training set: its spec as given and as resolved (a stop at a tick, or at latest when a feature is cut
   * at ticks, resolved to the label stream's message ID or position there), label stream, output, labels, features,
   * projection and range; the last tick read when a feature is cut at ticks, else -1.
   */
  record Prepared(TrainingSetSpec asGiven, TrainingSetSpec spec, StreamRef stream, StreamInfo info, Path output, TrainingSetFormat format,
      Labels labels, Features features, String projection, Range range, long stopTick, LabelsFile file) {
    /** True when the labels come from a file: every feature is cut by event time at the row's time. */
    boolean fromFile() {
      return file != null;
    }

    /** True when every feature is cut by event time at its label's time (a labels file, or {@code --cut event-time}). */
    boolean byEventTime() {
      return spec.cut().byEventTime();
    }
  }

  /** The SQL table of a labels file's rows: a name no stream can have (stream names hold no space). */
  static final String LABELS_TABLE = "labels file";
  /**
   * The SQL table of a label stream's events cut by event time: the stream's columns and the flag, with one row per
   * event of every stream read (the label stream's own flagged), so that the point-in-time join has one record each.
   */
  static final String LABEL_EVENTS_TABLE = "label events";
  /** The column of a table of labels that is true on its labels, null on the events between them. */
  static final String LABEL_ROW_COLUMN = "_label_row";

  /** Validate every field of a training set and resolve its stop; starts nothing. */
  Prepared prepare(TrainingSetSpec asGiven) {
    if (!asGiven.name().matches("[A-Za-z_][A-Za-z0-9_-]{0,99}")) {
      throw new TransformException.InvalidTrainingSet("invalid training set name '" + asGiven.name()
          + "': use a letter or '_' then letters, digits, '_' or '-'");
    }
    if (asGiven.cut().byEventTime()) {
      return prepareByEventTime(asGiven);
    }
    if (asGiven.fromFile()) {
      throw new TransformException.InvalidTrainingSet("--cut as-served: a labels file has no place in the ledger to"
          + " serve its rows at; its rows are cut by event time (--cut event-time, the default with --labels-file)");
    }
    StreamRef stream = new StreamRef(asGiven.tenant(), asGiven.labelStream());
    StreamInfo info = ledger.describe(stream);
    Labels labels = labels(asGiven, asGiven.labelStream(), info.columns());
    Features features = features(asGiven, info, labels, null);
    long stopTick = -1;
    TrainingSetSpec spec;
    boolean nothingCovered = false;
    if (features.clocked()) {
      ClockCut cut = clockCut(asGiven, stream, info);
      spec = cut.spec();
      stopTick = cut.tick();
      nothingCovered = cut.nothing();
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
    Path output = output(spec);
    TrainingSetFormat format = format(output);
    String projection = projection(labels, labels.where(), features.joins());
    Range range = nothingCovered ? new Range(List.of(), 0, null) : range(spec, stream, info);
    return new Prepared(asGiven, spec, stream, info, output, format, labels, features, projection, range, stopTick, null);
  }

  /**
   * A training set cut by event time, its labels the rows of a file or the events of a stream: the file read and
   * checked (or the label stream's expressions, over a table of its events flagged as labels), every feature view
   * checked to be usable by event time, the stop resolved to the tick of the tenant clock the build reads through.
   */
  private Prepared prepareByEventTime(TrainingSetSpec asGiven) {
    LabelsFile file = null;
    StreamRef stream = null;
    StreamInfo info = null;
    Labels labels;
    Features features;
    String projection;
    if (asGiven.fromFile()) {
      if (!asGiven.labelStream().isEmpty()) {
        throw new TransformException.InvalidTrainingSet("--labels-file and --label-stream: give one of them");
      }
      if (!asGiven.label().isBlank() || !asGiven.where().isEmpty()) {
        throw new TransformException.InvalidTrainingSet((asGiven.label().isBlank() ? "--where" : "--label") + ": with"
            + " --labels-file the labels are the file's own rows and columns, kept as they are; leave it out");
      }
      file = LabelsFile.read(LabelsFile.locate(asGiven.labelsFile(), dataDir.resolve("training-sets")),
          asGiven.labelsFile().timeColumn());
      String table = TableEnvironments.quote(LABELS_TABLE);
      String entity = requireExpression("--entity", asGiven.entity());
      labels = new Labels(table, Map.of(LABELS_TABLE, flagged(file.columns())), entity, "", "", "TRUE");
      try {
        checkExpression("--entity", entity, "CAST((" + entity + ") AS STRING)", table, labels.streams());
        features = features(asGiven, null, labels, file);
      } catch (TransformException.InvalidTrainingSet e) {
        if (e.getMessage().contains("not found in any table")) { // name the columns there are
          throw new TransformException.InvalidTrainingSet(e.getMessage() + "; the labels file's columns: "
              + file.columns().stream().map(StreamColumn::name).toList());
        }
        throw e;
      }
      String columns = String.join(", ", file.columns().stream().map(c -> "`" + c.name() + "`").toList());
      projection = projection(columns, "`" + LABEL_ROW_COLUMN + "`", table, features.joins());
    } else {
      stream = new StreamRef(asGiven.tenant(), asGiven.labelStream());
      info = ledger.describe(stream);
      labels = labels(asGiven, LABEL_EVENTS_TABLE, flagged(info.columns()));
      features = features(asGiven, info, labels, null);
      projection = projection(labels, "`" + LABEL_ROW_COLUMN + "` AND (" + labels.where() + ")", features.joins());
    }
    long stopTick = stopTick(asGiven);
    Path output = output(asGiven);
    TrainingSetFormat format = format(output);
    if (file != null) {
      checkFileColumns(asGiven, file, output, features);
    }
    long events = 0;
    for (String read : features.streams().keySet()) {
      events += ledger.describe(new StreamRef(asGiven.tenant(), read)).eventCount();
    }
    return new Prepared(asGiven, asGiven, stream, info, output, format, labels, features, projection,
        new Range(List.of(), events + (file != null ? file.rows() : 0), null), stopTick, file);
  }

  /** The columns of a table of labels: the given ones, then the flag that is true on the labels. */
  private static List<StreamColumn> flagged(List<StreamColumn> columns) {
    List<StreamColumn> flagged = new ArrayList<>(columns);
    flagged.add(new StreamColumn(LABEL_ROW_COLUMN, "BOOLEAN"));
    return flagged;
  }

  /**
   * The last tick a build cut by event time reads through: {@code --to latest} (the clock's last tick) or
   * {@code --to tick:N}; each feature is cut at its label's time, so no other stop applies.
   */
  private long stopTick(TrainingSetSpec asGiven) {
    ReplayCursor to = asGiven.to();
    String option = "--" + to.describe(to.inclusive() ? "to" : "before");
    String labelsFrom = asGiven.fromFile() ? "--labels-file" : "--cut event-time";
    long last = ledger.lastTick(asGiven.tenant()).map(dev.streamfold.core.Tick::number).orElse(0L);
    if (last == 0) {
      throw new TransformException.InvalidTrainingSet(labelsFrom + ": the tenant clock of '" + asGiven.tenant() + "'"
          + " has no tick yet, and a build cut by event time reads the streams through one of its ticks; retry in a"
          + " moment");
    }
    return switch (to.kind()) {
      case LATEST -> last;
      case TICK -> {
        long tick = to.inclusive() ? to.tick() : to.tick() - 1;
        if (tick < 1 || tick > last) {
          throw new TransformException.InvalidTrainingSet(option + ": the tenant clock of '" + asGiven.tenant() + "'"
              + " has ticks 1 to " + last);
        }
        yield tick;
      }
      default -> throw new TransformException.InvalidTrainingSet(option + ": with " + labelsFrom + " each feature is"
          + " cut at its label's time, and the build reads every stream through a tick of the tenant clock: --to"
          + " latest (its last tick, the default) or --to tick:N");
    };
  }

  /** A labels file's output checks: not the file itself, no feature named after one of its columns. */
  private static void checkFileColumns(TrainingSetSpec asGiven, LabelsFile file, Path output, Features features) {
    if (file.isAt(output)) {
      throw new TransformException.InvalidTrainingSet("--out " + output + ": it is the labels file; write the training"
          + " set to another file (the labels file is its input, and its SHA-256 in the manifest rebuilds it)");
    }
    for (StreamColumn column : file.columns()) {
      String clash = features.types().keySet().stream().filter(n -> n.equalsIgnoreCase(column.name())).findFirst()
          .orElse(null);
      if (clash != null) {
        throw new TransformException.InvalidTrainingSet("feature " + asGiven.features().stream()
            .filter(f -> f.name().equals(clash)).findFirst().map(FeatureSpec::describe).orElse(clash)
            + ": the column name '" + clash + "' is " + (clash.equals(column.name()) ? "" : "(but for case) ") + "a"
            + " column of the labels file; name the feature (name=VIEW.column)");
      }
    }
  }

  /** The output file: a relative path under the data directory's {@code training-sets/}. */
  private Path output(TrainingSetSpec spec) {
    Path output = Path.of(spec.output());
    return output.isAbsolute() ? output : dataDir.resolve("training-sets").resolve(output);
  }

  private static TrainingSetFormat format(Path output) {
    try {
      return TrainingSetFormat.of(output);
    } catch (IllegalArgumentException e) {
      throw new TransformException.InvalidTrainingSet("--out: " + e.getMessage());
    }
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
        spec.where(), spec.features(), to, spec.output(), spec.command(), spec.labelsFile(), spec.cut());
  }

  /**
   * Where a build with features cut at ticks stops: the label stream's stop and the last tick read.
   *
   * @param spec the spec with the label stream's stop (a message ID, an event time, or latest when {@code nothing})
   * @param tick the last tick read: the first one covering the label stream's stop, so that the same stop given as
   *     a tick, latest or its message ID reads the same ticks; the clock's last tick for an event-time stop
   * @param nothing true when no tick covers any event of the label stream yet: an empty training set
   */
  private record ClockCut(TrainingSetSpec spec, long tick, boolean nothing) {}

  /**
   * The stop of a build with features cut at ticks. {@code tick:N} and latest (the clock's last tick now: label events
   * appended since are left out) become the label stream's message ID at that tick; a message ID is checked to be in
   * the label stream; an event time keeps cutting the label stream's events by time, through the clock's last tick.
   *
   * @throws TransformException.InvalidTrainingSet if the clock has no tick yet, the tick asked for does not exist or
   *     holds no event of the label stream, or no tick covers the message ID yet
   * @throws TransformException.InvalidReplay if the message ID is not in the label stream
   */
  private ClockCut clockCut(TrainingSetSpec asGiven, StreamRef stream, StreamInfo info) {
    ReplayCursor to = asGiven.to();
    java.util.Optional<dev.streamfold.core.Tick> lastTick = ledger.lastTick(asGiven.tenant());
    long last = lastTick.map(dev.streamfold.core.Tick::number).orElse(0L);
    String option = "--" + to.describe(to.inclusive() ? "to" : "before");
    if (last == 0) {
      throw new TransformException.InvalidTrainingSet(option + ": the tenant clock of '" + asGiven.tenant() + "' has no"
          + " tick yet, and features from views over other streams are cut at its ticks; retry in a moment");
    }
    return switch (to.kind()) {
      case EVENT_TIME -> new ClockCut(asGiven, last, false);
      case LATEST -> {
        dev.streamfold.core.PositionVector at = lastTick.get().position(stream.stream());
        yield at.isEmpty() ? new ClockCut(asGiven, 0, true)
            : cutAt(withStop(asGiven, new ReplayCursor(ReplayCursor.Kind.MESSAGE, Optional.of(at.messageIds().get(0)), 0,
                true)), stream, option, last);
      }
      case TICK -> cutAt(atTick(asGiven, stream, info), stream, option, last);
      case MESSAGE -> {
        locator.locate(stream, info, to.messageId().get()); // in the label stream, or refused saying where it runs
        yield cutAt(asGiven, stream, option, last);
      }
      default -> throw new TransformException.InvalidTrainingSet(option + ": features from views over other streams"
          + " are cut at the tenant clock's ticks; stop at a message ID, tick:N, an event time or latest");
    };
  }

  /** The cut at a spec whose stop is a message ID of the label stream: the first tick covering it. */
  private ClockCut cutAt(TrainingSetSpec spec, StreamRef stream, String option, long last) {
    MessageId id = spec.to().messageId().orElseThrow();
    long tick = ledger.firstTick(spec.tenant(), t -> t.covers(stream.stream(), id)).map(dev.streamfold.core.Tick::number)
        .orElseThrow(() -> new TransformException.InvalidTrainingSet(option + ": no tick of the tenant clock covers"
            + " message ID " + id + " of stream " + stream + " yet (its last tick is " + last + "): it was appended within"
            + " the last tick interval; retry in a moment"));
    return new ClockCut(spec, tick, false);
  }

  /**
   * Check the entity, label and filter expressions against the label stream's columns.
   *
   * @param tableName the table the projection reads: the label stream, or the table of its events cut by event time
   * @param columns its columns
   */
  private static Labels labels(TrainingSetSpec spec, String tableName, List<StreamColumn> columns) {
    Map<String, List<StreamColumn>> streams = Map.of(tableName, columns);
    String table = TableEnvironments.quote(tableName);
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

  /**
   * Resolve each feature to its view, column and join, checking each, in the order given.
   *
   * @param info the label stream, or null for labels from a file
   * @param file the labels file, or null for labels from a stream (the spec's cut rule says how views are cut)
   */
  private Features features(TrainingSetSpec spec, StreamInfo info, Labels labels, LabelsFile file) {
    List<TransformDefinition> views = new ArrayList<>();
    List<String> viewNames = new ArrayList<>();
    List<String> joins = new ArrayList<>();
    int n = spec.features().size();
    int[] viewOf = new int[n];
    int[] joinOf = new int[n];
    int[] columnOf = new int[n];
    LinkedHashMap<String, String> featureTypes = new LinkedHashMap<>();
    LinkedHashMap<String, List<StreamColumn>> streams = new LinkedHashMap<>();
    boolean byEventTime = spec.cut().byEventTime();
    if (file == null) {
      streams.put(spec.labelStream(), info.columns());
    }
    List<Boolean> tickOfView = new ArrayList<>();
    boolean gated = false;
    for (int f = 0; f < n; f++) {
      FeatureSpec feature = spec.features().get(f);
      TransformDefinition view;
      try {
        view = served.get(spec.tenant(), feature.view());
      } catch (TransformException.NotFound e) {
        throw new TransformException.NotFound("feature " + feature.describe() + ": " + e.getMessage());
      }
      Map<String, List<StreamColumn>> viewStreams = new LinkedHashMap<>();
      for (String read : view.streams()) {
        viewStreams.put(read, streams.computeIfAbsent(read, r -> file == null && read.equals(spec.labelStream())
            ? info.columns() : ledger.describe(new StreamRef(spec.tenant(), r)).columns()));
      }
      SqlPlanner.PlannedQuery planned = view.isFold() ? null : SqlPlanner.analyze(view.sql(), viewStreams, null);
      if (planned != null && planned.eventTimeWindows()) {
        throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": view '" + view.name()
            + "' uses event-time windows; windowed views are not supported as features yet");
      }
      if (byEventTime) {
        EventTimeFeatures.checkFold(feature, view, planned, file != null);
      }
      // By event time a view is cut at each label exactly (its events are folded one by one; a join reads its inputs
      // in the clock's order: OrderedInputs) but for a view that unions several streams, cut at the end of the events
      // before each label, through a gate
      boolean unions = planned != null && planned.unions();
      boolean tickView = byEventTime ? unions
          : view.readsSeveralStreams() || !view.sourceStream().equals(spec.labelStream());
      if (unions && !tickView) { // as served, over the label stream alone: no tick to cut a union's rows at
        throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": view '" + view.name()
            + "' unions rows (UNION ALL), which reach Flink's operators in no defined order, so it cannot be cut just"
            + " before each label event; use --cut event-time (it waits for the union to settle before each label)"
            + " or a view without UNION ALL");
      }
      if (tickView && feature.ttlMs() >= 0) {
        throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": view '" + view.name()
            + (byEventTime ? "' unions rows (UNION ALL over " + view.streams() + "), and by event time a time to live"
            + " (/ttl) is not supported on a union's features yet" : "' reads " + (view.readsSeveralStreams()
            ? "several streams " + view.streams() : "stream '" + view.sourceStream() + "'") + ", not the label stream"
            + " alone, so it is cut at the tenant clock's ticks and its rows carry no event time of the label stream to"
            + " age; a time to live (/ttl) is supported on features from views over the label stream only"));
      }
      if (!byEventTime && tickView && info.partitioned()) {
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
        gated |= tickView && unions;
      }
      viewOf[f] = viewNames.indexOf(view.name());
      String join = feature.join().isEmpty() ? labels.entity() : feature.join();
      checkExpression("feature " + feature.describe() + " join", join, "CAST((" + join + ") AS STRING)",
          labels.table(), labels.streams());
      if (file != null && view.keyColumns().size() == 1) {
        EventTimeFeatures.checkJoinType(feature, view, join, checkExpression("feature " + feature.describe() + " join",
            join, join, labels.table(), labels.streams()), file);
      }
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
        streams, gated);
  }

  /**
   * The projection of the label stream the job folds: message ID, time, entity and label, then as below.
   *
   * @param isLabel the condition true on the label events
   */
  private static String projection(Labels labels, String isLabel, List<String> joins) {
    return projection("`" + PayloadParser.MESSAGE_ID_COLUMN + "` AS `message_id`, `" + PayloadParser.EVENT_TIME_COLUMN
        + "` AS `event_time`, CAST((" + labels.entity() + ") AS STRING) AS `entity`, (" + labels.label() + ") AS `label`",
        "CAST((" + isLabel + ") AS BOOLEAN)", labels.table(), joins);
  }

  /**
   * The event projection the point-in-time join reads ({@link TrainingSetPlan}): the output's leading columns, whether
   * the record is a label, its event time and message ID, then each join key as text.
   *
   * @param leading the output's leading columns, as a select list
   * @param isLabel a condition, true on the records that are labels (null counts as false)
   * @param table the quoted table
   * @param joins the distinct join expressions
   */
  private static String projection(String leading, String isLabel, String table, List<String> joins) {
    StringBuilder projection = new StringBuilder("SELECT " + leading + ", COALESCE(" + isLabel + ", FALSE) AS"
        + " `_is_label`, `" + PayloadParser.EVENT_TIME_COLUMN + "`, `" + PayloadParser.MESSAGE_ID_COLUMN + "`");
    for (int j = 0; j < joins.size(); j++) {
      projection.append(", CAST((").append(joins.get(j)).append(") AS STRING) AS `_join_").append(j).append('`');
    }
    projection.append(" FROM ").append(table);
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
