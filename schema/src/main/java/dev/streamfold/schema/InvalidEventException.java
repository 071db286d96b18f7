package dev.streamfold.schema;

import java.util.List;

/**
 * A malformed event: names the event's index in its request and the field. When thrown for a whole
 * request ({@link #ofRequest}), it is the first invalid event and {@link #all()} lists every invalid
 * event found (up to {@value #MAX_LISTED}); nothing of the request was stored. The ledger refuses such a
 * request with it; a client (the CLI) runs the same checks ({@link EventValidator}) before sending.
 */
public final class InvalidEventException extends RuntimeException {
  /** Most invalid events of one request listed in the error. */
  public static final int MAX_LISTED = 100;
  private final int index;
  private final String field;
  private final String reason;
  private final List<InvalidEventException> all;
  private final int invalidEvents;

  public InvalidEventException(int index, String field, String reason) {
    super("event " + index + ": field '" + field + "' " + reason);
    this.index = index;
    this.field = field;
    this.reason = reason;
    this.all = List.of(this);
    this.invalidEvents = 1;
  }

  private InvalidEventException(List<InvalidEventException> all, int invalidEvents, int requestEvents) {
    super(all.get(0).getMessage() + (invalidEvents == 1 ? "" : "; also invalid: " + others(all, invalidEvents))
        + " (nothing of the request's " + requestEvents + " events was stored: a request is all-or-nothing)");
    this.index = all.get(0).index;
    this.field = all.get(0).field;
    this.reason = all.get(0).reason;
    this.all = List.copyOf(all);
    this.invalidEvents = invalidEvents;
  }

  /**
   * The error of a request with invalid events.
   *
   * @param all the invalid events found, in request order (at most {@value #MAX_LISTED}), not empty
   * @param invalidEvents how many events of the request are invalid in all
   * @param requestEvents events in the request
   * @return the error
   */
  public static InvalidEventException ofRequest(List<InvalidEventException> all, int invalidEvents, int requestEvents) {
    return new InvalidEventException(all, invalidEvents, requestEvents);
  }

  private static String others(List<InvalidEventException> all, int invalidEvents) {
    StringBuilder b = new StringBuilder();
    int shown = Math.min(all.size(), 5);
    for (int i = 1; i < shown; i++) {
      b.append(i > 1 ? ", " : "").append("event ").append(all.get(i).index).append(" (").append(all.get(i).field).append(')');
    }
    if (invalidEvents > shown) {
      b.append(shown > 1 ? " and " : "").append(invalidEvents - shown).append(" more");
    }
    return b.toString();
  }

  /** Index of the event in its request, from 0. */
  public int index() {
    return index;
  }

  /** The offending field, e.g. {@code key} or {@code payload_json.delay}. */
  public String field() {
    return field;
  }

  /** Why the field is invalid. */
  public String reason() {
    return reason;
  }

  /** Every invalid event found in the request, first one first (at most {@value #MAX_LISTED}). */
  public List<InvalidEventException> all() {
    return all;
  }

  /** How many events of the request are invalid (may exceed {@code all().size()}). */
  public int invalidEvents() {
    return invalidEvents;
  }
}
