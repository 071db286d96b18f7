package dev.streamfold.transforms.training;

import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.sql.SqlPlanner;
import java.util.List;

/**
 * The rules a feature must meet to be cut by event time (labels from a file, or {@code --cut event-time}): its view folds to the same rows in
 * event-time order as the served view does in ledger order, and the file's join value can name its row keys.
 */
final class EventTimeFeatures {
  private static final List<String> INTEGERS = List.of("INT", "BIGINT", "SMALLINT", "TINYINT");

  private EventTimeFeatures() {}

  /**
   * Check that a feature view can be folded by event time: a Java transformation (whose result may depend on the
   * order it folds events in) and SQL whose result depends on the order of its rows are refused, since by event time
   * they would compute something else than the served view does (which folds in ledger order).
   *
   * @param feature the feature
   * @param view its view
   * @param planned the view's SQL planned, or null for a Java transformation
   * @param fromFile whether the labels come from a file (the message names what cuts by event time)
   * @throws TransformException.InvalidTrainingSet naming the feature, the operation and why
   */
  static void checkFold(FeatureSpec feature, TransformDefinition view, SqlPlanner.PlannedQuery planned,
      boolean fromFile) {
    String cuts = fromFile ? "a labels file cuts features by event time" : "--cut event-time cuts features by event time";
    if (view.isFold()) {
      throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": view '" + view.name()
          + "' is a Java transformation, which folds events in ledger order; " + cuts + ", folding events in"
          + " event-time order, in which a fold may compute something else than the served view; use a view defined"
          + " in SQL");
    }
    if (planned.orderDependent().isPresent()) {
      throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": view '" + view.name()
          + "' uses " + planned.orderDependent().get() + ", whose result depends on the order events are folded in:"
          + " the served view folds them in ledger order, " + cuts + " and folds them in event-time order, so the"
          + " feature would differ from what is served; use an order-independent aggregate (COUNT, SUM, AVG, MIN, MAX)"
          + (fromFile ? " or labels from a stream (--label-stream, cut as served)" : " or --cut as-served"));
    }
  }

  /**
   * Check that a feature's join value, of {@code joinType} in the labels file, can name the row keys of its view (keyed
   * by one column): equal types, or two integer types.
   *
   * @param feature the feature
   * @param view its view
   * @param join the join expression
   * @param joinType its SQL type over the file's columns
   * @param file the labels file
   * @throws TransformException.InvalidTrainingSet naming the feature, both types and the cast that fixes it
   */
  static void checkJoinType(FeatureSpec feature, TransformDefinition view, String join, String joinType,
      LabelsFile file) {
    String keyType = view.columns().get(view.keyColumns().get(0));
    if (joinType.equals(keyType) || INTEGERS.contains(joinType) && INTEGERS.contains(keyType)) {
      return;
    }
    boolean text = keyType.equals("STRING");
    throw new TransformException.InvalidTrainingSet("feature " + feature.describe() + ": its join value " + join
        + " is " + joinType + " in labels file " + file.path() + ", but view '" + view.name() + "' is keyed by "
        + view.keyColumns().get(0) + " " + keyType + "; give a join of that type (@" + (text ? "CAST" : "TRY_CAST")
        + "(... AS " + keyType + ")" + (text ? "" : ": a value that is no " + keyType + " then joins nothing")
        + ") or a column that holds it");
  }
}
