package dev.streamfold.query;

/**
 * The client sent bytes that are not a valid request. Like Redis, the server replies
 * {@code -ERR Protocol error: <detail>} and closes the connection.
 */
final class ProtocolException extends RespException {
  private static final long serialVersionUID = 1L;

  /**
   * Create a protocol error.
   *
   * @param detail what was wrong, e.g. {@code invalid multibulk length}
   */
  ProtocolException(String detail) {
    super("ERR Protocol error: " + detail);
  }
}
