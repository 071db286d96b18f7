package dev.streamfold.transforms;

import dev.streamfold.views.ViewMetadata;
import java.util.Optional;

/**
 * The status of a transformation's materialized view.
 *
 * @param definition the transformation as served (or being built, before the first version is LIVE): an
 *     update's definition as soon as its job has swapped it in, the same version {@code VIEW.INFO} reports
 * @param building metadata of the version {@code definition}'s job fills (empty before its first commit)
 * @param servedVersion the version readers see, 0 when none is served yet
 * @param jobState Flink job state of {@code definition}'s job (e.g. RUNNING, RESTARTING, FAILED), or "NOT_RUNNING"
 * @param error failure cause, "" when none
 * @param update an update in progress: the next version, built beside the served one and swapped in
 *     atomically once LIVE; empty when none or once it is served
 * @param rolledBackTo the virtual state reads of the view return instead of its own state, or empty
 * @param stalled why the backfill of {@code definition}'s version looks stuck: its job runs but committed nothing
 *     for {@link TransformOptions#stallAfter} with events still to apply, and where those events are stored;
 *     "" when it makes progress (or is not backfilling)
 */
public record ViewStatus(TransformDefinition definition, Optional<ViewMetadata> building, int servedVersion,
    String jobState, String error, Optional<Update> update, Optional<String> rolledBackTo, String stalled) {

  /**
   * A transformation update being built.
   *
   * @param definition the new version's definition (its SQL, columns and version)
   * @param progress its metadata (phase, events applied, backfill target), empty before its first commit
   * @param jobState its Flink job state, or "NOT_RUNNING"
   * @param error its failure cause, "" when none; a failed update never disturbs the served version
   * @param stalled why its backfill looks stuck (as {@link ViewStatus#stalled}), "" when it makes progress
   */
  public record Update(TransformDefinition definition, Optional<ViewMetadata> progress, String jobState,
      String error, String stalled) {}
}
