package dev.streamfold.transforms.training;

import java.io.Serializable;
import java.util.List;

/**
 * Everything the point-in-time join needs at run time, validated before the job starts.
 *
 * <p>The event projection (input 1) has the columns, in order: the output's leading columns (every output column
 * before the features: {@code message_id, event_time, entity, label} for labels from a stream, the file's columns for
 * labels from a file), then {@code _is_label} whether the record is a label, {@code _event_time} its event time (the
 * label's time), {@code _message_id} its message ID text (null for a label from a file), then the distinct join keys
 * as text.
 *
 * @param features the requested features, in output order
 * @param featureViews the distinct feature views, in input order (input {@code 2 + i} is view {@code i})
 * @param featureViewOfFeature per feature: index into {@code featureViews}
 * @param joinOfFeature per feature: index of its join key among the projection's join keys
 * @param columnOfFeature per feature: index of its column in its view's SQL result
 * @param featureKeyIndexes per feature view: indexes of its key columns in its SQL result
 * @param columns the output columns
 * @param format the output format
 * @param outputFile absolute path of the output file
 * @param progressFile absolute path of the progress file
 * @param clock how the job orders the streams it reads, and where each feature view is cut
 */
public record TrainingSetPlan(List<FeatureSpec> features, List<String> featureViews, int[] featureViewOfFeature,
    int[] joinOfFeature, int[] columnOfFeature, List<int[]> featureKeyIndexes, TrainingSetColumns columns,
    TrainingSetFormat format, String outputFile, String progressFile, Clocking clock) implements Serializable {
  /**
   * The clock of a training set's job.
   *
   * @param ticks true when the job reads its streams in the tenant clock's order ({@link ClockOrdinals}): its last
   *     input then carries one record per end of tick (the tick's number), after every record the tick caused
   * @param tickViews per feature view: true when the view is cut at the last tick before each label event (a view
   *     that reads another stream than the label stream, or several); false when it is cut just before the label
   *     event in the label stream's ledger order
   * @param gate the {@link dev.streamfold.transforms.source.TickGate} to say each completed tick to, or null
   */
  public record Clocking(boolean ticks, boolean[] tickViews, String gate) implements Serializable {
    /** The one-stream ledger clock: every view cut just before the label event. */
    static Clocking ledgerOrder(int views) {
      return new Clocking(false, new boolean[views], null);
    }
  }

  /** The number of output columns before the features: the event projection's first columns. */
  int leading() {
    return columns.size() - features.size();
  }

  /** The event projection's column saying whether the record is a label. */
  int isLabel() {
    return leading();
  }

  /** The event projection's event time column. */
  int eventTime() {
    return leading() + 1;
  }

  /** The event projection's message ID column. */
  int messageId() {
    return leading() + 2;
  }

  /** The event projection's first join key column. */
  int joins() {
    return leading() + 3;
  }

  int featureView(int feature) {
    return featureViewOfFeature[feature];
  }

  int joinIndex(int feature) {
    return joinOfFeature[feature];
  }

  int featureColumnIndex(int feature) {
    return columnOfFeature[feature];
  }
}
