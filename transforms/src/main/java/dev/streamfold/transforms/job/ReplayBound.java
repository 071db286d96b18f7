package dev.streamfold.transforms.job;

import dev.streamfold.core.MessageId;
import dev.streamfold.transforms.source.SourceEvent;
import java.io.Serializable;
import java.util.Map;

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
 * @param stopId stop message ID text, or null; for a partitioned stream a position vector (message IDs
 *     joined by ','): each listed partition stops at its own message ID, and no event of an unlisted
 *     partition is applied
 * @param stopIdInclusive whether the event at {@code stopId} is applied
 * @param stopTimeMs stop at the first event later than this event time (epoch ms; at or later when
 *     {@code stopTimeInclusive} is false), or {@link Long#MAX_VALUE}
 * @param stopTimeInclusive whether events at exactly {@code stopTimeMs} are applied
 */
public record ReplayBound(String startId, long startTimeMs, String stopId, boolean stopIdInclusive, long stopTimeMs,
    boolean stopTimeInclusive) implements Serializable {

  /** {@link #beforeStart(SourceEvent, MessageId)}, parsing the start on each call (tests). */
  boolean beforeStart(SourceEvent event) {
    return beforeStart(event, start());
  }

  /**
   * True when the event lies before the start (it is skipped; the start has not been reached).
   *
   * @param event the event
   * @param start {@link #start()}
   */
  boolean beforeStart(SourceEvent event, MessageId start) {
    if (start != null && event.position().compareTo(start) < 0) {
      return true;
    }
    return event.eventTimeMs < startTimeMs;
  }

  /**
   * The start message ID, parsed once per task.
   *
   * @return the start, or null when there is no message-ID start
   */
  MessageId start() {
    return startId == null ? null : MessageId.parse(startId);
  }

  /**
   * The stop message ID of each partition, parsed once per task.
   *
   * @return partition to stop message ID; empty when there is no message-ID stop
   */
  Map<Integer, MessageId> stops() {
    Map<Integer, MessageId> stops = new java.util.HashMap<>();
    if (stopId != null) {
      for (String id : stopId.split(",")) {
        MessageId parsed = MessageId.parse(id);
        stops.put(parsed.partition(), parsed);
      }
    }
    return stops;
  }

  /** {@link #pastStop(SourceEvent, Map)}, parsing the stops on each call (tests). */
  boolean pastStop(SourceEvent event) {
    return pastStop(event, stops());
  }

  /**
   * True when the event lies past the stop of its partition (it and every later event of the partition are
   * not applied).
   *
   * @param event the event
   * @param stops {@link #stops()}
   */
  boolean pastStop(SourceEvent event, Map<Integer, MessageId> stops) {
    if (stopId != null) {
      MessageId id = event.position();
      MessageId stop = stops.get(id.partition());
      if (stop == null) {
        return true;
      }
      int c = id.compareTo(stop);
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
