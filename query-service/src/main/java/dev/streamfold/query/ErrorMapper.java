package dev.streamfold.query;

import io.netty.handler.codec.redis.ErrorRedisMessage;

/**
 * The one place where exceptions become RESP error replies. A {@link RespException} keeps its exact
 * Redis error line; any other exception (a failed or timed-out view read, a malformed name) becomes
 * {@code -ERR <message>}. Replies never contain CR or LF, which would break the protocol.
 */
final class ErrorMapper {
  private ErrorMapper() {}

  /**
   * Turn an exception into an error reply.
   *
   * @param error what went wrong
   * @return {@code -<CODE> <text>} for a {@link RespException}, else {@code -ERR <message>}
   */
  static ErrorRedisMessage toReply(Throwable error) {
    if (error instanceof RespException resp) {
      return new ErrorRedisMessage(oneLine(resp.getMessage()));
    }
    if (dev.streamfold.views.ViewStore.isRedisFailure(error)) {
      return new ErrorRedisMessage("ERR " + oneLine(dev.streamfold.views.ViewStore.describeRedisFailure(error)));
    }
    return new ErrorRedisMessage("ERR " + oneLine(describe(error)));
  }

  private static String describe(Throwable error) {
    String message = error.getMessage();
    if (message == null || message.isBlank()) {
      Throwable cause = error.getCause();
      return cause != null && cause != error ? describe(cause) : error.getClass().getSimpleName();
    }
    return message;
  }

  /**
   * Replace CR and LF with spaces, as Redis does in error and status replies.
   *
   * @param text any text
   * @return the text on one line
   */
  static String oneLine(String text) {
    return text.replace('\r', ' ').replace('\n', ' ');
  }

  /**
   * Render an argument the way Redis's {@code %.<max>s} does: cut at the first NUL character and at
   * {@code max} characters.
   *
   * @param text the argument
   * @param max longest result, in characters
   * @return the rendered argument
   */
  static String cString(String text, int max) {
    int nul = text.indexOf('\0');
    String cut = nul >= 0 ? text.substring(0, nul) : text;
    return cut.length() > max ? cut.substring(0, max) : cut;
  }
}
