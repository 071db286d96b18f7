package dev.streamfold.transforms.training;

import dev.streamfold.transforms.ReplayCursor;
import java.util.List;
import java.util.Objects;

/**
 * A training set to build: one row per label event of {@code labelStream} (events for which
 * {@code where} holds), with the label, the entity and each feature as its view held it just before that
 * event in ledger order.
 *
 * @param tenant tenant name
 * @param name the training set's name (letters, digits, '_' and '-')
 * @param labelStream the stream whose events are the labels
 * @param entity SQL expression over the label stream: the entity key (e.g. {@code origin})
 * @param label SQL expression over the label stream: the label (e.g. {@code delay >= 15})
 * @param where SQL boolean expression selecting label events, or "" for every event
 * @param features the features, in output order
 * @param to the last event considered (a stop cursor; {@link ReplayCursor#latest()} for the latest event
 *     when the build starts); record it in the manifest to rebuild the same set
 * @param output the output file; its extension chooses the format ({@link TrainingSetFormat}); a relative
 *     path is resolved against the server's data directory {@code training-sets/}
 * @param command the command line or request that asked for it, recorded in the manifest
 * @param labelsFile labels from a file instead of a stream ({@code labelStream} and {@code label} then "", {@code
 *     entity} an expression over the file's columns), cut by event time; null for labels from {@code labelStream}
 */
public record TrainingSetSpec(String tenant, String name, String labelStream, String entity, String label, String where,
    List<FeatureSpec> features, ReplayCursor to, String output, String command, FileLabels labelsFile) {

  public TrainingSetSpec {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(name, "name");
    labelStream = labelStream == null ? "" : labelStream;
    where = where == null ? "" : where.trim();
    features = features == null ? List.of() : List.copyOf(features);
    to = to == null ? ReplayCursor.latest() : to;
    command = command == null ? "" : command;
  }

  /** A training set whose labels are the events of {@code labelStream} (see the canonical constructor). */
  public TrainingSetSpec(String tenant, String name, String labelStream, String entity, String label, String where,
      List<FeatureSpec> features, ReplayCursor to, String output, String command) {
    this(tenant, name, labelStream, entity, label, where, features, to, output, command, null);
  }

  /**
   * Labels from a file (Feast's entity dataframe): one output row per row of the file, its columns kept, each feature
   * cut by event time at the row's time.
   *
   * @param path the CSV, JSON Lines or Parquet file, on the server ({@link LabelsFile})
   * @param timeColumn the column holding each row's time
   * @param knownAt also leave out events the ledger acknowledged after the row's time (a bitemporal cut)
   * @param confinedTo the tenant whose directory {@code training-sets/<tenant>/} the file must be in (a tenant token's
   *     request), or null for any path (the admin token)
   */
  public record FileLabels(String path, String timeColumn, boolean knownAt, String confinedTo) {
    public FileLabels {
      Objects.requireNonNull(path, "path");
      timeColumn = timeColumn == null ? "" : timeColumn.trim();
    }

    /** Labels from any path the server can read (the admin token's request). */
    public FileLabels(String path, String timeColumn, boolean knownAt) {
      this(path, timeColumn, knownAt, null);
    }
  }

  /** True when the labels come from a file ({@link #labelsFile}). */
  public boolean fromFile() {
    return labelsFile != null;
  }
}
