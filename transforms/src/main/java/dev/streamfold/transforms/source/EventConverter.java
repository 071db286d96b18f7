package dev.streamfold.transforms.source;

import java.io.Serializable;

/**
 * What the {@link dev.streamfold.transforms.job.PositionTracker} turns each applied event into: a SQL row ({@link PayloadParser}) or
 * the event itself ({@link #EVENTS}, for Java transformations).
 *
 * @param <OUT> the record type handed downstream
 */
public interface EventConverter<OUT> extends Serializable {
  /** Hands the events on unchanged (Java transformations read them whole). */
  EventConverter<SourceEvent> EVENTS = (event, ledgerClock) -> event;

  /**
   * Convert one event.
   *
   * @param event the event (the job enables object reuse: do not keep it)
   * @param ledgerClock true in ledger-clock jobs (training sets), whose rows also carry the message ID
   * @return the record
   */
  OUT convert(SourceEvent event, boolean ledgerClock);
}
