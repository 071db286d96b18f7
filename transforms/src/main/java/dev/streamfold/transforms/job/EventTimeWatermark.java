package dev.streamfold.transforms.job;

/**
 * The event-time watermark of one stream read in one order (its ledger order, or the tenant clock's), the rule
 * every view's event-time windows close on: after each event whose event time raises the largest seen, the
 * watermark becomes that largest event time less the stream's watermark delay, if that is higher than before;
 * never by wall-clock time. Used by {@link PositionTracker} (a view over one stream) and {@link StreamRows} (each
 * stream of a view read in the clock's order), so both close windows at the same events. Not thread-safe: one
 * operator's.
 */
final class EventTimeWatermark {
  /** No watermark to emit: {@link #advance} returns it when the watermark did not rise. */
  static final long NONE = Long.MIN_VALUE;

  private final long delayMs;
  private long maxEventTimeMs;
  private long watermarkMs;

  /**
   * @param delayMs the stream's bounded out-of-orderness, ms (>= 0)
   * @param maxEventTimeMs the largest event time seen (restored), or {@link Long#MIN_VALUE} for none
   * @param watermarkMs the watermark emitted last (restored), or {@link Long#MIN_VALUE} for none
   */
  EventTimeWatermark(long delayMs, long maxEventTimeMs, long watermarkMs) {
    this.delayMs = delayMs;
    this.maxEventTimeMs = maxEventTimeMs;
    this.watermarkMs = watermarkMs;
  }

  /** Whether an event time is below the watermark (the event is late: a window it belongs to may have closed). */
  boolean behind(long eventTimeMs) {
    return eventTimeMs < watermarkMs;
  }

  /**
   * Take the next event's time.
   *
   * @return the watermark to emit after the event, or {@link #NONE} when it did not rise
   */
  long advance(long eventTimeMs) {
    if (eventTimeMs <= maxEventTimeMs) {
      return NONE;
    }
    maxEventTimeMs = eventTimeMs;
    long next = maxEventTimeMs - delayMs;
    if (next <= watermarkMs) {
      return NONE;
    }
    watermarkMs = next;
    return next;
  }

  /** The largest event time seen, for the operator's checkpointed state. */
  long maxEventTimeMs() {
    return maxEventTimeMs;
  }

  /** The watermark emitted last, for the operator's checkpointed state. */
  long watermarkMs() {
    return watermarkMs;
  }
}
