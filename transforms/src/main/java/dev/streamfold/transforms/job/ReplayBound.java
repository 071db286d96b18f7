package dev.streamfold.transforms.job;

import dev.streamfold.ledger.MessageIdText;
import java.io.Serializable;

/**
 * The range of the ledger a replay applies, checked event by event in ledger order by the
 * {@link PositionTracker}: events before the start are skipped, and from the first event past the stop
 * nothing more is applied. The source's own cursors only bound how much is read; this check makes the
 * range exact at message level (batch index included) and for event-time cursors, whose events are not
 * ordered by event time.
 *
 * @param startId first message ID applied (inclusive) as text, or null to start at the earliest event
 * @param startTimeMs apply from the first event whose event time is at or after this (epoch ms), or
 *     {@link Long#MIN_VALUE}
 * @param stopId stop message ID text, or null
 * @param stopIdInclusive whether the event at {@code stopId} is applied
 * @param stopTimeMs stop at the first event later than this event time (epoch ms; at or later when
 *     {@code stopTimeInclusive} is false), or {@link Long#MAX_VALUE}
 * @param stopTimeInclusive whether events at exactly {@code stopTimeMs} are applied
 */
public record ReplayBound(String startId, long startTimeMs, String stopId, boolean stopIdInclusive, long stopTimeMs,
    boolean stopTimeInclusive) implements Serializable {

  /** True when the event lies before the start (it is skipped; the start has not been reached). */
  boolean beforeStart(SourceEvent event) {
    if (startId != null && MessageIdText.parse(event.messageId).compareTo(MessageIdText.parse(startId)) < 0) {
      return true;
    }
    return event.eventTimeMs < startTimeMs;
  }

  /** True when the event lies past the stop (it and every later event are not applied). */
  boolean pastStop(SourceEvent event) {
    if (stopId != null) {
      int c = MessageIdText.parse(event.messageId).compareTo(MessageIdText.parse(stopId));
      if (stopIdInclusive ? c > 0 : c >= 0) {
        return true;
      }
    }
    if (stopTimeMs != Long.MAX_VALUE) {
      return stopTimeInclusive ? event.eventTimeMs > stopTimeMs : event.eventTimeMs >= stopTimeMs;
    }
    return false;
  }
}
