package dev.streamfold.cli;

/** A user-facing error: printed as one line ("error: ..."), exit code 1, no stack trace. */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CliException(String message) {
    super(message);
  }

  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
