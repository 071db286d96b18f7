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

  /** A schema change that events already stored (or Pulsar's registry) do not allow; names the column. */
  public static final class IncompatibleSchema extends LedgerException {
    public IncompatibleSchema(StreamRef stream, String problem) {
      super("incompatible schema change for stream '" + stream + "': " + problem);
    }
  }

  /** Pulsar cannot be reached or failed; nothing was acknowledged. */
  public static final class Unavailable extends LedgerException {
    public Unavailable(String message, Throwable cause) {
      super(message + ": " + (cause == null ? "" : cause.getMessage()), cause);
    }
  }
}
