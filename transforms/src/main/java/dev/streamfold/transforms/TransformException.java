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

    /** A missing transformation, in the words of the request that named it. */
    public NotFound(String message) {
      super(message);
    }
  }

  /** A transformation name already taken. */
  public static final class AlreadyExists extends TransformException {
    public AlreadyExists(String tenant, String name) {
      super("transformation '" + name + "' already exists in tenant '" + tenant
          + "' (delete it first: streamfold transform delete " + name + ")");
    }
  }

  /** A replay cursor that names no position of the stream, or a replay that cannot be run as asked. */
  public static final class InvalidReplay extends TransformException {
    public InvalidReplay(String message) {
      super(message);
    }
  }

  /** A virtual state that does not exist. */
  public static final class VirtualStateNotFound extends TransformException {
    public VirtualStateNotFound(String tenant, String name) {
      super("virtual state '" + name + "' does not exist in tenant '" + tenant + "' (list them: streamfold view list)");
    }
  }

  /** A virtual state name already taken (by a virtual state or a view). */
  public static final class VirtualStateExists extends TransformException {
    public VirtualStateExists(String tenant, String name) {
      this(tenant, name, "drop it first: streamfold view drop " + name + ", or name the new state with --as");
    }

    /**
     * @param hint what to do instead, for the operation refused (e.g. "choose another view name")
     */
    public VirtualStateExists(String tenant, String name, String hint) {
      super("'" + name + "' already exists in tenant '" + tenant + "' (" + hint + ")");
    }
  }

  /** An operation refused in the current state (e.g. dropping a virtual state a view is rolled back to). */
  public static final class Conflict extends TransformException {
    public Conflict(String message) {
      super(message);
    }
  }

  /** A training set that cannot be built as asked (unknown view or column, bad expression, bad output). */
  public static final class InvalidTrainingSet extends TransformException {
    public InvalidTrainingSet(String message) {
      super(message);
    }
  }

  /** A Java transformation that cannot run: jar or class missing, wrong shape, state type not serializable. */
  public static final class InvalidFold extends TransformException {
    public InvalidFold(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
