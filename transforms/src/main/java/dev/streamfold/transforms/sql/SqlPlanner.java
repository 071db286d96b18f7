package dev.streamfold.transforms.sql;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.source.PayloadParser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.flink.sql.parser.validate.FlinkSqlConformance;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.operations.SinkModifyOperation;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeUtils;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;

/**
 * Plans SQL with Flink's own planner over placeholder tables of a tenant's streams, without running
 * anything, and applies Streamfold's rules to the optimized plan ({@link OptimizedPlan}): determinism,
 * one stream, one row per key, a key that identifies one row, bounded join state, event-time windows.
 * No rule reads the SQL text.
 */
public final class SqlPlanner {
  /** The placeholder sink {@link #checkKeyIdentifiesOneRow} plans an INSERT into. */
  private static final String KEY_CHECK_SINK = "streamfold_key_check";

  private SqlPlanner() {}

  /**
   * What planning a transformation's SQL found.
   *
   * @param streams the streams the SQL reads, by name (one or more)
   * @param columns result column name to SQL type, in order
   * @param keyColumns the row-key columns
   * @param eventTimeWindows whether the plan computes event-time windows (its stream table then has
   *     {@code _event_time} as rowtime attribute, with watermarks)
   * @param columnsReadByStream for each stream read, its declared and metadata columns the plan reads
   * @param windowedStreams the streams whose rows an event-time window reads
   * @param orderDependent the first operation whose result depends on the order the rows are folded in
   *     ({@link OptimizedPlan#orderDependent}), e.g. {@code LAST_VALUE}, or empty
   * @param unions whether the plan unions inputs ({@link OptimizedPlan#unions}): their rows meet in one input of one
   *     task in no defined order
   */
  public record PlannedQuery(List<String> streams, LinkedHashMap<String, String> columns, List<String> keyColumns,
      boolean eventTimeWindows, Map<String, Set<String>> columnsReadByStream, Set<String> windowedStreams,
      Optional<String> orderDependent, boolean unions) {

    public PlannedQuery {
      streams = List.copyOf(new java.util.TreeSet<>(streams));
      columnsReadByStream = Map.copyOf(columnsReadByStream);
      windowedStreams = Set.copyOf(windowedStreams);
    }

    /**
     * The one stream a single-stream plan reads.
     *
     * @throws IllegalStateException if the plan reads several streams
     */
    public String sourceStream() {
      if (streams.size() != 1) {
        throw new IllegalStateException("the SQL reads " + streams.size() + " streams: " + streams);
      }
      return streams.get(0);
    }

    /** The columns a single-stream plan reads of its stream ({@link #sourceStream}). */
    public Set<String> columnsRead() {
      return columnsReadByStream.getOrDefault(sourceStream(), Set.of());
    }

    /** The columns the plan reads of {@code stream} (empty for a stream it does not read). */
    public Set<String> columnsRead(String stream) {
      return columnsReadByStream.getOrDefault(stream, Set.of());
    }
  }

  /** How a stream's rows are presented to SQL. */
  public enum Rows {
    /** Declared columns, {@code _key}, {@code _event_time} as a plain TIMESTAMP. */
    EVENTS,
    /** As {@link #EVENTS}, with {@code _event_time} the rowtime attribute (event-time windows). */
    EVENT_TIME,
    /** As {@link #EVENTS}, then {@code _message_id} and the rowtime {@code _ledger_time} (training sets). */
    LEDGER_CLOCK
  }

  /** One query planned over placeholder tables. */
  private record Planned(StreamTableEnvironment tableEnv, Table table, OptimizedPlan plan) {}

  /**
   * Parse, validate and plan a transformation's SQL over a tenant's streams without running anything,
   * and check it against every rule a view's SQL must meet.
   *
   * @param sql Flink SQL over one or more streams
   * @param streams stream name to its declared columns (streams without columns cannot be queried)
   * @param keyColumns requested row-key columns, or empty for the first result column
   * @return the plan's facts
   * @throws TransformException.InvalidSql if the SQL does not parse, validate or plan, is not deterministic,
   *     reads no stream, depends on how a join or union interleaves several streams, does not give one row per key,
   *     or names a key column that is not a result column; the message says why and what works
   */
  public static PlannedQuery plan(String sql, Map<String, List<StreamColumn>> streams, List<String> keyColumns) {
    if (sql == null || sql.isBlank()) {
      throw new TransformException.InvalidSql("SQL is empty", null);
    }
    try {
      return checked(sql, planned(sql, streams), streams, keyColumns);
    } catch (StackOverflowError e) {
      throw tooDeep();
    } catch (TransformException.InvalidSql e) {
      if (e.getMessage().contains("Object '") && e.getMessage().contains("' not found")) {
        // a table that is not a stream of the tenant: say which ones are
        throw new TransformException.InvalidSql(e.getMessage() + " (streams of the tenant: "
            + new java.util.TreeSet<>(streams.keySet()) + ")", e.getCause());
      }
      throw e;
    }
  }

  /**
   * Plan any deterministic query (no one-row-per-key rule) over a tenant's streams without running
   * anything, e.g. a training set's label expression.
   *
   * @param sql Flink SQL
   * @param streams stream name to its declared columns
   * @return result column name to SQL type, in order
   * @throws TransformException.InvalidSql if it does not parse, validate or plan, or is not deterministic
   */
  public static LinkedHashMap<String, String> planColumns(String sql, Map<String, List<StreamColumn>> streams) {
    if (sql == null || sql.isBlank()) {
      throw new TransformException.InvalidSql("SQL is empty", null);
    }
    try {
      Planned planned = planned(sql, streams);
      checkDeterministic(planned.plan());
      return columns(planned.table());
    } catch (StackOverflowError e) {
      throw tooDeep();
    }
  }

  /**
   * Plan SQL over one stream the way its job will run it, with no rules: for building the job of a
   * stored definition (checked when it was created).
   *
   * @param sql Flink SQL over {@code stream}
   * @param stream the stream's name
   * @param columns its declared columns
   * @param rows how its rows are presented, or null to choose as {@link #plan} does (event time exactly
   *     when the plan has event-time windows)
   * @return the facts of the plan ({@code sourceStream} is {@code stream}; no key columns)
   * @throws TransformException.InvalidSql if it does not plan
   */
  public static PlannedQuery analyze(String sql, String stream, List<StreamColumn> columns, Rows rows) {
    return analyze(sql, Map.of(stream, columns), rows);
  }

  /**
   * Plan SQL over some streams the way its job will run it, with no rules: for building the job of a stored
   * definition over several streams (checked when it was created).
   *
   * @param sql Flink SQL over some of {@code streams}
   * @param streams stream name to its declared columns
   * @param rows how the rows are presented, or null to choose as {@link #plan} does
   * @return the facts of the plan ({@code streams} are those of {@code streams} the SQL reads; no key columns)
   * @throws TransformException.InvalidSql if it does not plan
   */
  public static PlannedQuery analyze(String sql, Map<String, List<StreamColumn>> streams, Rows rows) {
    try {
      Planned planned = rows == null ? planned(sql, streams) : plannedAs(sql, streams, rows);
      Map<String, Set<String>> read = new LinkedHashMap<>();
      for (String stream : planned.plan().scannedTables()) {
        if (streams.containsKey(stream)) {
          read.put(stream, planned.plan().columnsRead().getOrDefault(stream, Set.of()));
        }
      }
      return new PlannedQuery(List.copyOf(read.keySet()), columns(planned.table()), List.of(),
          planned.plan().hasEventTimeWindows(), read, windowed(planned.plan(), read.keySet()),
          planned.plan().orderDependent(), planned.plan().unions());
    } catch (StackOverflowError e) {
      throw tooDeep();
    } catch (RuntimeException e) {
      throw e instanceof TransformException ? e : invalid(sql, e);
    }
  }

  /**
   * Plan SQL, choosing how the streams' rows are presented: with {@code _event_time} as rowtime attribute
   * when the plan then computes event-time windows, else as plain TIMESTAMP (the same rows a query without
   * windows has always seen: ordering by {@code _event_time} is ledger order, not a watermark's).
   */
  private static Planned planned(String sql, Map<String, List<StreamColumn>> streams) {
    RuntimeException eventTimeError = null;
    Planned eventTime = null;
    try {
      eventTime = plannedAs(sql, streams, Rows.EVENT_TIME);
      if (eventTime.plan().hasEventTimeWindows()) {
        return eventTime;
      }
    } catch (RuntimeException e) {
      eventTimeError = e;
    }
    try {
      return plannedAs(sql, streams, Rows.EVENTS);
    } catch (RuntimeException e) {
      if (eventTime != null) {
        // it needs _event_time as a time attribute without windowing by it, e.g. CURRENT_WATERMARK(_event_time)
        checkDeterministic(eventTime.plan());
      }
      // Flink's wording for a window over a column that is not a time attribute: the event-time error is the one
      RuntimeException reported = eventTimeError != null && describe(e).contains("time attribute") ? eventTimeError : e;
      throw invalid(sql, reported);
    }
  }

  private static Planned plannedAs(String sql, Map<String, List<StreamColumn>> streams, Rows rows) {
    StreamTableEnvironment tableEnv = placeholderTables(streams, rows);
    Table table = tableEnv.sqlQuery(sql);
    return new Planned(tableEnv, table, OptimizedPlan.of(tableEnv, table));
  }

  private static TransformException.InvalidSql invalid(String sql, RuntimeException e) {
    if (causedBy(e, StackOverflowError.class) || causedBy(e, NullPointerException.class)
        && parseFailure(sql).filter(failure -> causedBy(failure, StackOverflowError.class)).isPresent()) {
      // Calcite's parser wraps its stack overflow in an exception without a message, on which Flink's parser
      // then fails with a NullPointerException: parsing again with the same parser finds the overflow
      return tooDeep();
    }
    String described = describe(e);
    return new TransformException.InvalidSql("invalid SQL: " + described
        + (described.contains(" at line ") ? "" : where(sql, e)), e);
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  /** What Flink's SQL parser (Calcite with Flink's grammar) throws on the SQL, if anything. */
  private static Optional<Throwable> parseFailure(String sql) {
    try {
      SqlParser.create(sql, SqlParser.config().withParserFactory(FlinkSqlParserImpl.FACTORY)
          .withQuoting(Quoting.BACK_TICK).withUnquotedCasing(Casing.UNCHANGED).withQuotedCasing(Casing.UNCHANGED)
          .withConformance(FlinkSqlConformance.DEFAULT)).parseStmtList();
      return Optional.empty();
    } catch (SqlParseException | RuntimeException | StackOverflowError e) {
      return Optional.of(e);
    }
  }

  private static TransformException.InvalidSql tooDeep() {
    return new TransformException.InvalidSql("invalid SQL: the query is nested too deep for the planner (its"
        + " expressions or subqueries nest thousands of levels); flatten it, e.g. a long chain of OR/AND or"
        + " CASE into IN (...) or a lookup, nested subqueries into one", null);
  }

  /** A table environment with a placeholder table per stream (declared columns and metadata columns). */
  private static StreamTableEnvironment placeholderTables(Map<String, List<StreamColumn>> streams, Rows rows) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
    StreamTableEnvironment tableEnv = TableEnvironments.create(env, true);
    for (Map.Entry<String, List<StreamColumn>> stream : streams.entrySet()) {
      try {
        StreamColumn.checkDistinct(stream.getValue());
        PayloadParser parser = new PayloadParser(stream.getValue());
        TypeInformation<Row> type = rows == Rows.LEDGER_CLOCK ? parser.ledgerClockRowType() : parser.rowType();
        DataStream<Row> placeholder = env.fromSequence(0, 0).map(i -> new Row(0)).returns(type);
        Schema schema = switch (rows) {
          case EVENTS -> parser.schema();
          case EVENT_TIME -> parser.eventTimeSchema();
          case LEDGER_CLOCK -> parser.ledgerClockSchema();
        };
        tableEnv.createTemporaryView(TableEnvironments.quote(stream.getKey()), placeholder, schema);
      } catch (RuntimeException unusable) {
        // A stream whose declared columns SQL cannot take (e.g. created before names were checked) must
        // not break transformations over other streams; SQL over it says it does not exist.
        continue;
      }
    }
    return tableEnv;
  }

  private static LinkedHashMap<String, String> columns(Table table) {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    for (Column column : table.getResolvedSchema().getColumns()) {
      columns.put(column.getName(), sqlType(column.getDataType().getLogicalType()));
    }
    return columns;
  }

  /** Every rule of a view's SQL, on its plan. */
  private static PlannedQuery checked(String sql, Planned planned, Map<String, List<StreamColumn>> streams,
      List<String> keyColumns) {
    OptimizedPlan plan = planned.plan();
    checkDeterministic(plan);
    Set<String> scanned = new LinkedHashSet<>(plan.scannedTables());
    scanned.retainAll(streams.keySet());
    if (scanned.isEmpty()) {
      throw new TransformException.InvalidSql("a transformation reads one or more streams; this SQL reads none"
          + " (streams of the tenant: " + new java.util.TreeSet<>(streams.keySet()) + ")", null);
    }
    LinkedHashMap<String, String> columns = columns(planned.table());
    List<String> names = new ArrayList<>(columns.keySet());
    for (int i = 0; i < names.size(); i++) {
      if (names.get(i).startsWith("EXPR$")) {
        throw new TransformException.InvalidSql("result column " + (i + 1) + " has no name (Flink calls it "
            + names.get(i) + "): name every computed column with AS, e.g. COUNT(*) AS n", null);
      }
    }
    boolean keyGiven = keyColumns != null && !keyColumns.isEmpty();
    List<String> keys = keyGiven ? List.copyOf(keyColumns) : List.of(names.get(0));
    for (String key : keys) {
      if (!columns.containsKey(key)) {
        throw new TransformException.InvalidSql("key column '" + key + "' is not a result column; result columns: "
            + columns.keySet(), null);
      }
    }
    if (new LinkedHashSet<>(keys).size() != keys.size()) {
      throw new TransformException.InvalidSql("key " + keys + " names a column twice", null);
    }
    if (plan.alwaysEmpty()) {
      throw new TransformException.InvalidSql("this SQL's result is always empty (Flink plans it as no rows: e.g. a"
          + " WHERE that is never true)", null);
    }
    if (plan.hasLimitWithoutOrder()) {
      throw new TransformException.InvalidSql("LIMIT without ORDER BY keeps whichever rows arrive first, so the view"
          + " would depend on arrival order, not on the events; for the top N rows per key use ROW_NUMBER() OVER"
          + " (PARTITION BY key ORDER BY ...) <= N (Top-N)", null);
    }
    checkOneRowPerKey(plan, keys, keyGiven);
    checkKeyIdentifiesOneRow(planned, columns, keys);
    checkJoinState(plan);
    Optional<String> window = plan.windowOverMergedRows();
    if (window.isPresent()) {
      throw new TransformException.InvalidSql(window.get() + " is applied to the rows of a join or UNION ALL: Flink"
          + " plans such a window over the union's first input only and drops the others without a word, so it is"
          + " refused; window one input at a time (TABLE stream, or a subquery over one stream), then join or union"
          + " the windowed results", null);
    }
    if (plan.hasEventTimeWindows() && keys.stream().noneMatch(k -> k.equals("window_start") || k.equals("window_end"))) {
      throw new TransformException.InvalidSql("a windowed view keeps one row per key and window, so its key must"
          + " include window_start (or window_end), e.g. --key " + keys.get(0) + ",window_start; key now: " + keys, null);
    }
    if (scanned.size() > 1) {
      checkInterleaving(plan, scanned);
    }
    Map<String, Set<String>> read = new LinkedHashMap<>();
    for (String stream : scanned) {
      read.put(stream, plan.columnsRead().getOrDefault(stream, Set.of()));
    }
    return new PlannedQuery(List.copyOf(scanned), columns, keys, plan.hasEventTimeWindows(), read,
        windowed(plan, read.keySet()), plan.orderDependent(), plan.unions());
  }

  /** The streams among {@code streams} whose rows an event-time window of the plan reads. */
  private static Set<String> windowed(OptimizedPlan plan, Set<String> streams) {
    if (!plan.hasEventTimeWindows()) {
      return Set.of();
    }
    Set<String> windowed = new java.util.TreeSet<>(plan.windowedTables());
    windowed.retainAll(streams);
    return windowed;
  }

  /**
   * A view must be replayable: replaying the ledger to a position must give the rows the live view had
   * there, and a training set must not depend on when it is built. So SQL may not call functions of the
   * wall clock or of chance, nor use processing time; the event time column {@code _event_time} takes the
   * clock's place.
   *
   * @throws TransformException.InvalidSql naming the function
   */
  static void checkDeterministic(OptimizedPlan plan) {
    Optional<String> call = NonDeterminism.find(plan);
    if (call.isPresent()) {
      throw new TransformException.InvalidSql("'" + call.get() + "' is not deterministic: views and training sets"
          + " must give the same rows whenever the ledger is replayed, so they may not use the wall clock, processing"
          + " time or random values; use the event time column " + PayloadParser.EVENT_TIME_COLUMN
          + " instead of the current time", null);
    }
  }

  /**
   * A view over several streams reads them in the tenant clock's one order, but a join or union still receives
   * its inputs over separate channels, in an interleaving that differs between runs. At every tick the view must
   * equal the SQL over exactly the events the tick covers, whatever that interleaving: so nothing may depend on
   * the order of rows that come out of a join or union ({@link OptimizedPlan#orderDependentOverMergedInputs}).
   * Event-time windows are allowed over one stream's rows (each stream's rows carry that stream's own watermarks,
   * in its ledger order), not over a join's or union's output ({@link OptimizedPlan#orderDependentOverMergedInputs}).
   *
   * @throws TransformException.InvalidSql naming what depends on the order, and what to do instead
   */
  static void checkInterleaving(OptimizedPlan plan, Set<String> read) {
    Set<String> streams = new java.util.TreeSet<>(read);
    Optional<String> dependent = plan.orderDependentOverMergedInputs();
    if (dependent.isPresent()) {
      throw new TransformException.InvalidSql("this SQL reads several streams " + streams + " and applies "
          + dependent.get() + " to the output of a join or UNION ALL, whose rows arrive in an order that differs"
          + " from run to run, so replaying the ledger could give other rows; apply it to one stream's own events"
          + " (in a subquery, before the join: there the ledger's order holds), or use an order-independent"
          + " aggregate (COUNT, SUM or AVG of an integer or DECIMAL, MIN, MAX)", null);
    }
  }

  /**
   * A regular join keeps, in Flink state and forever, every row of each input that has no unique key:
   * joined raw events (a self-join of a stream, or {@code IN (SELECT ... FROM stream)}) make a view's
   * state grow with the whole ledger, and a key shared by n events on each side emits n^2 rows. So such
   * joins are refused; joins of aggregates (each side grouped by the join key, so one row per key) keep
   * state proportional to the keys and are allowed.
   *
   * @throws TransformException.InvalidSql naming the join type and what to do instead
   */
  static void checkJoinState(OptimizedPlan plan) {
    Optional<String> join = plan.joinWithoutUniqueKeys();
    if (join.isPresent()) {
      throw new TransformException.InvalidSql("this SQL joins raw events (" + join.get() + "): a join keeps every event"
          + " of an input without a unique key in its state forever, so the view's state would grow with the whole"
          + " ledger (and a key shared by many events emits a row per pair); join aggregates instead, each side"
          + " grouped by the join key, e.g. SELECT a.k, a.n, b.m FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k) a"
          + " JOIN (SELECT k, SUM(x) AS m FROM s GROUP BY k) b ON a.k = b.k", null);
    }
  }

  /**
   * The view key must identify one row of the result: a key that is not a unique key of the SQL's result
   * (a column the SQL does not group by, an aggregate such as {@code --key n}, a UNION ALL of aggregates, a
   * Top-N without the rank) makes rows with the same key overwrite each other in the view, silently.
   *
   * <p>The rule is Flink's own: planned as an INSERT into a placeholder table whose PRIMARY KEY is the view
   * key, Flink adds an upsert materializer to the sink exactly when no unique (upsert) key of the query's
   * changelog is contained in the primary key ({@code table.exec.sink.upsert-materialize} AUTO, the
   * default; Flink's {@code FlinkChangelogModeInferenceProgram}). An insert-only result (event-time
   * windows) gets no materializer, so there the key must hold every column the window aggregate groups by.
   *
   * @throws TransformException.InvalidSql naming the key and what the SQL groups by
   */
  static void checkKeyIdentifiesOneRow(Planned planned, Map<String, String> columns, List<String> keys) {
    StreamTableEnvironment tableEnv = planned.tableEnv();
    Schema.Builder schema = Schema.newBuilder();
    for (Column column : planned.table().getResolvedSchema().getColumns()) {
      LogicalType type = LogicalTypeUtils.removeTimeAttributes(column.getDataType().getLogicalType());
      // primary key columns are NOT NULL in Flink (nullable ones in the query are enforced at the sink)
      schema.column(column.getName(), TypeConversions.fromLogicalToDataType(
          keys.contains(column.getName()) ? type.copy(false) : type));
    }
    schema.primaryKey(keys);
    boolean materialized;
    tableEnv.getConfig().set("table.exec.sink.upsert-materialize", "AUTO"); // the default, which the rule reads
    try {
      tableEnv.createTemporaryTable(KEY_CHECK_SINK, TableDescriptor.forConnector("blackhole").schema(schema.build()).build());
      TableEnvironmentImpl impl = (TableEnvironmentImpl) tableEnv;
      ObjectIdentifier sink = ObjectIdentifier.of(impl.getCurrentCatalog(), impl.getCurrentDatabase(), KEY_CHECK_SINK);
      materialized = OptimizedPlan.of(tableEnv, new SinkModifyOperation(impl.getCatalogManager().getTableOrError(sink),
          planned.table().getQueryOperation())).sinkNeedsUpsertMaterialize();
    } catch (RuntimeException e) {
      return; // the view job's own planning reports what is wrong with the SQL; this check only adds a rule
    } finally {
      tableEnv.dropTemporaryTable(KEY_CHECK_SINK);
    }
    List<List<String>> groupings = planned.plan().groupings();
    if (materialized) {
      throw new TransformException.InvalidSql("the view key " + keys + " does not identify one row of this SQL's result"
          + " (rows with the same key would overwrite each other): key it by the columns the result has one row per"
          + (groupings.isEmpty() || groupings.get(0).isEmpty() ? "" : " (the SQL groups by " + groupings.get(0) + ")")
          + "; a UNION ALL of aggregates has no such key, and a Top-N of more than one row per key needs the rank"
          + " column in the key", null);
    }
    // Insert-only (a window aggregate's): Flink adds no materializer, and derives no unique key once the
    // result drops window_end, so the rule here is by name: a column the windows are grouped by that the result
    // keeps under its name must be in the key (a renamed one is not recognized, and not checked).
    for (String name : planned.plan().windowGrouping().orElse(List.of())) {
      if (columns.containsKey(name) && !keys.contains(name)) {
        throw new TransformException.InvalidSql("the view key " + keys + " does not identify one row of this SQL's"
            + " result: each window has a row per " + name + " too, so the key must hold it as well as"
            + " window_start (or window_end), e.g. --key " + name + ",window_start", null);
      }
    }
  }

  /**
   * A view keeps one row per key, so the result must have one row per key: the SQL must aggregate
   * (GROUP BY, a window, deduplication or Top-N), and the default key (the first result column) must be
   * what it groups by. A plain projection such as {@code SELECT origin, delay FROM flights} would silently
   * keep the last row per key, so it is refused.
   *
   * @throws TransformException.InvalidSql if the plan does not aggregate, or the default key is not grouped by
   */
  static void checkOneRowPerKey(OptimizedPlan plan, List<String> keys, boolean keyGiven) {
    List<List<String>> groupings = plan.groupings();
    if (groupings.isEmpty() && !plan.aggregates()) {
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

  /** Streamfold's name of a SQL type, as views and training sets report it. */
  public static String sqlType(LogicalType type) {
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
   * Point at the position Calcite reported, if any: " (at line L, column C: 'word')". Read reflectively
   * ({@code getPos()}), since the exception types differ between Calcite's parser and validator.
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
        int end = 0;
        while (end < rest.length() && end < 40 && !Character.isWhitespace(rest.charAt(end))
            && ",()".indexOf(rest.charAt(end)) < 0) {
          end++;
        }
        String word = rest.substring(0, end);
        return " (at line " + line + ", column " + column + (word.isEmpty() ? "" : ": '" + word + "'") + ")";
      } catch (ReflectiveOperationException | ClassCastException notCalcite) {
        // keep looking down the cause chain
      }
    }
    return "";
  }

  /** The most useful line of a Flink planning error: its own message plus the root cause's (each capped). */
  static String describe(Throwable e) {
    String first = firstLine(e);
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String rootLine = root == e ? "" : firstLine(root);
    if (rootLine.isEmpty() || first.contains(rootLine)) {
      return first;
    }
    return first + " " + rootLine;
  }

  /** A message's first line, at most 500 characters (a message may quote a 1 MB literal). */
  private static String firstLine(Throwable e) {
    String line = String.valueOf(e.getMessage()).split("\n", 2)[0].trim();
    return line.length() <= 500 ? line : line.substring(0, 500) + "...";
  }
}
