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
 */
public record TrainingSetSpec(String tenant, String name, String labelStream, String entity, String label, String where,
    List<FeatureSpec> features, ReplayCursor to, String output, String command) {

  public TrainingSetSpec {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(labelStream, "labelStream");
    where = where == null ? "" : where.trim();
    features = features == null ? List.of() : List.copyOf(features);
    to = to == null ? ReplayCursor.latest() : to;
    command = command == null ? "" : command;
  }
}
