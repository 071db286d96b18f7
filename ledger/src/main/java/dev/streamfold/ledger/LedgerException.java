package dev.streamfold.ledger;

import dev.streamfold.core.StreamRef;
import java.util.List;

/** Root of the ledger's errors. Every subclass carries the data a caller needs in its message. */
public class LedgerException extends RuntimeException {
  public LedgerException(String message) {
    super(message);
  }

  public LedgerException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A malformed event: names the event's index in its request and the field. When thrown for a whole
   * request ({@link #ofRequest}), it is the first invalid event and {@link #all()} lists every invalid
   * event found (up to {@value #MAX_LISTED}); nothing of the request was stored.
   */
  public static final class InvalidEvent extends LedgerException {
    /** Most invalid events of one request listed in the error. */
    public static final int MAX_LISTED = 100;
    private final int index;
    private final String field;
    private final String reason;
    private final List<InvalidEvent> all;
    private final int invalidEvents;

    public InvalidEvent(int index, String field, String reason) {
      super("event " + index + ": field '" + field + "' " + reason);
      this.index = index;
      this.field = field;
      this.reason = reason;
      this.all = List.of(this);
      this.invalidEvents = 1;
    }

    private InvalidEvent(List<InvalidEvent> all, int invalidEvents, int requestEvents) {
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
    public static InvalidEvent ofRequest(List<InvalidEvent> all, int invalidEvents, int requestEvents) {
      return new InvalidEvent(all, invalidEvents, requestEvents);
    }

    private static String others(List<InvalidEvent> all, int invalidEvents) {
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
    public List<InvalidEvent> all() {
      return all;
    }

    /** How many events of the request are invalid (may exceed {@code all().size()}). */
    public int invalidEvents() {
      return invalidEvents;
    }
  }

  /** A stream (or its tenant) that does not exist. */
  public static final class StreamNotFound extends LedgerException {
    public StreamNotFound(StreamRef stream) {
      super("stream '" + stream.stream() + "' does not exist in tenant '" + stream.tenant()
          + "' (create it first: streamfold stream create " + stream.stream() + ")");
    }
  }

  /** A stream that exists with other columns than requested. */
  public static final class StreamExists extends LedgerException {
    public StreamExists(StreamRef stream, String existingColumns, String requestedColumns) {
      super("stream '" + stream + "' already exists with columns [" + existingColumns
          + "], not [" + requestedColumns + "]");
    }

    /** It exists with another layout, described by {@code difference}, e.g. "with 4 partitions, not 8 ...". */
    public StreamExists(StreamRef stream, String difference) {
      super("stream '" + stream + "' already exists " + difference);
    }
  }

  /** A schema change that events already stored (or Pulsar's registry) do not allow; names the column. */
  public static final class IncompatibleSchema extends LedgerException {
    public IncompatibleSchema(StreamRef stream, String problem) {
      super("incompatible schema change for stream '" + stream + "': " + problem);
    }
  }

  /** Pulsar cannot be reached or failed; nothing was acknowledged. */
  public static final class Unavailable extends LedgerException {
    public Unavailable(String message, Throwable cause) {
      super(cause == null ? message : message + ": " + cause.getMessage(), cause);
    }
  }

  /** An artifact (e.g. a transformation's jar) the tenant's ledger does not hold. */
  public static final class ArtifactNotFound extends LedgerException {
    public ArtifactNotFound(String tenant, String sha256) {
      super("artifact sha256:" + sha256 + " is not stored in the ledger of tenant '" + tenant + "'");
    }
  }
}
