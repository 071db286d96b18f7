package dev.streamfold.transforms;

/** Root of the transform module's errors; each carries its data in the message. */
public class TransformException extends RuntimeException {
  public TransformException(String message) {
    super(message);
  }

  public TransformException(String message, Throwable cause) {
    super(message, cause);
  }

  /** SQL that does not parse, validate or plan; nothing was started. */
  public static final class InvalidSql extends TransformException {
    public InvalidSql(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** A transformation that does not exist. */
  public static final class NotFound extends TransformException {
    public NotFound(String tenant, String name) {
      super("transformation '" + name + "' does not exist in tenant '" + tenant + "'");
    }
  }

  /** A transformation name already taken. */
  public static final class AlreadyExists extends TransformException {
    public AlreadyExists(String tenant, String name) {
      super("transformation '" + name + "' already exists in tenant '" + tenant
          + "' (delete it first: streamfold transform delete " + name + ")");
    }
  }
}
