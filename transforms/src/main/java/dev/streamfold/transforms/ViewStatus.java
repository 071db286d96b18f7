package dev.streamfold.transforms;

import dev.streamfold.views.ViewMetadata;
import java.util.Optional;

/**
 * The status of a transformation's materialized view.
 *
 * @param definition the transformation
 * @param building metadata of the version the current job fills (empty before its first commit)
 * @param servedVersion the version readers see, 0 when none is served yet
 * @param jobState Flink job state (e.g. RUNNING, RESTARTING, FAILED), or "NOT_RUNNING"
 * @param error failure cause, "" when none
 */
public record ViewStatus(TransformDefinition definition, Optional<ViewMetadata> building, int servedVersion,
    String jobState, String error) {}
