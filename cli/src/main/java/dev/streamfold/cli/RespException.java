package dev.streamfold.cli;

/**
 * A failed exchange with the query-service over RESP ({@link RespConnection}): no reply within the timeout, the
 * connection closed, or bytes that are not a RESP reply; the message says which. Its subclasses:
 * {@link ErrorReply} (the server answered with an error) and {@link NotConnected} (no connection to send on).
 */
class RespException extends RuntimeException {
  /**
   * Create the exception.
   *
   * @param message what failed, e.g. {@code Command timed out after 10 second(s)}
   */
  RespException(String message) {
    super(message);
  }

  /**
   * Create the exception.
   *
   * @param message what failed
   * @param cause why
   */
  RespException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * An error reply of the query-service; the message is the server's text as sent, error code first (e.g.
   * {@code ERR no such view 'x' (VIEW.LIST lists the views and virtual states)}, {@code WRONGPASS ...}).
   */
  static final class ErrorReply extends RespException {
    /**
     * Create the exception.
     *
     * @param text the error reply's text, without the leading {@code -}
     */
    ErrorReply(String text) {
      super(text);
    }
  }

  /**
   * A connection that could not be opened: the address did not resolve, the connection was refused, timed out or
   * closed, or the server refused HELLO/AUTH (then the cause is its {@link ErrorReply}, e.g. {@code WRONGPASS ...}).
   * The cause says why.
   */
  static final class NotConnected extends RespException {
    /**
     * Create the exception.
     *
     * @param host host name or address connected to
     * @param port RESP port
     * @param cause why it failed
     */
    NotConnected(String host, int port, Throwable cause) {
      super("cannot connect to " + host + ":" + port, cause);
    }
  }
}
