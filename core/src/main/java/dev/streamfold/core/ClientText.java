package dev.streamfold.core;

/**
 * Quotes client-supplied text in error messages, so that a message stays one line of bounded length whatever
 * a client sent. Two rules, for two kinds of text:
 * <ul>
 *   <li>{@link #quote} and {@link #shorten}: text that may hold any character (stream, view and column names as
 *       sent, header names, JSON values, schema text). It is kept as sent, so a name in another script or an
 *       emoji reads as the client wrote it; only what would break the line is escaped: control characters and
 *       U+2028/U+2029 (line and paragraph separators) as {@code \\uXXXX}.</li>
 *   <li>{@link #printableAscii}: text whose valid values are printable ASCII, quoted before any other rule has
 *       looked at it (the tenant a request names, checked by the gRPC auth interceptor). Everything else shows
 *       as '?', so a look-alike letter of another script cannot pass for its ASCII twin in a refusal, and the
 *       description gRPC sends in its {@code grpc-message} trailer stays plain ASCII.</li>
 * </ul>
 * Both show at most {@value #MAX_QUOTED_CHARS} characters.
 */
public final class ClientText {
  /** Most characters of a client's text quoted in an error message. */
  public static final int MAX_QUOTED_CHARS = 80;

  private ClientText() {}

  /**
   * Quote a text for an error message: {@code 'text'}, control characters as {@code \\uXXXX}, at most
   * {@value #MAX_QUOTED_CHARS} characters followed by {@code ... (N characters)}.
   *
   * @param text the text, may be null
   * @return the quoted text, or {@code null}
   */
  public static String quote(String text) {
    return text == null ? "null" : "'" + shorten(text) + "'";
  }

  /**
   * Shorten a text for an error message without quotes (see {@link #quote}).
   *
   * @param text the text, not null
   * @return the text, escaped and shortened
   */
  public static String shorten(String text) {
    StringBuilder b = new StringBuilder();
    int shown = Math.min(text.length(), MAX_QUOTED_CHARS);
    for (int i = 0; i < shown; i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    if (text.length() > shown) {
      b.append("... (").append(text.length()).append(" characters)");
    }
    return b.toString();
  }

  /**
   * Return text safe to quote where only printable ASCII is valid: printable ASCII only (others as '?'), at most
   * {@value #MAX_QUOTED_CHARS} characters followed by {@code ...}.
   *
   * @param text client-sent text, not null
   * @return the quotable text, without quotes
   */
  public static String printableAscii(String text) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length() && out.length() < MAX_QUOTED_CHARS; i++) {
      char c = text.charAt(i);
      out.append(c >= ' ' && c <= '~' ? c : '?');
    }
    if (text.length() > MAX_QUOTED_CHARS) {
      out.append("...");
    }
    return out.toString();
  }
}
