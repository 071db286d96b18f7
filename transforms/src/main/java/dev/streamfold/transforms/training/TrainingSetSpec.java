package dev.streamfold.transforms.training;

import dev.streamfold.transforms.ReplayCursor;
import java.util.List;
import java.util.Objects;

/**
 * A training set to build: one row per label event of {@code labelStream} (events for which
 * {@code where} holds), with the label, the entity and each feature as its view held it just before that
 * event (the {@link Cut cut rule} says in which order), or one row per row of a labels file.
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
 * @param cut the cut rule; null for the default: {@link Cut#AS_SERVED} for labels from a stream, {@link Cut#EVENT_TIME}
 *     for labels from a file
 */
public record TrainingSetSpec(String tenant, String name, String labelStream, String entity, String label, String where,
    List<FeatureSpec> features, ReplayCursor to, String output, String command, FileLabels labelsFile, Cut cut) {

  public TrainingSetSpec {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(name, "name");
    labelStream = labelStream == null ? "" : labelStream;
    where = where == null ? "" : where.trim();
    features = features == null ? List.of() : List.copyOf(features);
    to = to == null ? ReplayCursor.latest() : to;
    command = command == null ? "" : command;
    cut = cut != null ? cut : labelsFile != null ? Cut.EVENT_TIME : Cut.AS_SERVED;
  }

  /** A training set whose labels are the events of {@code labelStream}, cut as served (see the canonical constructor). */
  public TrainingSetSpec(String tenant, String name, String labelStream, String entity, String label, String where,
      List<FeatureSpec> features, ReplayCursor to, String output, String command) {
    this(tenant, name, labelStream, entity, label, where, features, to, output, command, null, null);
  }

  /**
   * Where each feature is cut for a label (docs/training-sets.md: "Which cut rule?").
   */
  public enum Cut {
    /**
     * Labels from a stream: a feature from a view over the label stream alone as its view held it just before the
     * label event in ledger order; any other as its view held it at the end of the tenant clock's last tick before
     * the label event's.
     */
    AS_SERVED("as-served"),
    /**
     * Every feature the fold of the events before the label in event-time order: events of an earlier event time, and
     * of the same one those the tenant clock ordered first; a labels file's row comes after every event of its time
     * (Feast's rule, inclusive), a label event after the events before it.
     */
    EVENT_TIME("event-time"),
    /**
     * {@link #EVENT_TIME}, each event counted at the later of its event time and the time the ledger acknowledged it:
     * what was known at the label's time, not only what had happened (a bitemporal cut).
     */
    EVENT_TIME_KNOWN_AT("event-time known-at");

    private final String text;

    Cut(String text) {
      this.text = text;
    }

    /** True when the features are cut by event time. */
    public boolean byEventTime() {
      return this != AS_SERVED;
    }

    /** True when events also count from their acknowledgement time on. */
    public boolean knownAt() {
      return this == EVENT_TIME_KNOWN_AT;
    }

    /** The rule as the manifest and the plan name it: {@code as-served}, {@code event-time}, {@code event-time known-at}. */
    public String text() {
      return text;
    }

    /**
     * The rule named by a request.
     *
     * @param rule {@code as-served} or {@code event-time}, or "" (null) for the default
     * @param knownAt the known-at option
     * @return the rule, or null for the default of the label source (with {@code knownAt}: event time, known at)
     * @throws IllegalArgumentException for another name, or known-at with {@code as-served}
     */
    public static Cut parse(String rule, boolean knownAt) {
      String r = rule == null ? "" : rule.trim();
      if (!r.isEmpty() && !r.equals("as-served") && !r.equals("event-time")) {
        throw new IllegalArgumentException("unknown cut rule '" + r + "': as-served or event-time");
      }
      if (knownAt && r.equals("as-served")) {
        throw new IllegalArgumentException("known-at cuts by event time: it goes with the cut rule event-time, not"
            + " as-served");
      }
      return knownAt ? EVENT_TIME_KNOWN_AT : r.equals("event-time") ? EVENT_TIME : r.isEmpty() ? null : AS_SERVED;
    }
  }

  /**
   * Labels from a file (Feast's entity dataframe): one output row per row of the file, its columns kept, each feature
   * cut by event time at the row's time.
   *
   * @param path the CSV, JSON Lines or Parquet file, on the server ({@link LabelsFile})
   * @param timeColumn the column holding each row's time
   * @param confinedTo the tenant whose directory {@code training-sets/<tenant>/} the file must be in (a tenant token's
   *     request), or null for any path (the admin token)
   */
  public record FileLabels(String path, String timeColumn, String confinedTo) {
    public FileLabels {
      Objects.requireNonNull(path, "path");
      timeColumn = timeColumn == null ? "" : timeColumn.trim();
    }

    /** Labels from any path the server can read (the admin token's request). */
    public FileLabels(String path, String timeColumn) {
      this(path, timeColumn, null);
    }
  }

  /** True when the labels come from a file ({@link #labelsFile}). */
  public boolean fromFile() {
    return labelsFile != null;
  }
}
