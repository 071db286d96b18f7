package dev.streamfold.query;

import java.nio.charset.StandardCharsets;

/**
 * Redis's glob matching (KEYS, SCAN MATCH), ported from {@code stringmatchlen} of Redis 7.0 so
 * that patterns behave byte for byte the same, including the corner cases of unterminated
 * brackets and trailing backslashes:
 * <ul>
 *   <li>{@code *} any sequence of bytes, {@code ?} exactly one byte;</li>
 *   <li>{@code [abc]} one of the bytes, {@code [^abc]} none of them, {@code [a-z]} a range (either
 *       order), {@code \x} inside brackets a literal byte;</li>
 *   <li>{@code \x} the byte {@code x} literally.</li>
 * </ul>
 * Matching is case-sensitive and on the UTF-8 bytes of pattern and text.
 */
final class RedisGlob {
  private final byte[] pattern;

  private RedisGlob(byte[] pattern) {
    this.pattern = pattern;
  }

  /**
   * Compile a pattern.
   *
   * @param pattern the glob, e.g. {@code delays:A*}
   * @return the matcher
   */
  static RedisGlob compile(String pattern) {
    return new RedisGlob(pattern.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Tell whether a text matches this pattern.
   *
   * @param text e.g. a key
   * @return true when the whole text matches
   */
  boolean matches(String text) {
    return matches(pattern, text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Tell whether bytes match a glob pattern.
   *
   * @param pattern the glob
   * @param text the bytes to test
   * @return true when all of {@code text} matches
   */
  static boolean matches(byte[] pattern, byte[] text) {
    return match(pattern, 0, pattern.length, text, 0, text.length, new boolean[1]);
  }

  // Variable names follow the C original: p/pl = pattern position/length left, s/sl = string.
  private static boolean match(byte[] pat, int p, int pl, byte[] str, int s, int sl,
      boolean[] skipLongerMatches) {
    while (pl > 0 && sl > 0) {
      switch (pat[p]) {
        case '*' -> {
          while (pl > 1 && pat[p + 1] == '*') {
            p++;
            pl--;
          }
          if (pl == 1) {
            return true;
          }
          while (sl > 0) {
            if (match(pat, p + 1, pl - 1, str, s, sl, skipLongerMatches)) {
              return true;
            }
            if (skipLongerMatches[0]) {
              return false;
            }
            s++;
            sl--;
          }
          // No match of the rest of the pattern anywhere in the rest of the string: a longer match
          // of an earlier '*' cannot help either.
          skipLongerMatches[0] = true;
          return false;
        }
        case '?' -> {
          s++;
          sl--;
        }
        case '[' -> {
          p++;
          pl--;
          boolean not = pl > 0 && pat[p] == '^';
          if (not) {
            p++;
            pl--;
          }
          boolean matched = false;
          while (true) {
            if (pl == 0) {
              // unterminated class: step back so the outer loop's advance lands at the end
              p--;
              pl++;
              break;
            } else if (pat[p] == '\\' && pl >= 2) {
              p++;
              pl--;
              if (pat[p] == str[s]) {
                matched = true;
              }
            } else if (pat[p] == ']') {
              break;
            } else if (pl >= 3 && pat[p + 1] == '-') {
              int start = pat[p];
              int end = pat[p + 2];
              int c = str[s];
              if (start > end) {
                int t = start;
                start = end;
                end = t;
              }
              p += 2;
              pl -= 2;
              if (c >= start && c <= end) {
                matched = true;
              }
            } else if (pat[p] == str[s]) {
              matched = true;
            }
            p++;
            pl--;
          }
          if (not) {
            matched = !matched;
          }
          if (!matched) {
            return false;
          }
          s++;
          sl--;
        }
        case '\\' -> {
          if (pl >= 2) {
            p++;
            pl--;
          }
          if (pat[p] != str[s]) {
            return false;
          }
          s++;
          sl--;
        }
        default -> {
          if (pat[p] != str[s]) {
            return false;
          }
          s++;
          sl--;
        }
      }
      p++;
      pl--;
      if (sl == 0) {
        while (pl > 0 && pat[p] == '*') {
          p++;
          pl--;
        }
        break;
      }
    }
    return pl == 0 && sl == 0;
  }
}
