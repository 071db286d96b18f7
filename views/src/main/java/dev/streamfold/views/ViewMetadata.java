package dev.streamfold.views;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.PositionVector;
import java.util.Map;

/**
 * Metadata of one version of a materialized view, as stored beside its rows.
 *
 * @param version view version (1, 2, ...)
 * @param phase life-cycle phase
 * @param eventsApplied events folded into this version so far
 * @param backfillTargetEvents events in the stream when the job started (the backfill target)
 * @param backfillTarget the latest message ID of every partition holding events when the job started (stored
 *     as {@code backfill_target_message_id}); empty when the stream was empty
 * @param position last applied message ID per partition (empty when nothing applied)
 * @param rows rows currently in this version
 * @param updatedAtMs time of the last commit, epoch milliseconds (0 when none)
 * @param error failure cause when {@code phase} is FAILED, else ""
 * @param eventsBehindWatermark events read with an event time below the watermark at that moment
 *     (event-time views: an upper bound on the events a closed window did not count; 0 otherwise)
 * @param clockPosition for a view over several streams (positioned by the tenant clock): the last tick committed
 *     and its vectors of the streams read (stored as {@code clock_position}); {@link ClockPosition#NONE} for a view
 *     over one stream, whose {@code position} is a message-ID vector
 * @param backfillTargetClock for a view over several streams: the clock's last tick when the job started, with its
 *     vectors of the streams read (stored as {@code backfill_target_clock}); {@link ClockPosition#NONE} otherwise
 */
public record ViewMetadata(int version, ViewPhase phase, long eventsApplied, long backfillTargetEvents,
    PositionVector backfillTarget, PositionVector position, long rows, long updatedAtMs, String error,
    long eventsBehindWatermark, ClockPosition clockPosition, ClockPosition backfillTargetClock) {

  /** Metadata of a view over one stream. */
  public ViewMetadata(int version, ViewPhase phase, long eventsApplied, long backfillTargetEvents,
      PositionVector backfillTarget, PositionVector position, long rows, long updatedAtMs, String error,
      long eventsBehindWatermark) {
    this(version, phase, eventsApplied, backfillTargetEvents, backfillTarget, position, rows, updatedAtMs,
        error, eventsBehindWatermark, ClockPosition.NONE, ClockPosition.NONE);
  }

  /** Whether the view reads several streams, positioned by the tenant clock. */
  public boolean clocked() {
    return !clockPosition.isNone() || !backfillTargetClock.isNone();
  }

  /** Metadata of a view without event time. */
  public ViewMetadata(int version, ViewPhase phase, long eventsApplied, long backfillTargetEvents,
      PositionVector backfillTarget, PositionVector position, long rows, long updatedAtMs, String error) {
    this(version, phase, eventsApplied, backfillTargetEvents, backfillTarget, position, rows, updatedAtMs,
        error, 0);
  }

  static ViewMetadata fromHash(int version, Map<String, String> hash, long rows) {
    return new ViewMetadata(version,
        ViewPhase.valueOf(hash.getOrDefault("phase", ViewPhase.STARTING.name())),
        Long.parseLong(hash.getOrDefault("events_applied", "0")),
        Long.parseLong(hash.getOrDefault("backfill_target_events", "0")),
        PositionVector.parse(hash.getOrDefault("backfill_target_message_id", "")),
        PositionVector.parse(hash.getOrDefault("position", "")),
        rows,
        Long.parseLong(hash.getOrDefault("updated_at_ms", "0")),
        hash.getOrDefault("error", ""),
        Long.parseLong(hash.getOrDefault("events_behind_watermark", "0")),
        ClockPosition.parse(hash.getOrDefault("clock_position", "")),
        ClockPosition.parse(hash.getOrDefault("backfill_target_clock", "")));
  }
}
