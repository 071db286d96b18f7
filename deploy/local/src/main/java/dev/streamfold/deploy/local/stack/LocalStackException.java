package dev.streamfold.deploy.local.stack;

/** A local stack operation failed; the message says which process and why (and quotes its log). */
public class LocalStackException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LocalStackException(String message) {
    super(message);
  }

  public LocalStackException(String message, Throwable cause) {
    super(message, cause);
  }
}
