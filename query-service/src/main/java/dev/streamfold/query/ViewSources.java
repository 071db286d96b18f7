package dev.streamfold.query;

import dev.streamfold.core.MessageId;
import dev.streamfold.views.ViewName;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What only the server knows of a view's source streams (the query-service does not read the ledger): how many
 * events they hold, for the lag {@code VIEW.INFO} reports, and which of them a message ID belongs to, for
 * {@code VIEW.WAIT} and {@code GetRow} on a view over several streams ({@link ReadYourWrites}).
 */
public interface ViewSources {
  /** Sources that know nothing: lag against the backfill target only, and no waits on views over several streams. */
  ViewSources UNKNOWN = new ViewSources() {
    @Override
    public OptionalLong eventsInSource(ViewName view) {
      return OptionalLong.empty();
    }

    @Override
    public Optional<String> streamOf(ViewName view, MessageId id) {
      throw new UnsupportedOperationException("which stream a message ID belongs to is not known here");
    }
  };

  /**
   * Count the events in a view's source streams.
   *
   * @param view the view
   * @return the count, or empty when unknown
   */
  OptionalLong eventsInSource(ViewName view);

  /**
   * The stream of those a view reads that holds a message ID.
   *
   * @param view a view (not a virtual state: pass the view it replays)
   * @param id the message ID
   * @return the stream's name, or empty when none of the view's streams holds it
   * @throws UnsupportedOperationException if this service cannot tell (the message says why)
   * @throws RuntimeException if the ledger cannot be read (Pulsar down; the message says so)
   */
  Optional<String> streamOf(ViewName view, MessageId id);
}
