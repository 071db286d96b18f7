package dev.streamfold.transforms.sql;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.AbstractRelNode;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlOperator;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.logical.LogicalWindow;
import org.apache.flink.table.planner.plan.logical.WindowingStrategy;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

/**
 * Finds what in a plan depends on when or where it runs rather than on the events: a call of a function
 * that is not deterministic (random values, UUIDs, the current watermark) or is dynamic (the wall clock:
 * {@code NOW()}, {@code CURRENT_TIMESTAMP}, ...), an aggregate function that is not deterministic, and
 * processing time (a column of the processing-time type, which {@code PROCTIME()} makes, or a window over
 * one).
 *
 * <p>The verdict is the planner's own ({@link SqlOperator#isDeterministic()},
 * {@link SqlOperator#isDynamicFunction()}), on the operators names resolved to, so aliases, quoting,
 * case, catalog-qualified names, views, subqueries and CTEs cannot hide a call. Each node's expressions
 * are found by reading all of its fields (Flink's physical nodes keep them in node-specific fields:
 * Calc programs, join conditions, aggregate calls, Top-N ranges, MATCH_RECOGNIZE definitions, the
 * table-function scans of a correlate), so a node type this class does not know is still searched.
 */
final class NonDeterminism {
  /** How deep into a node's own helper objects (not its inputs) fields are followed. */
  private static final int MAX_DEPTH = 6;

  private final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
  private String found;

  private NonDeterminism() {}

  /**
   * Search a plan.
   *
   * @param plan the optimized plan
   * @return what makes the plan not deterministic, as the function's name (e.g. {@code RAND},
   *     {@code PROCTIME}), or empty
   */
  static Optional<String> find(OptimizedPlan plan) {
    NonDeterminism search = new NonDeterminism();
    for (RelNode node : plan.nodes()) {
      search.node(node);
      if (search.found != null) {
        return Optional.of(search.found);
      }
    }
    return Optional.empty();
  }

  private void node(RelNode node) {
    if (found != null || !seen.add(node)) {
      return;
    }
    for (RelDataTypeField field : node.getRowType().getFieldList()) {
      if (FlinkTypeFactory.isProctimeIndicatorType(field.getType())) {
        found = "PROCTIME";
        return;
      }
    }
    fields(node, 0);
    for (RelNode input : node.getInputs()) {
      node(input);
    }
  }

  /** Every instance field of {@code object}, up to (not including) Calcite's base node class. */
  private void fields(Object object, int depth) {
    for (Class<?> c = object.getClass(); c != null && c != AbstractRelNode.class && c != Object.class;
        c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers()) || field.getType().isPrimitive()) {
          continue;
        }
        Object value;
        try {
          field.setAccessible(true);
          value = field.get(object);
        } catch (ReflectiveOperationException | RuntimeException inaccessible) {
          continue;
        }
        value(value, depth);
        if (found != null) {
          return;
        }
      }
    }
  }

  private void value(Object value, int depth) {
    if (value == null || found != null || depth > MAX_DEPTH) {
      return;
    }
    if (value instanceof RelNode node) {
      node(node); // e.g. the table-function scan a correlate keeps beside its input
    } else if (value instanceof RexNode rex) {
      rex(rex);
    } else if (value instanceof RexProgram program) {
      program.getExprList().forEach(this::rex);
    } else if (value instanceof AggregateCall call) {
      operator(call.getAggregation());
    } else if (value instanceof SqlOperator operator) {
      operator(operator);
    } else if (value instanceof WindowingStrategy windowing) {
      if (windowing.isProctime()) {
        found = "PROCTIME"; // a window table function over processing time
      }
    } else if (value instanceof LogicalWindow window) {
      if (LogicalTypeChecks.isProctimeAttribute(window.timeAttribute().getOutputDataType().getLogicalType())) {
        found = "PROCTIME"; // a group window (GROUP BY TUMBLE(...)) over processing time
      }
    } else if (value instanceof Iterable<?> items) {
      if (seen.add(value)) {
        for (Object item : items) {
          value(item, depth + 1);
        }
      }
    } else if (value instanceof Map<?, ?> map) {
      if (seen.add(value)) {
        for (Object item : map.values()) {
          value(item, depth + 1);
        }
      }
    } else if (value instanceof scala.collection.Iterable<?> items) {
      if (seen.add(value)) {
        scala.collection.Iterator<?> it = items.iterator();
        while (it.hasNext()) {
          value(it.next(), depth + 1);
        }
      }
    } else if (value instanceof Object[] items) {
      for (Object item : items) {
        value(item, depth + 1);
      }
    } else if (isPlannerObject(value) && seen.add(value)) {
      fields(value, depth + 1);
    }
  }

  /** Objects of the planner's own whose fields may hold expressions (not types, tables or the cluster). */
  private static boolean isPlannerObject(Object value) {
    if (value instanceof RelDataType || value instanceof RelOptCluster || value instanceof RelTraitSet
        || value instanceof RelOptTable || value instanceof Enum<?>) {
      return false;
    }
    String name = value.getClass().getName();
    return name.startsWith("org.apache.flink.table.planner.") || name.startsWith("org.apache.calcite.rel.")
        || name.startsWith("org.apache.calcite.rex.");
  }

  private void rex(RexNode rex) {
    if (found != null) {
      return;
    }
    rex.accept(new RexVisitorImpl<Void>(true) {
      @Override
      public Void visitCall(RexCall call) {
        if (!isDeterministicGivenItsOperands(call)) {
          operator(call.getOperator());
        }
        return found == null ? super.visitCall(call) : null;
      }

      @Override
      public Void visitSubQuery(RexSubQuery subQuery) {
        node(subQuery.rel);
        return super.visitSubQuery(subQuery);
      }
    });
  }

  /**
   * Calls Flink declares not deterministic as a function, that are deterministic with the operands given:
   * {@code UNIX_TIMESTAMP(string[, format])} converts its operand in the session time zone, which Streamfold
   * fixes to UTC; only {@code UNIX_TIMESTAMP()} reads the clock.
   */
  private static boolean isDeterministicGivenItsOperands(RexCall call) {
    return call.getOperator().getName().equalsIgnoreCase("UNIX_TIMESTAMP") && !call.getOperands().isEmpty();
  }

  private void operator(SqlOperator operator) {
    if (found == null && (!operator.isDeterministic() || operator.isDynamicFunction())) {
      found = operator.getName();
    }
  }
}
