package dev.streamfold.ledger;

/** Root of the ledger's errors. Every subclass carries the data a caller needs in its message. */
public class LedgerException extends RuntimeException {
  public LedgerException(String message) {
    super(message);
  }

  public LedgerException(String message, Throwable cause) {
    super(message, cause);
  }

  /** A malformed event: names the event's index in its request and the field. */
  public static final class InvalidEvent extends LedgerException {
    private final int index;
    private final String field;

    public InvalidEvent(int index, String field, String reason) {
      super("event " + index + ": field '" + field + "' " + reason);
      this.index = index;
      this.field = field;
    }

    /** Index of the event in its request, from 0. */
    public int index() {
      return index;
    }

    /** The offending field, e.g. {@code key} or {@code payload_json.delay}. */
    public String field() {
      return field;
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
  }

  /** Pulsar cannot be reached or failed; nothing was acknowledged. */
  public static final class Unavailable extends LedgerException {
    public Unavailable(String message, Throwable cause) {
      super(message + ": " + (cause == null ? "" : cause.getMessage()), cause);
    }
  }

  /** An artifact (e.g. a transformation's jar) the tenant's ledger does not hold. */
  public static final class ArtifactNotFound extends LedgerException {
    public ArtifactNotFound(String tenant, String sha256) {
      super("artifact sha256:" + sha256 + " is not stored in the ledger of tenant '" + tenant + "'");
    }
  }
}
