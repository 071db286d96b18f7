package dev.streamfold.views;

import java.util.List;
import java.util.Map;

/**
 * Metadata of one version of a materialized view, as stored beside its rows.
 *
 * @param version view version (1, 2, ...)
 * @param phase life-cycle phase
 * @param eventsApplied events folded into this version so far
 * @param backfillTargetEvents events in the stream when the job started (the backfill target)
 * @param backfillTargetMessageId message ID text of the latest event when the job started, "" when
 *     the stream was empty
 * @param position last applied message ID text per partition (empty list when nothing applied)
 * @param rows rows currently in this version
 * @param updatedAtMs time of the last commit, epoch milliseconds (0 when none)
 * @param error failure cause when {@code phase} is FAILED, else ""
 * @param eventsBehindWatermark events read with an event time below the watermark at that moment
 *     (event-time views: an upper bound on the events a closed window did not count; 0 otherwise)
 */
public record ViewMetadata(int version, ViewPhase phase, long eventsApplied, long backfillTargetEvents,
    String backfillTargetMessageId, List<String> position, long rows, long updatedAtMs, String error,
    long eventsBehindWatermark) {

  /** Metadata of a view without event time. */
  public ViewMetadata(int version, ViewPhase phase, long eventsApplied, long backfillTargetEvents,
      String backfillTargetMessageId, List<String> position, long rows, long updatedAtMs, String error) {
    this(version, phase, eventsApplied, backfillTargetEvents, backfillTargetMessageId, position, rows, updatedAtMs,
        error, 0);
  }

  static ViewMetadata fromHash(int version, Map<String, String> hash, long rows) {
    String pos = hash.getOrDefault("position", "");
    return new ViewMetadata(version,
        ViewPhase.valueOf(hash.getOrDefault("phase", ViewPhase.STARTING.name())),
        Long.parseLong(hash.getOrDefault("events_applied", "0")),
        Long.parseLong(hash.getOrDefault("backfill_target_events", "0")),
        hash.getOrDefault("backfill_target_message_id", ""),
        pos.isEmpty() ? List.of() : List.of(pos.split(",")),
        rows,
        Long.parseLong(hash.getOrDefault("updated_at_ms", "0")),
        hash.getOrDefault("error", ""),
        Long.parseLong(hash.getOrDefault("events_behind_watermark", "0")));
  }
}
