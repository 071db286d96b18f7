package dev.streamfold.transforms.training;

import java.util.List;

/**
 * What a training set build would read and write ({@link TrainingSetManager#explain}): its plan, resolved when it
 * was asked for, before anything runs.
 *
 * @param name the training set's name
 * @param labelStream the stream whose events are the labels
 * @param partitions the label stream's partitions (0: unpartitioned)
 * @param stop the stop cursor as given ({@code "to latest"}, {@code "to 12:40:-1:-1"}, {@code "before 2015-..."})
 * @param readThrough the last message ID read, per partition, joined by ',' ("" for an empty stream): for a
 *     message-ID or latest stop, the build's stop, with which it can be rebuilt
 * @param targetEvents the label stream's events the build reads
 * @param targetEventsExact whether {@code targetEvents} is exact (a message-ID or latest stop on an unpartitioned
 *     stream) or an upper bound
 * @param where the condition selecting label events ("" for every event)
 * @param output the output file's absolute path on the server
 * @param format parquet, csv or jsonl
 * @param manifest the manifest's absolute path on the server
 * @param columns the output's column names, in order
 * @param types each column's SQL type
 * @param features each feature: its column, view, version, the streams its view reads, join, time-to-live and cut
 * @param tick the last tick of the tenant clock read when a feature is cut at ticks or by event time, else -1
 * @param labelsFile labels from a file: its absolute path on the server, else ""
 * @param labelRows the labels file's rows (0 for labels from a stream)
 * @param timeColumn the labels file's time column ("" for labels from a stream)
 * @param cutRule {@code as-served}, {@code event-time} or {@code event-time known-at}
 */
public record TrainingSetExplanation(String name, String labelStream, int partitions, String stop, String readThrough,
    long targetEvents, boolean targetEventsExact, String where, String output, String format, String manifest,
    List<String> columns, List<String> types, List<Feature> features, long tick, String labelsFile, long labelRows,
    String timeColumn, String cutRule) {

  public TrainingSetExplanation {
    columns = List.copyOf(columns);
    types = List.copyOf(types);
    features = List.copyOf(features);
  }

  /**
   * One feature of the plan.
   *
   * @param name its output column
   * @param view the view it reads
   * @param viewVersion the view's served version (the one the build reads)
   * @param logic "sql" or "java"
   * @param streams the streams the view reads
   * @param column the view's column
   * @param type its SQL type
   * @param join the SQL expression over the label stream giving the view's row key
   * @param ttlMs its time-to-live in ms of event time, -1 for none
   * @param cut {@code event}: just before the label event in the label stream's ledger order (a view over the label
   *     stream alone); {@code tick}: at the last tick of the tenant clock before the label event (any other view);
   *     {@code event-time}: the fold of the events before the label in event-time order (labels from a file, or
   *     {@code --cut event-time})
   */
  public record Feature(String name, String view, int viewVersion, String logic, List<String> streams, String column,
      String type, String join, long ttlMs, String cut) {

    public Feature {
      streams = List.copyOf(streams);
    }
  }
}
