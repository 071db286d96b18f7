package dev.streamfold.transforms.sql;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.rel.core.Calc;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentImpl;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.metadata.FlinkRelMetadataQuery;
import org.apache.flink.table.planner.plan.nodes.calcite.Rank;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalDeduplicate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalExchange;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalMiniBatchAssigner;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWatermarkAssigner;
import org.apache.flink.table.planner.plan.schema.TableSourceTable;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalGroupAggregateBase;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalJoin;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalLimit;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalOverAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalSink;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalValues;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWindowAggregateBase;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWindowDeduplicate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWindowJoin;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWindowRank;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWindowTableFunction;

/**
 * The optimized physical plan Flink's own planner made of one query (the very tree it would translate
 * into the job), and the facts Streamfold's rules read from it. Every rule that decides whether SQL may
 * run reads this tree, never the SQL text nor the plan's printed form: names are resolved, views,
 * subqueries and CTEs are inlined, and quoting, case and comments are gone.
 *
 * <p>The planner is Flink's {@code flink-table-planner} (not the class-loader-isolated
 * {@code flink-table-planner-loader}), so that its Calcite tree is reachable here.
 */
public final class OptimizedPlan {
  private final RelNode root;
  /** The tables the query reads as written (before the optimizer prunes, e.g. a scan under WHERE FALSE). */
  private final Set<String> tablesAsWritten = new LinkedHashSet<>();
  /** A window table function over a join's or union's rows, as written (the optimizer may drop inputs of it). */
  private String windowOverMergedRows;
  /** The tables a window table function reads rows of, as written. */
  private final Set<String> windowedTables = new LinkedHashSet<>();
  /** Every node once (identity), parents before children. */
  private final List<RelNode> nodes = new ArrayList<>();
  /** Each node's parents. */
  private final Map<RelNode, List<RelNode>> parents = new IdentityHashMap<>();

  private OptimizedPlan(RelNode logical, RelNode root) {
    this.root = root;
    logical.accept(new org.apache.calcite.rel.RelShuttleImpl() {
      @Override
      public RelNode visit(TableScan scan) {
        tablesAsWritten.add(tableName(scan));
        return scan;
      }
    });
    windowOverMergedRows = windowOverMergedRows(logical).orElse(null);
    collectWindowedTables(logical, false);
    collect(root, null, Collections.newSetFromMap(new IdentityHashMap<>()));
  }

  /** Add the tables scanned under a window table function of a logical plan to {@link #windowedTables}. */
  private void collectWindowedTables(RelNode node, boolean underWindow) {
    boolean windowed = underWindow || node instanceof org.apache.calcite.rel.core.TableFunctionScan scan
        && scan.getCall() instanceof org.apache.calcite.rex.RexCall call
        && WINDOW_FUNCTIONS.contains(call.getOperator().getName().toUpperCase(java.util.Locale.ROOT));
    if (windowed && node instanceof TableScan scan) {
      windowedTables.add(tableName(scan));
    }
    for (RelNode input : node.getInputs()) {
      collectWindowedTables(input, windowed);
    }
  }

  /** The tables whose rows a window table function reads (as written): the streams an event-time window closes on. */
  public Set<String> windowedTables() {
    return Collections.unmodifiableSet(windowedTables);
  }

  /** The first window table function of a logical plan applied to merged rows (several inputs, as written). */
  private static Optional<String> windowOverMergedRows(RelNode node) {
    if (node instanceof org.apache.calcite.rel.core.TableFunctionScan scan
        && scan.getCall() instanceof org.apache.calcite.rex.RexCall call
        && WINDOW_FUNCTIONS.contains(call.getOperator().getName().toUpperCase(java.util.Locale.ROOT))
        && mergesInputs(scan)) { // a union as the table argument becomes several inputs of the scan
      return Optional.of(call.getOperator().getName().toUpperCase(java.util.Locale.ROOT));
    }
    for (RelNode input : node.getInputs()) {
      Optional<String> found = windowOverMergedRows(input);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  /**
   * Optimize a query as Flink would for a job.
   *
   * @param tableEnv the table environment the query was made in
   * @param table the query
   * @return its optimized physical plan
   * @throws RuntimeException (Flink's TableException, ValidationException) if Flink cannot plan it
   */
  public static OptimizedPlan of(StreamTableEnvironment tableEnv, Table table) {
    PlannerBase planner = planner(tableEnv);
    RelNode logical = planner.createRelBuilder().queryOperation(table.getQueryOperation()).build();
    return new OptimizedPlan(logical, planner.optimize(logical));
  }

  /**
   * Optimize a statement that writes into a table (e.g. an INSERT), as Flink would for a job.
   *
   * @param tableEnv the table environment the statement was made in
   * @param modify the statement
   * @return its optimized physical plan; the root is the sink
   */
  public static OptimizedPlan of(StreamTableEnvironment tableEnv, ModifyOperation modify) {
    PlannerBase planner = planner(tableEnv);
    RelNode logical = planner.translateToRel(modify);
    return new OptimizedPlan(logical, planner.optimize(logical));
  }

  private static PlannerBase planner(StreamTableEnvironment tableEnv) {
    return (PlannerBase) ((TableEnvironmentImpl) tableEnv).getPlanner();
  }

  private void collect(RelNode node, RelNode parent, Set<RelNode> seen) {
    if (parent != null) {
      parents.computeIfAbsent(node, n -> new ArrayList<>()).add(parent);
    }
    if (!seen.add(node)) {
      return;
    }
    nodes.add(node);
    for (RelNode input : node.getInputs()) {
      collect(input, node, seen);
    }
  }

  /** The root of the plan. */
  public RelNode root() {
    return root;
  }

  /** Every node of the plan once, parents before children. */
  public List<RelNode> nodes() {
    return Collections.unmodifiableList(nodes);
  }

  /**
   * The name (in its database) of every table the query reads: those the optimized plan scans and
   * those the query names but the optimizer pruned (a scan under {@code WHERE FALSE}).
   */
  public Set<String> scannedTables() {
    Set<String> tables = new LinkedHashSet<>(tablesAsWritten);
    for (RelNode node : nodes) {
      if (node instanceof TableScan scan) {
        tables.add(tableName(scan));
      }
    }
    return tables;
  }

  /** A scan's table name in its database (the qualified name of a scan may carry its abilities, too). */
  private static String tableName(TableScan scan) {
    if (scan.getTable() instanceof TableSourceTable source) {
      return source.contextResolvedTable().getIdentifier().getObjectName();
    }
    List<String> name = scan.getTable().getQualifiedName();
    return name.size() >= 3 ? name.get(2) : name.get(name.size() - 1);
  }

  /**
   * The columns of each scanned table the plan reads. A scan read only through Flink's {@code Calc}
   * (projection and filter) reads the columns those expressions refer to; a scan read any other way
   * reads all its columns.
   *
   * @return table name (as {@link #scannedTables()}) to the names of the columns read
   */
  public Map<String, Set<String>> columnsRead() {
    Map<String, Set<String>> read = new LinkedHashMap<>();
    for (RelNode node : nodes) {
      if (!(node instanceof TableScan scan)) {
        continue;
      }
      Set<String> columns = read.computeIfAbsent(tableName(scan), t -> new LinkedHashSet<>());
      List<String> fields = scan.getRowType().getFieldNames();
      for (int i : fieldsRead(scan)) {
        columns.add(fields.get(i));
      }
    }
    return read;
  }

  /**
   * The fields of a node's output its readers use: through a {@code Calc}, those its expressions refer to;
   * through a node that passes its input's rows on unchanged (mini-batch and watermark assigners,
   * exchanges), those its own readers use; through any other node (or none), all of them.
   */
  private ImmutableBitSet fieldsRead(RelNode node) {
    ImmutableBitSet all = ImmutableBitSet.range(node.getRowType().getFieldCount());
    List<RelNode> readers = parents.getOrDefault(node, List.of());
    if (readers.isEmpty()) {
      return all;
    }
    ImmutableBitSet.Builder used = ImmutableBitSet.builder();
    for (RelNode reader : readers) {
      if (reader instanceof Calc calc) {
        used.addAll(fieldsUsed(calc.getProgram()));
      } else if (reader instanceof StreamPhysicalMiniBatchAssigner || reader instanceof StreamPhysicalWatermarkAssigner
          || reader instanceof StreamPhysicalExchange) {
        used.addAll(fieldsRead(reader));
      } else {
        return all;
      }
    }
    return used.build();
  }

  private static ImmutableBitSet fieldsUsed(RexProgram program) {
    List<RexNode> used = new ArrayList<>();
    program.getProjectList().forEach(ref -> used.add(program.expandLocalRef(ref)));
    if (program.getCondition() != null) {
      used.add(program.expandLocalRef(program.getCondition()));
    }
    return RelOptUtil.InputFinder.bits(used, null);
  }

  /**
   * Whether the plan computes event-time windows: window table functions ({@code TUMBLE}, {@code HOP},
   * {@code CUMULATE}, {@code SESSION}) and what aggregates, ranks, deduplicates or joins them, and the
   * group windows of {@code GROUP BY TUMBLE(...)}. Such a plan needs watermarks.
   */
  public boolean hasEventTimeWindows() {
    return nodes.stream().anyMatch(OptimizedPlan::isEventTimeWindow);
  }

  private static final Set<String> WINDOW_FUNCTIONS = Set.of("TUMBLE", "HOP", "CUMULATE", "SESSION");

  /**
   * A window table function ({@code TUMBLE}, {@code HOP}, {@code CUMULATE}, {@code SESSION}) applied, as written, to
   * the rows of a join or {@code UNION ALL} (a subquery): Flink 1.20 plans such a window over the first input of the
   * union only and drops the others without a word (seen in {@code SqlPlannerTest}), so the view would silently
   * miss rows.
   *
   * @return the window function's name, or empty
   */
  public Optional<String> windowOverMergedRows() {
    return Optional.ofNullable(windowOverMergedRows);
  }

  private static boolean isEventTimeWindow(RelNode n) {
    return n instanceof StreamPhysicalWindowAggregateBase || n instanceof StreamPhysicalWindowTableFunction
        || n instanceof StreamPhysicalWindowRank || n instanceof StreamPhysicalWindowDeduplicate
        || n instanceof StreamPhysicalWindowJoin;
  }

  /** Whether the plan aggregates (a GROUP BY, a global aggregate or a window aggregate). */
  public boolean aggregates() {
    return nodes.stream().anyMatch(n -> n instanceof StreamPhysicalGroupAggregateBase
        || n instanceof StreamPhysicalWindowAggregateBase);
  }

  /**
   * What each aggregation, Top-N and deduplication of the plan groups or partitions by, in its input's
   * column names, topmost first.
   */
  public List<List<String>> groupings() {
    List<List<String>> groupings = new ArrayList<>();
    for (RelNode node : nodes) {
      int[] fields = null;
      if (node instanceof StreamPhysicalGroupAggregateBase aggregate) {
        fields = aggregate.grouping();
      } else if (node instanceof StreamPhysicalWindowAggregateBase aggregate) {
        fields = aggregate.grouping();
      } else if (node instanceof Rank rank) {
        fields = rank.partitionKey().toArray();
      } else if (node instanceof StreamPhysicalDeduplicate deduplicate) {
        fields = deduplicate.getUniqueKeys();
      } else if (node instanceof StreamPhysicalWindowDeduplicate deduplicate) {
        fields = deduplicate.partitionKeys();
      }
      if (fields != null) {
        groupings.add(inputNames(node, fields));
      }
    }
    return groupings;
  }

  /** What the topmost window aggregate groups by (its input's names), or empty without one. */
  public Optional<List<String>> windowGrouping() {
    return nodes.stream().filter(n -> n instanceof StreamPhysicalWindowAggregateBase).findFirst()
        .map(n -> inputNames(n, ((StreamPhysicalWindowAggregateBase) n).grouping()));
  }

  private static List<String> inputNames(RelNode node, int[] fields) {
    List<String> inputNames = node.getInput(0).getRowType().getFieldNames();
    List<String> names = new ArrayList<>();
    for (int field : fields) {
      names.add(inputNames.get(field));
    }
    return names;
  }

  /** Whether the plan has a streaming LIMIT without ORDER BY (which keeps whichever rows come first). */
  public boolean hasLimitWithoutOrder() {
    return nodes.stream().anyMatch(n -> n instanceof StreamPhysicalLimit);
  }

  /** Whether Flink folded the query to no rows at all (e.g. a WHERE that is never true), with no aggregate. */
  public boolean alwaysEmpty() {
    return !aggregates() && nodes.stream().anyMatch(n -> n instanceof StreamPhysicalValues values
        && values.getTuples().isEmpty());
  }

  /**
   * The first regular join one of whose inputs has no unique key (a join of raw events: Flink keeps every
   * such input row in its state, forever), as Flink names the join type, e.g. {@code InnerJoin}.
   *
   * @return the join type, or empty when every regular join's inputs have unique keys
   */
  public Optional<String> joinWithoutUniqueKeys() {
    for (RelNode node : nodes) {
      if (node instanceof StreamPhysicalJoin join) {
        RelMetadataQuery mq = FlinkRelMetadataQuery.reuseOrCreate(join.getCluster().getMetadataQuery());
        for (RelNode input : join.getInputs()) {
          Set<ImmutableBitSet> keys = mq.getUniqueKeys(input);
          if (keys == null || keys.isEmpty()) {
            return Optional.of(joinTypeName(join));
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The first operation of the plan whose result depends on the order its input rows arrive in, applied to
   * rows that come from more than one input (a join's or a union's output): Flink delivers a join's or
   * union's inputs over separate channels, so their interleaving differs between runs, and a backfill, a tail
   * and a replay could give different rows. Order-dependent are: Top-N and deduplication ({@code ROW_NUMBER},
   * ties kept in arrival order), {@code OVER} aggregates, the aggregate functions {@code FIRST_VALUE},
   * {@code LAST_VALUE}, {@code LISTAGG}, {@code ARRAY_AGG}, {@code COLLECT}, {@code JSON_ARRAYAGG} and
   * {@code JSON_OBJECTAGG}, and sums, averages and variances of floating-point values (floating-point addition
   * is not associative: the last digits depend on the order), and event-time windows (a window table function,
   * window aggregate, rank, deduplication or join: each input's watermark comes over its own channel, so whether
   * an event is behind the watermark, and dropped, depends on the interleaving). Over one input (one stream's own
   * events, in ledger order, with that stream's own watermarks) every one of them is deterministic.
   *
   * @return what depends on the interleaving, e.g. {@code LAST_VALUE} or {@code SUM of DOUBLE}, or empty
   */
  public Optional<String> orderDependentOverMergedInputs() {
    for (RelNode node : nodes) {
      Optional<String> dependent = orderDependence(node);
      if (dependent.isPresent() && mergesInputs(node)) {
        return dependent;
      }
    }
    return Optional.empty();
  }

  /**
   * The first operation of the plan whose result depends on the order its input rows arrive in, wherever it is
   * (over one stream's events too), as {@link #orderDependentOverMergedInputs} lists them but for sums and averages of
   * floating-point values: a fold in another order than the ledger's (a training set cut by event time) gives such an
   * operation another meaning than the served view's ({@code LAST_VALUE}: the last by event time, not the last
   * appended), where a floating-point sum differs in its last digits only.
   *
   * @return what depends on the order, e.g. {@code LAST_VALUE}, or empty
   */
  public Optional<String> orderDependent() {
    for (RelNode node : nodes) {
      Optional<String> dependent = orderDependence(node, false);
      if (dependent.isPresent()) {
        return dependent;
      }
    }
    return Optional.empty();
  }

  private static Optional<String> orderDependence(RelNode node) {
    return orderDependence(node, true);
  }

  private static Optional<String> orderDependence(RelNode node, boolean floatingSums) {
    if (isEventTimeWindow(node)) {
      return Optional.of("an event-time window (TUMBLE, HOP, CUMULATE or SESSION: whether an event is behind the"
          + " watermark, and dropped, depends on how the inputs' rows and watermarks interleave)");
    }
    if (node instanceof Rank || node instanceof StreamPhysicalDeduplicate) {
      return Optional.of("ROW_NUMBER (Top-N or deduplication: rows with equal ORDER BY values are ranked in arrival"
          + " order)");
    }
    if (node instanceof StreamPhysicalOverAggregate) {
      return Optional.of("an OVER aggregate (it aggregates rows in arrival order)");
    }
    if (!(node instanceof StreamPhysicalGroupAggregateBase)) {
      return Optional.empty();
    }
    for (AggregateCall call : aggregateCalls(node)) {
      SqlKind kind = call.getAggregation().getKind();
      String name = call.getAggregation().getName().toUpperCase(java.util.Locale.ROOT);
      if (kind == SqlKind.FIRST_VALUE || kind == SqlKind.LAST_VALUE || kind == SqlKind.LISTAGG
          || kind == SqlKind.ARRAY_AGG || kind == SqlKind.COLLECT || kind == SqlKind.JSON_ARRAYAGG
          || kind == SqlKind.JSON_OBJECTAGG || ORDER_DEPENDENT_FUNCTIONS.contains(name)) {
        return Optional.of(name);
      }
      if (floatingSums && FLOATING_SUMS.contains(kind) && call.getArgList().stream().anyMatch(arg -> isFloatingPoint(
          node.getInput(0).getRowType().getFieldList().get(arg).getType()))) {
        return Optional.of(name + " of DOUBLE (floating-point addition depends on the order of the rows)");
      }
    }
    return Optional.empty();
  }

  /** Aggregate functions whose name, not their {@link SqlKind}, says they depend on the order (Flink's own). */
  private static final Set<String> ORDER_DEPENDENT_FUNCTIONS = Set.of("FIRST_VALUE", "LAST_VALUE", "LISTAGG",
      "ARRAY_AGG", "COLLECT", "JSON_ARRAYAGG", "JSON_OBJECTAGG", "JSON_ARRAYAGG_NULL_ON_NULL",
      "JSON_ARRAYAGG_ABSENT_ON_NULL", "JSON_OBJECTAGG_NULL_ON_NULL", "JSON_OBJECTAGG_ABSENT_ON_NULL");

  private static final Set<SqlKind> FLOATING_SUMS = Set.of(SqlKind.SUM, SqlKind.SUM0, SqlKind.AVG, SqlKind.STDDEV_POP,
      SqlKind.STDDEV_SAMP, SqlKind.VAR_POP, SqlKind.VAR_SAMP);

  private static boolean isFloatingPoint(RelDataType type) {
    return type.getSqlTypeName() == SqlTypeName.DOUBLE || type.getSqlTypeName() == SqlTypeName.FLOAT
        || type.getSqlTypeName() == SqlTypeName.REAL;
  }

  /**
   * The aggregate calls a physical aggregate node keeps (its Scala fields: {@code aggCalls}, or the partial and
   * final calls of an incremental aggregate), read by type so that every aggregate node type is covered.
   */
  private static List<AggregateCall> aggregateCalls(RelNode node) {
    List<AggregateCall> calls = new ArrayList<>();
    for (Class<?> c = node.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (java.lang.reflect.Field field : c.getDeclaredFields()) {
        if (java.lang.reflect.Modifier.isStatic(field.getModifiers())) {
          continue;
        }
        Object value;
        try {
          field.setAccessible(true);
          value = field.get(node);
        } catch (ReflectiveOperationException | RuntimeException inaccessible) {
          continue;
        }
        if (value instanceof scala.collection.Iterable<?> items) {
          scala.collection.Iterator<?> it = items.iterator();
          while (it.hasNext()) {
            if (it.next() instanceof AggregateCall call) {
              calls.add(call);
            }
          }
        } else if (value instanceof Iterable<?> items) {
          items.forEach(item -> {
            if (item instanceof AggregateCall call) {
              calls.add(call);
            }
          });
        }
      }
    }
    return calls;
  }

  /**
   * Whether the plan unions inputs ({@code UNION ALL}, or any operation of several inputs that is not a two-input
   * join): Flink delivers such inputs over several channels into one input of one task, in no defined order.
   *
   * @return true if some node merges inputs other than as a join's two sides
   */
  public boolean unions() {
    for (RelNode node : nodes) {
      if (node.getInputs().size() > 1 && !(node instanceof org.apache.calcite.rel.BiRel)) {
        return true;
      }
    }
    return false;
  }

  /** Whether rows of {@code node}'s output can come from more than one input: it or a node below it joins or unions. */
  static boolean mergesInputs(RelNode node) {
    if (node.getInputs().size() > 1) {
      return true;
    }
    for (RelNode input : node.getInputs()) {
      if (mergesInputs(input)) {
        return true;
      }
    }
    return false;
  }

  private static String joinTypeName(StreamPhysicalJoin join) {
    switch (join.getJoinType()) {
      case INNER: return "InnerJoin";
      case LEFT: return "LeftOuterJoin";
      case RIGHT: return "RightOuterJoin";
      case FULL: return "FullOuterJoin";
      case SEMI: return "LeftSemiJoin";
      case ANTI: return "LeftAntiJoin";
      default: return join.getJoinType().name();
    }
  }

  /**
   * For a plan of a write into a table with a primary key: whether Flink had to add an upsert
   * materializer to the sink, i.e. no unique key of the query's changelog is contained in the primary key.
   */
  public boolean sinkNeedsUpsertMaterialize() {
    return root instanceof StreamPhysicalSink sink && sink.upsertMaterialize();
  }
}
