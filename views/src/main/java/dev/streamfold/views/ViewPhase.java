package dev.streamfold.views;

/** The life cycle of a materialized view version. */
public enum ViewPhase {
  /** The job is being submitted; nothing applied yet. */
  STARTING,
  /** Reading history up to the backfill target (the latest message IDs when the job started). */
  BACKFILLING,
  /** Caught up with the backfill target; following new events as they are appended. */
  LIVE,
  /**
   * A virtual state's bounded replay reached its stop position and finished: the state is complete,
   * read-only and never changes again.
   */
  COMPLETE,
  /** The job failed; see the error in the metadata. */
  FAILED
}
