package dev.streamfold.api.auth;

/** Quoting of client-sent text in error messages. */
final class Texts {
  private Texts() {}

  /**
   * Return text safe to quote: printable ASCII only (others as '?'), at most 80 characters.
   *
   * @param text client-sent text
   * @return the quotable text
   */
  static String printable(String text) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length() && out.length() < 80; i++) {
      char c = text.charAt(i);
      out.append(c >= ' ' && c <= '~' ? c : '?');
    }
    if (text.length() > 80) {
      out.append("...");
    }
    return out.toString();
  }
}
