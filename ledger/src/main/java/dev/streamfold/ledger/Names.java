package dev.streamfold.ledger;

/** Quotes client-supplied text in error messages: control characters escaped, long text shortened. */
public final class Names {
  /** Most characters of a client's text quoted in an error message. */
  public static final int MAX_QUOTED_CHARS = 80;

  private Names() {}

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
}
