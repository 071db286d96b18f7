package dev.streamfold.transforms;

import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.VirtualState;
import java.util.Optional;

/**
 * A virtual state and its progress.
 *
 * @param state what it is: source view, transformation version, start and stop cursors
 * @param progress its phase (STARTING, BACKFILLING while the replay runs, COMPLETE, FAILED), position
 *     (the last applied message ID: the exact position the state reflects), events applied, the events
 *     the replay expects to apply ({@code backfillTargetEvents}; an upper bound for event-time stops),
 *     and rows; empty before the replay's first commit
 * @param rolledBackViews views whose reads this state serves now (rollback)
 * @param stalled why the replay looks stuck: its job runs but committed nothing for
 *     {@link TransformOptions#stallAfter} with events still to apply, and where those events are stored; ""
 *     when it makes progress (or is not running)
 */
public record VirtualStateStatus(VirtualState state, Optional<ViewMetadata> progress,
    java.util.List<String> rolledBackViews, String stalled) {}
