package dev.streamfold.ledger;

import dev.streamfold.core.StreamRef;

/** Root of the ledger's errors. Every subclass carries the data a caller needs in its message. */
public class LedgerException extends RuntimeException {
  public LedgerException(String message) {
    super(message);
  }

  public LedgerException(String message, Throwable cause) {
    super(message, cause);
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
