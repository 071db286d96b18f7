package dev.streamfold.transforms.job;

import dev.streamfold.ledger.MessageIdText;
import dev.streamfold.ledger.StreamColumn;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.views.ViewName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.pulsar.source.PulsarSource;
import org.apache.flink.connector.pulsar.source.PulsarSourceBuilder;
import org.apache.flink.connector.pulsar.source.enumerator.cursor.StartCursor;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;

/**
 * Builds the Flink job of one view version, and plans SQL with the very same code before anything runs:
 * <pre>
 * PulsarSource (earliest, unbounded) -&gt; PositionTracker (rows + progress at each barrier)
 *   -&gt; Flink SQL over the stream -&gt; changelog -&gt; ViewChange -&gt; RedisViewSink (parallelism 1)
 *   progress side output ---------------------------------------^
 * </pre>
 */
public final class ViewJobBuilder {
  private static final Pattern SCANNED_TABLE = Pattern.compile("default_database, ([^\\]]+)\\]\\]");

  private ViewJobBuilder() {}

  /**
   * What planning a transformation's SQL found.
   *
   * @param sourceStream the one stream the SQL reads
   * @param columns result column name to SQL type, in order
   * @param keyColumns the row-key columns
   */
  public record PlannedQuery(String sourceStream, LinkedHashMap<String, String> columns, List<String> keyColumns) {}

  /**
   * Parse, validate and plan SQL over a tenant's streams without running anything.
   *
   * @param sql Flink SQL; it must read exactly one stream
   * @param streams stream name to its declared columns (streams without columns cannot be queried)
   * @param keyColumns requested row-key columns, or empty for the first result column
   * @return the plan's facts
   * @throws TransformException.InvalidSql if the SQL does not parse, validate or plan, reads no stream
   *     or several, or names a key column that is not a result column; the message says why
   */
  public static PlannedQuery plan(String sql, Map<String, List<StreamColumn>> streams, List<String> keyColumns) {
    if (sql == null || sql.isBlank()) {
      throw new TransformException.InvalidSql("SQL is empty", null);
    }
    checkDeterministic(sql);
    StreamTableEnvironment tableEnv = placeholderTables(streams, usesEventTimeWindows(sql));
    Table table;
    String explained;
    try {
      table = tableEnv.sqlQuery(sql);
      explained = table.explain();
    } catch (RuntimeException e) {
      String described = describe(e);
      throw new TransformException.InvalidSql("invalid SQL: " + described
          + (described.contains(" at line ") ? "" : where(sql, e)), e);
    }
    Set<String> scanned = new LinkedHashSet<>();
    Matcher m = SCANNED_TABLE.matcher(explained);
    while (m.find()) {
      scanned.add(m.group(1).replace("`", ""));
    }
    scanned.retainAll(streams.keySet());
    if (scanned.size() != 1) {
      throw new TransformException.InvalidSql("a transformation reads exactly one stream; this SQL reads "
          + (scanned.isEmpty() ? "none" : scanned) + " (streams of the tenant: " + streams.keySet() + ")", null);
    }
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    for (Column column : table.getResolvedSchema().getColumns()) {
      columns.put(column.getName(), sqlType(column.getDataType().getLogicalType()));
    }
    for (String name : columns.keySet()) {
      if (UNNAMED_COLUMN.matcher(name).matches()) {
        throw new TransformException.InvalidSql("result column " + (new ArrayList<>(columns.keySet()).indexOf(name) + 1)
            + " has no name (Flink calls it " + name + "): name every computed column with AS, e.g. COUNT(*) AS n", null);
      }
    }
    boolean keyGiven = keyColumns != null && !keyColumns.isEmpty();
    List<String> keys = keyGiven ? List.copyOf(keyColumns) : List.of(columns.keySet().iterator().next());
    for (String key : keys) {
      if (!columns.containsKey(key)) {
        throw new TransformException.InvalidSql("key column '" + key + "' is not a result column; result columns: "
            + columns.keySet(), null);
      }
    }
    if (new LinkedHashSet<>(keys).size() != keys.size()) {
      throw new TransformException.InvalidSql("key " + keys + " names a column twice", null);
    }
    String physical = physicalPlan(explained);
    if (EMPTY_VALUES.matcher(physical).find() && !physical.contains("Aggregate")) {
      throw new TransformException.InvalidSql("this SQL's result is always empty (Flink plans it as no rows: e.g. a"
          + " WHERE that is never true)", null);
    }
    if (LIMIT.matcher(physical).find()) {
      throw new TransformException.InvalidSql("LIMIT without ORDER BY keeps whichever rows arrive first, so the view"
          + " would depend on arrival order, not on the events; for the top N rows per key use ROW_NUMBER() OVER"
          + " (PARTITION BY key ORDER BY ...) <= N (Top-N)", null);
    }
    checkOneRowPerKey(explained, keys, keyGiven);
    checkKeyIdentifiesOneRow(tableEnv, table, columns, keys, explained);
    checkJoinState(explained);
    if (usesEventTimeWindows(sql) && keys.stream().noneMatch(k -> k.equals("window_start") || k.equals("window_end"))) {
      throw new TransformException.InvalidSql("a windowed view keeps one row per key and window, so its key must"
          + " include window_start (or window_end), e.g. --key " + keys.get(0) + ",window_start; key now: " + keys, null);
    }
    return new PlannedQuery(scanned.iterator().next(), columns, keys);
  }

  /** A table environment with a placeholder table per stream (declared columns and metadata columns). */
  private static StreamTableEnvironment placeholderTables(Map<String, List<StreamColumn>> streams, boolean eventTime) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
    StreamTableEnvironment tableEnv = tableEnvironment(env);
    for (Map.Entry<String, List<StreamColumn>> stream : streams.entrySet()) {
      try {
        StreamColumn.checkDistinct(stream.getValue());
        PayloadParser parser = new PayloadParser(stream.getValue());
        DataStream<Row> placeholder = env.fromSequence(0, 0).map(i -> new Row(0)).returns(parser.rowType());
        tableEnv.createTemporaryView(quote(stream.getKey()), placeholder,
            eventTime ? parser.eventTimeSchema() : parser.schema());
      } catch (RuntimeException unusable) {
        // A stream whose declared columns SQL cannot take (e.g. created before names were checked) must
        // not break transformations over other streams; SQL over it says it does not exist.
        continue;
      }
    }
    return tableEnv;
  }

  /**
   * Plan any query (no one-row-per-key rule) over a tenant's streams without running anything, e.g. a
   * training set's label expression.
   *
   * @param sql Flink SQL
   * @param streams stream name to its declared columns
   * @return result column name to SQL type, in order
   * @throws TransformException.InvalidSql if it does not parse, validate or plan; the message says why
   */
  public static LinkedHashMap<String, String> planColumns(String sql, Map<String, List<StreamColumn>> streams) {
    checkDeterministic(sql);
    StreamTableEnvironment tableEnv = placeholderTables(streams, usesEventTimeWindows(sql));
    Table table;
    try {
      table = tableEnv.sqlQuery(sql);
      table.explain();
    } catch (RuntimeException e) {
      String described = describe(e);
      throw new TransformException.InvalidSql(described + (described.contains(" at line ") ? "" : where(sql, e)), e);
    }
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    for (Column column : table.getResolvedSchema().getColumns()) {
      columns.put(column.getName(), sqlType(column.getDataType().getLogicalType()));
    }
    return columns;
  }

  private static final Pattern WINDOW_TVF = Pattern.compile("(?i)\\b(TUMBLE|HOP|CUMULATE|SESSION)\\s*\\(");

  /**
   * Whether SQL uses event-time window table functions ({@code TUMBLE}, {@code HOP}, {@code CUMULATE},
   * {@code SESSION}): its stream table then has {@code _event_time} as rowtime attribute, with watermarks
   * from the {@link PositionTracker} (the stream's watermark delay).
   *
   * @param sql the SQL
   * @return true when it calls a window function outside string literals and comments
   */
  public static boolean usesEventTimeWindows(String sql) {
    String code = sql.replaceAll("'(?:[^']|'')*'", "''").replaceAll("`(?:[^`]|``)*`", "``")
        .replaceAll("--[^\\n]*", " ").replaceAll("(?s)/\\*.*?\\*/", " ");
    return WINDOW_TVF.matcher(code).find();
  }

  /** Functions whose value depends on when or where a query runs, not on the events. */
  private static final Pattern NON_DETERMINISTIC = Pattern.compile(
      "(?i)\\b(RAND|RAND_INTEGER|UUID|NOW|CURRENT_TIMESTAMP|LOCALTIMESTAMP|CURRENT_TIME|LOCALTIME|CURRENT_DATE"
          + "|PROCTIME|CURRENT_ROW_TIMESTAMP|CURRENT_WATERMARK)\\b|(?i)\\bUNIX_TIMESTAMP\\s*\\(\\s*\\)");

  /**
   * A view must be replayable: replaying the ledger to a position must give the rows the live view had
   * there, and a training set must not depend on when it is built. So SQL may not call functions of the
   * wall clock or of chance; the event time column {@code _event_time} takes the clock's place.
   *
   * @throws TransformException.InvalidSql naming the function
   */
  static void checkDeterministic(String sql) {
    String code = sql.replaceAll("'(?:[^']|'')*'", "''").replaceAll("`(?:[^`]|``)*`", "``")
        .replaceAll("--[^\\n]*", " ").replaceAll("(?s)/\\*.*?\\*/", " ");
    Matcher m = NON_DETERMINISTIC.matcher(code);
    if (m.find()) {
      throw new TransformException.InvalidSql("'" + m.group().trim() + "' is not deterministic: views and training sets"
          + " must give the same rows whenever the ledger is replayed, so they may not use the wall clock or random"
          + " values; use the event time column " + PayloadParser.EVENT_TIME_COLUMN + " instead of the current time", null);
    }
  }

  private static final Pattern RAW_EVENT_JOIN = Pattern.compile(
      "Join\\(joinType=\\[(\\w+)\\][^\\n]*(left|right)InputSpec=\\[NoUniqueKey\\]");

  /**
   * A regular join keeps, in Flink state and forever, every row of each input that has no unique key:
   * joined raw events (a self-join of a stream, or {@code IN (SELECT ... FROM stream)}) make a view's
   * state grow with the whole ledger, and a key shared by n events on each side emits n^2 rows. So such
   * joins are refused; joins of aggregates (each side grouped by the join key, so one row per key) keep
   * state proportional to the keys and are allowed.
   *
   * @throws TransformException.InvalidSql naming the join type and what to do instead
   */
  static void checkJoinState(String explained) {
    Matcher m = RAW_EVENT_JOIN.matcher(explained);
    if (m.find()) {
      throw new TransformException.InvalidSql("this SQL joins raw events (" + m.group(1) + "): a join keeps every event"
          + " of an input without a unique key in its state forever, so the view's state would grow with the whole"
          + " ledger (and a key shared by many events emits a row per pair); join aggregates instead, each side"
          + " grouped by the join key, e.g. SELECT a.k, a.n, b.m FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k) a"
          + " JOIN (SELECT k, SUM(x) AS m FROM s GROUP BY k) b ON a.k = b.k", null);
    }
  }

  /** Flink's name for a result column without one, e.g. {@code EXPR$1} for {@code COUNT(*)} without AS. */
  private static final Pattern UNNAMED_COLUMN = Pattern.compile("EXPR\\$\\d+");
  /** A plan folded to no rows. */
  private static final Pattern EMPTY_VALUES = Pattern.compile("Values\\([^\\n]*tuples=\\[\\[\\]\\]");
  /** A streaming LIMIT without ORDER BY (Flink's {@code Limit} node; ORDER BY a time attribute is SortLimit). */
  private static final Pattern LIMIT = Pattern.compile("(?m)^[ :|+-]*Limit\\(");
  /** The placeholder sink {@link #checkKeyIdentifiesOneRow} plans an INSERT into. */
  private static final String KEY_CHECK_SINK = "streamfold_key_check";

  /**
   * The view key must identify one row of the result: a key that is not a unique key of the SQL's result
   * (a column the SQL does not group by, an aggregate such as {@code --key n}, a UNION ALL of aggregates, a
   * Top-N without the rank) makes rows with the same key overwrite each other in the view, silently.
   *
   * <p>The rule is Flink's own: planned as an INSERT into a placeholder table whose PRIMARY KEY is the view
   * key, Flink adds an upsert materializer to the sink exactly when no unique (upsert) key of the query's
   * changelog is contained in the primary key ({@code upsertMaterialize=[true]} in the plan;
   * {@code table.exec.sink.upsert-materialize} AUTO, the default; Flink's
   * {@code FlinkChangelogModeInferenceProgram}). An insert-only result (event-time windows) gets no
   * materializer, so there the key must hold every column the window aggregate groups by.
   *
   * @throws TransformException.InvalidSql naming the key and what the SQL groups by
   */
  static void checkKeyIdentifiesOneRow(StreamTableEnvironment tableEnv, Table table, Map<String, String> columns,
      List<String> keys, String explained) {
    org.apache.flink.table.api.Schema.Builder schema = org.apache.flink.table.api.Schema.newBuilder();
    for (Column column : table.getResolvedSchema().getColumns()) {
      LogicalType type = org.apache.flink.table.types.logical.utils.LogicalTypeUtils.removeTimeAttributes(
          column.getDataType().getLogicalType());
      // primary key columns are NOT NULL in Flink (nullable ones in the query are enforced at the sink)
      schema.column(column.getName(), org.apache.flink.table.types.utils.TypeConversions.fromLogicalToDataType(
          keys.contains(column.getName()) ? type.copy(false) : type));
    }
    schema.primaryKey(keys);
    String plan;
    tableEnv.getConfig().set("table.exec.sink.upsert-materialize", "AUTO"); // the default, which the rule reads
    try {
      tableEnv.createTemporaryTable(KEY_CHECK_SINK, org.apache.flink.table.api.TableDescriptor.forConnector("blackhole")
          .schema(schema.build()).build());
      plan = table.insertInto(KEY_CHECK_SINK).explain();
    } catch (RuntimeException e) {
      return; // the view job's own planning reports what is wrong with the SQL; this check only adds a rule
    } finally {
      tableEnv.dropTemporaryTable(KEY_CHECK_SINK);
    }
    List<String> groupedBy = topGrouping(explained);
    if (plan.contains("upsertMaterialize=[true]")) {
      throw new TransformException.InvalidSql("the view key " + keys + " does not identify one row of this SQL's result"
          + " (rows with the same key would overwrite each other): key it by the columns the result has one row per"
          + (groupedBy.isEmpty() ? "" : " (the SQL groups by " + groupedBy + ")") + "; a UNION ALL of aggregates has"
          + " no such key, and a Top-N of more than one row per key needs the rank column in the key", null);
    }
    // Insert-only (a window aggregate's): Flink adds no materializer, and derives no unique key once the
    // result drops window_end, so the rule here is by name: a column the windows are grouped by that the result
    // keeps under its name must be in the key (a renamed one is not recognized, and not checked).
    Matcher window = WINDOW_GROUP_BY.matcher(physicalPlan(explained));
    if (window.find()) {
      for (String field : window.group(1).split(",")) {
        String name = field.trim();
        if (!name.isEmpty() && columns.containsKey(name) && !keys.contains(name)) {
          throw new TransformException.InvalidSql("the view key " + keys + " does not identify one row of this SQL's"
              + " result: each window has a row per " + name + " too, so the key must hold it as well as"
              + " window_start (or window_end), e.g. --key " + name + ",window_start", null);
        }
      }
    }
  }

  private static final Pattern WINDOW_GROUP_BY = Pattern.compile("WindowAggregate\\(groupBy=\\[([^\\]]*)\\]");

  /** The grouping of the topmost aggregate of a plan (the first in its text, in its input's names), or empty. */
  private static List<String> topGrouping(String explained) {
    Matcher m = GROUP_BY.matcher(physicalPlan(explained));
    if (!m.find()) {
      return List.of();
    }
    List<String> fields = new ArrayList<>();
    for (String f : m.group(1).split(",")) {
      if (!f.isBlank()) {
        fields.add(f.trim());
      }
    }
    return fields;
  }

  /** The optimized physical plan of {@link Table#explain()}'s text, without its heading; "" when absent. */
  private static String physicalPlan(String explained) {
    int at = explained.indexOf("== Optimized Physical Plan ==");
    if (at < 0) {
      return "";
    }
    String rest = explained.substring(at + "== Optimized Physical Plan ==".length());
    int end = rest.indexOf("== ");
    return end < 0 ? rest : rest.substring(0, end);
  }


  private static final Pattern GROUP_BY = Pattern.compile("groupBy=\\[([^\\]]*)\\]");
  private static final Pattern PARTITION_BY = Pattern.compile("partitionBy=\\[([^\\]]*)\\]");

  /**
   * A view keeps one row per key, so the result must have one row per key: the SQL must aggregate
   * (GROUP BY, a window, deduplication or Top-N), and the default key (the first result column) must be
   * what it groups by. A plain projection such as {@code SELECT origin, delay FROM flights} would silently
   * keep the last row per key, so it is refused.
   *
   * @throws TransformException.InvalidSql if the plan does not aggregate, or the default key is not grouped by
   */
  static void checkOneRowPerKey(String explained, List<String> keys, boolean keyGiven) {
    Set<Set<String>> groupings = new java.util.LinkedHashSet<>();
    for (Pattern p : List.of(GROUP_BY, PARTITION_BY)) {
      Matcher m = p.matcher(explained);
      while (m.find()) {
        Set<String> fields = new java.util.LinkedHashSet<>();
        for (String f : m.group(1).split(",")) {
          if (!f.isBlank()) {
            fields.add(f.trim().replace("$f", "").replace("`", ""));
          }
        }
        groupings.add(fields);
      }
    }
    if (groupings.isEmpty() && !explained.contains("GroupAggregate") && !explained.contains("WindowAggregate")) {
      throw new TransformException.InvalidSql("a view keeps one row per key, but this SQL returns a row per event "
          + "(it does not aggregate); use GROUP BY on the key column(s), e.g. SELECT " + keys.get(0)
          + ", COUNT(*) AS n FROM ... GROUP BY " + keys.get(0) + " (supported: GROUP BY, event-time windows"
          + " TUMBLE/HOP/CUMULATE/SESSION grouped by key and window_start, deduplication or Top-N with"
          + " ROW_NUMBER() OVER (PARTITION BY key ...))", null);
    }
    if (!keyGiven && groupings.stream().noneMatch(g -> g.contains(keys.get(0)))) {
      throw new TransformException.InvalidSql("the view key defaults to the first result column '" + keys.get(0)
          + "', but the SQL groups by " + groupings + "; put the GROUP BY column first or name the key"
          + " column(s) explicitly (--key)", null);
    }
  }

  /**
   * Build the job graph of one view version.
   *
   * @param definition the transformation (its version is the one this job fills)
   * @param streamColumns the source stream's declared columns
   * @param topic the source stream's Pulsar topic
   * @param partitions the stream's partitions (0: unpartitioned); the source reads with parallelism
   *     {@code min(partitions, parallelism)}, one split per partition
   * @param serviceUrl Pulsar service URL
   * @param adminUrl Pulsar admin URL
   * @param redisUri Redis URI of the views
   * @param checkpointDir URI of the retained-checkpoint directory of this version, e.g. {@code file:///...}
   * @param checkpointInterval checkpoint (and view commit) interval
   * @param parallelism parallelism of the SQL operators
   * @param backfillTargetMessageId latest position at job start (one message ID per partition holding
   *     events, joined by ','), "" when the stream was empty
   * @param backfillTargetEvents events in the stream at job start; when the job's {@link PositionTracker} has
   *     applied that many it signals {@link BackfillSignals} (the submitter then triggers a checkpoint, so
   *     the LIVE commit does not wait for the next periodic one)
   * @param watermarkDelayMs the source stream's watermark delay, ms (used by event-time windows)
   * @param resumeFrom for a job restored from a checkpoint: the view's committed position (message ID
   *     text per partition, at or before the checkpoint's); the source starts there, entry included,
   *     and the {@link PositionTracker} drops what it already applied. Empty: start from earliest.
   * @return the job graph, not yet submitted; restore it with {@code allowNonRestoredState}, since
   *     every graph has a new source (the connector's own source state is deliberately not restored)
   */
  public static JobGraph build(TransformDefinition definition, List<StreamColumn> streamColumns, String topic,
      int partitions, String serviceUrl, String adminUrl, String redisUri, String checkpointDir, Duration checkpointInterval,
      int parallelism, String backfillTargetMessageId, long backfillTargetEvents, long watermarkDelayMs,
      List<String> resumeFrom) {
    Configuration conf = checkpointing(checkpointDir, checkpointInterval, true);
    // No Flink restarts: the transform manager resubmits a failed job from its checkpoint with an exact
    // source position (Flink's own restart would resume the Pulsar source after a whole batched entry).
    conf.setString("restart-strategy.type", "none");
    conf.setString("pipeline.name", "view " + definition.tenant() + "/" + definition.name() + " v" + definition.version());
    PulsarSourceBuilder<SourceEvent> source = PulsarSource.<SourceEvent>builder()
        .setStartCursor(PositionCursors.start(resumeFrom))
        .setSubscriptionName(subscription(definition));
    return assemble(conf, definition, streamColumns, List.of(topic), sourceParallelism(partitions, parallelism), serviceUrl, adminUrl, parallelism, source, null,
        watermarkDelayMs,
        new RedisViewSink(redisUri, new ViewName(definition.tenant(), definition.name()), definition.version(),
            new ArrayList<>(definition.columns().keySet()), backfillTargetMessageId, backfillTargetEvents, false),
        checkpointInterval, backfillTargetEvents);
  }

  /**
   * Build the bounded job of a replay: the transformation's SQL, exactly as its view job runs it, over a
   * range of the ledger, into version 1 of a virtual state. The source reads up to and including
   * {@code readThrough} and ends; the {@link PositionTracker} applies exactly the events of
   * {@code bound}. The job does not restart on failure (a failed replay is reported, and run again), and
   * its checkpoints are deleted when it ends. Its sink applies each commit to the virtual state itself (at
   * every barrier, for progress, and at the end of input), so the job takes no final checkpoint.
   *
   * @param definition the transformation version to replay
   * @param streamColumns the source stream's declared columns
   * @param topic the source stream's Pulsar topic
   * @param partitions the stream's partitions (0: unpartitioned); a partitioned stream's replay reads only
   *     the partitions {@code readThrough} lists
   * @param serviceUrl Pulsar service URL
   * @param adminUrl Pulsar admin URL
   * @param redisUri Redis URI of the views
   * @param checkpointDir URI of a scratch checkpoint directory for this replay
   * @param checkpointInterval checkpoint interval (each checkpoint commits progress to the virtual state)
   * @param parallelism parallelism of the SQL operators
   * @param target the virtual state the rows go to (version 1)
   * @param subscription the Pulsar subscription to read on (delete it when the replay ends)
   * @param bound the exact range applied
   * @param readThrough the last message ID the source reads (at or after the range's end), per partition
   * @param targetEvents events the replay expects to apply (progress; an upper bound for time stops)
   * @param watermarkDelayMs the source stream's watermark delay, ms (used by event-time windows)
   * @return the job graph, not yet submitted
   */
  public static JobGraph buildReplay(TransformDefinition definition, List<StreamColumn> streamColumns, String topic,
      int partitions, String serviceUrl, String adminUrl, String redisUri, String checkpointDir, Duration checkpointInterval,
      int parallelism, ViewName target, String subscription, ReplayBound bound, List<MessageIdText> readThrough,
      long targetEvents, long watermarkDelayMs) {
    Configuration conf = checkpointing(checkpointDir, checkpointInterval, false);
    conf.setString("restart-strategy.type", "none");
    // The bounded sink applies its last commit itself at the end of input, so the job ends with its input
    // instead of waiting up to a checkpoint interval (plus the min pause) for a final checkpoint.
    conf.setString("execution.checkpointing.checkpoints-after-tasks-finish", "false");
    conf.setString("pipeline.name", "replay " + target + " of " + definition.name() + " v" + definition.version());
    StartCursor start = bound.startId() == null ? StartCursor.earliest()
        : PositionCursors.start(List.of(bound.startId()));
    PulsarSourceBuilder<SourceEvent> source = PulsarSource.<SourceEvent>builder()
        .setStartCursor(start)
        .setBoundedStopCursor(PositionCursors.stopAfter(readThrough))
        .setSubscriptionName(subscription);
    // Only partitions with events to read: a bounded split of a partition that has none would never end.
    List<String> topics = partitions == 0 ? List.of(topic)
        : readThrough.stream().map(id -> topic + "-partition-" + id.partition()).toList();
    String readThroughText = String.join(",", readThrough.stream().map(Object::toString).toList());
    return assemble(conf, definition, streamColumns, topics, sourceParallelism(Math.min(partitions, topics.size()),
        parallelism), serviceUrl, adminUrl, parallelism, source, bound,
        watermarkDelayMs, new RedisViewSink(redisUri, target, 1, new ArrayList<>(definition.columns().keySet()), readThroughText,
            targetEvents, true), checkpointInterval, -1);
  }

  /**
   * Hand fetched events over at least every 100 ms: the Pulsar source otherwise waits for up to 100
   * records or 10 s per fetch (connector defaults), so on a quiet stream one event took 5-10 s to reach
   * its view. Up to 10,000 records per fetch keep backfills fast.
   *
   * @param builder a source builder
   * @return the builder
   */
  public static <T> PulsarSourceBuilder<T> fetchPromptly(PulsarSourceBuilder<T> builder) {
    return builder.setConfig(org.apache.flink.connector.pulsar.source.PulsarSourceOptions.PULSAR_MAX_FETCH_TIME, 100L)
        .setConfig(org.apache.flink.connector.pulsar.source.PulsarSourceOptions.PULSAR_MAX_FETCH_RECORDS, 10_000);
  }

  private static Configuration checkpointing(String checkpointDir, Duration checkpointInterval, boolean retain) {
    Configuration conf = new Configuration();
    conf.setString("execution.checkpointing.interval", checkpointInterval.toMillis() + " ms");
    conf.setString("execution.checkpointing.mode", "EXACTLY_ONCE");
    conf.setString("execution.checkpointing.externalized-checkpoint-retention",
        retain ? "RETAIN_ON_CANCELLATION" : "DELETE_ON_CANCELLATION");
    conf.setString("execution.checkpointing.min-pause", Math.min(500, checkpointInterval.toMillis() / 2) + " ms");
    conf.setString("state.checkpoints.dir", checkpointDir);
    conf.setString("state.checkpoints.num-retained", "2");
    conf.setString("state.backend.type", "hashmap");
    return conf;
  }

  /**
   * Parallelism of a stream's source: one reader for an unpartitioned stream, else one per partition up to
   * the job's parallelism (the connector assigns each partition to one reader).
   */
  static int sourceParallelism(int partitions, int parallelism) {
    return partitions <= 1 ? 1 : Math.max(1, Math.min(partitions, parallelism));
  }

  private static JobGraph assemble(Configuration conf, TransformDefinition definition, List<StreamColumn> streamColumns,
      List<String> topics, int sourceParallelism, String serviceUrl, String adminUrl, int parallelism, PulsarSourceBuilder<SourceEvent> sourceBuilder,
      ReplayBound bound, long watermarkDelayMs, RedisViewSink sink, Duration checkpointInterval, long signalAtEvents) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    StreamTableEnvironment tableEnv = tableEnvironment(env);
    // A mini-batch waits at most a quarter of the checkpoint interval (and 200 ms): the bundle is flushed
    // at each barrier anyway, and a longer wait only delays the change past the next commit.
    tableEnv.getConfig().set("table.exec.mini-batch.allow-latency",
        Math.max(10, Math.min(200, checkpointInterval.toMillis() / 4)) + " ms");

    // Pass records between chained operators without copies (every operator of this job builds new
    // objects for what it keeps).
    env.getConfig().enableObjectReuse();
    // SQL jobs read the payload only through PayloadParser.toRowData, which scans its bytes.
    PulsarSource<SourceEvent> source = fetchPromptly(sourceBuilder)
        .setDeserializationSchema(new LedgerEventDeserializer(!definition.isFold()))
        .setServiceUrl(serviceUrl)
        .setAdminUrl(adminUrl)
        .setTopics(topics)
        .build();
    String sourceName = "ledger " + topics.get(0).replaceAll("-partition-\\d+$", "");
    DataStream<SourceEvent> read = (bound == null
        ? env.fromSource(source, WatermarkStrategy.noWatermarks(), sourceName)
        : env.fromSource(new WithoutCursorAcks<>(source, TypeInformation.of(SourceEvent.class)),
            WatermarkStrategy.noWatermarks(), sourceName, TypeInformation.of(SourceEvent.class)))
        .setParallelism(sourceParallelism)
        .uid("ledger-source-" + java.util.UUID.randomUUID());
    List<String> columns = new ArrayList<>(definition.columns().keySet());
    int[] keyIndexes = definition.keyColumns().stream().mapToInt(columns::indexOf).toArray();
    DataStream<Row> result;
    DataStream<ViewChange> progress;
    if (definition.isFold()) {
      env.getConfig().disableGenericTypes(); // states were checked for Kryo at creation; never fall back
      SingleOutputStreamOperator<SourceEvent> events = read
          .transform("position", TypeInformation.of(SourceEvent.class),
              new PositionTracker<>(EventConverter.EVENTS, bound, false, -1).signalBackfillTargetAt(signalAtEvents))
          .setParallelism(1)
          .uid("position");
      result = FoldStage.changelog(events, definition, parallelism);
      progress = events.getSideOutput(PositionTracker.PROGRESS);
    } else {
      // Parse only the columns the SQL reads, straight into Flink's internal rows (no Row -> RowData
      // conversion in front of the SQL; the source left the payloads as bytes for the parser's scan).
      PayloadParser parser = new PayloadParser(streamColumns, List.of(definition.sql()));
      boolean eventTime = usesEventTimeWindows(definition.sql());
      SingleOutputStreamOperator<RowData> rows = read
          .transform("position", parser.rowDataType(),
              new PositionTracker<>(parser.rowDataConverter(), bound, false, eventTime ? watermarkDelayMs : -1)
                  .signalBackfillTargetAt(signalAtEvents))
          .setParallelism(1)
          .uid("position");
      tableEnv.createTemporaryView(quote(definition.sourceStream()), rows,
          eventTime ? parser.eventTimeSchema() : parser.schema());
      result = tableEnv.toChangelogStream(tableEnv.sqlQuery(definition.sql()));
      progress = rows.getSideOutput(PositionTracker.PROGRESS);
    }
    DataStream<ViewChange> changes = result
        .map(new ChangelogToViewChange(keyIndexes))
        .returns(ViewChange.class)
        .name("changelog to view changes");
    changes.union(progress)
        .sinkTo(sink)
        .setParallelism(1)
        .name("view " + definition.name())
        .uid("view-sink");
    return env.getStreamGraph().getJobGraph();
  }

  /**
   * Where the source starts (see {@link PositionCursors#start}).
   *
   * @param resumeFrom message ID text per partition; empty for earliest
   * @return the cursor
   */
  public static StartCursor startCursor(List<String> resumeFrom) {
    return PositionCursors.start(resumeFrom);
  }

  /** Pulsar subscription of one view version's source: a new version reads on a new subscription. */
  public static String subscription(TransformDefinition definition) {
    return "streamfold-view-" + definition.name() + "-v" + definition.version();
  }

  private static StreamTableEnvironment tableEnvironment(StreamExecutionEnvironment env) {
    return tableEnvironment(env, true);
  }

  /**
   * The table environment of Streamfold jobs.
   *
   * @param env the execution environment
   * @param miniBatch true for view jobs: mini-batches fold many events per key before emitting one
   *     changelog update (a bundle is flushed before each checkpoint barrier, so commits stay aligned
   *     with positions); false where every event's change must come out before the next event's
   *     watermark (training sets' ledger clock)
   * @return the table environment (UTC session time zone)
   */
  public static StreamTableEnvironment tableEnvironment(StreamExecutionEnvironment env, boolean miniBatch) {
    StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
    Configuration tableConf = new Configuration();
    tableConf.setString("table.exec.mini-batch.enabled", Boolean.toString(miniBatch));
    tableConf.setString("table.exec.mini-batch.allow-latency", "200 ms");
    tableConf.setString("table.exec.mini-batch.size", "5000");
    tableConf.setString("table.local-time-zone", "UTC");
    tableEnv.getConfig().addConfiguration(tableConf);
    return tableEnv;
  }

  /** Quote a SQL identifier with backticks. */
  public static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  static String sqlType(LogicalType type) {
    switch (type.getTypeRoot()) {
      case BIGINT: return "BIGINT";
      case INTEGER: case SMALLINT: case TINYINT: return "INT";
      case DOUBLE: case FLOAT: return "DOUBLE";
      case DECIMAL: return "DECIMAL";
      case BOOLEAN: return "BOOLEAN";
      case CHAR: case VARCHAR: return "STRING";
      case TIMESTAMP_WITHOUT_TIME_ZONE: case TIMESTAMP_WITH_LOCAL_TIME_ZONE: case TIMESTAMP_WITH_TIME_ZONE:
        return "TIMESTAMP";
      case DATE: return "DATE";
      default: return type.asSummaryString();
    }
  }

  /**
   * Point at the position Calcite reported, if any: " (at line L, column C: 'word')". Calcite's
   * exceptions live in the planner's own class loader, so the position is read reflectively.
   */
  static String where(String sql, Throwable e) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      try {
        Object pos = t.getClass().getMethod("getPos").invoke(t);
        if (pos == null) {
          continue;
        }
        int line = (Integer) pos.getClass().getMethod("getLineNum").invoke(pos);
        int column = (Integer) pos.getClass().getMethod("getColumnNum").invoke(pos);
        String[] lines = sql.split("\n", -1);
        if (line < 1 || line > lines.length || column < 1 || column > lines[line - 1].length()) {
          return "";
        }
        String rest = lines[line - 1].substring(column - 1);
        String word = rest.split("[\\s,()]+", 2)[0];
        return " (at line " + line + ", column " + column + (word.isEmpty() ? "" : ": '" + word + "'") + ")";
      } catch (ReflectiveOperationException | ClassCastException notCalcite) {
        // keep looking down the cause chain
      }
    }
    return "";
  }

  /** The most useful line of a Flink planning error: its own message plus the root cause's. */
  static String describe(Throwable e) {
    String first = String.valueOf(e.getMessage()).split("\n")[0].trim();
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String rootLine = root == e ? "" : String.valueOf(root.getMessage()).split("\n")[0].trim();
    if (rootLine.isEmpty() || first.contains(rootLine)) {
      return first;
    }
    return first + " " + rootLine;
  }
}
