package dev.streamfold.query;

import dev.streamfold.views.ViewName;
import java.util.OptionalLong;

/**
 * How many events a view's source stream holds now; only the server knows (the query-service does not
 * read the ledger). Used for the lag that {@code VIEW.INFO} reports.
 */
@FunctionalInterface
public interface SourceEvents {
  /** A source that knows nothing: {@code VIEW.INFO} then reports the lag against the backfill target only. */
  SourceEvents UNKNOWN = view -> OptionalLong.empty();

  /**
   * Count the events in a view's source stream.
   *
   * @param view the view
   * @return the count, or empty when unknown
   */
  OptionalLong eventsInSource(ViewName view);
}
