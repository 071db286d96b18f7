package dev.streamfold.transforms.source;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

/**
 * The one-pass byte scan of {@link PayloadParser#toRowData}: a payload that is a flat JSON object of plain values
 * (ASCII strings without escapes, JSON numbers, true, false, null) is read straight from its UTF-8 bytes into the
 * read columns of a row, strings as UTF-8 slices; anything else is left to the parser's Jackson parse, which
 * decides every unusual input, so both agree on every payload ({@code PayloadParserTest} compares them).
 * Not thread-safe state: built once per parser instance, then only read.
 */
final class FlatJsonScanner {
  private final String[] types;
  /** Per declared column its name's UTF-8 bytes. */
  private final byte[][] nameBytes;
  /** Per name length, the read columns whose name has that many bytes. */
  private final int[][] nameBytesByLength;

  /**
   * @param names the declared columns' names
   * @param types their SQL types
   * @param read per declared column, whether it is read (the others are never scanned into the row)
   */
  FlatJsonScanner(String[] names, String[] types, boolean[] read) {
    this.types = types;
    byte[][] bytes = new byte[names.length][];
    int longest = 0;
    for (int i = 0; i < names.length; i++) {
      bytes[i] = names[i].getBytes(StandardCharsets.UTF_8);
      if (read[i]) {
        longest = Math.max(longest, bytes[i].length);
      }
    }
    int[][] byLength = new int[longest + 1][];
    for (int i = 0; i < names.length; i++) {
      if (read[i]) {
        int[] old = byLength[bytes[i].length];
        int[] grown = old == null ? new int[1] : Arrays.copyOf(old, old.length + 1);
        grown[grown.length - 1] = i;
        byLength[bytes[i].length] = grown;
      }
    }
    this.nameBytes = bytes;
    this.nameBytesByLength = byLength;
  }

  /** Longest name, string or number the byte scan takes (Jackson's read constraints decide longer ones). */
  private static final int SCAN_MAX_TOKEN = 1000;

  /**
   * Scan a flat JSON object's bytes into the read columns of {@code row}.
   *
   * @return true when the payload was such an object and the row holds its values; false when it needs
   *     the full parser (the row's declared columns are then rewritten by the caller)
   */
  boolean scan(byte[] b, GenericRowData row) {
    int n = b.length;
    int i = skipWhitespace(b, 0);
    if (i >= n || b[i] != '{') {
      return false;
    }
    i = skipWhitespace(b, i + 1);
    if (i < n && b[i] == '}') {
      return true;
    }
    while (true) {
      if (i >= n || b[i] != '"') {
        return false;
      }
      int nameStart = ++i;
      i = plainStringEnd(b, i);
      if (i < 0 || i - nameStart > SCAN_MAX_TOKEN) {
        return false;
      }
      int column = column(b, nameStart, i);
      i = skipWhitespace(b, i + 1);
      if (i >= n || b[i] != ':') {
        return false;
      }
      i = skipWhitespace(b, i + 1);
      if (i >= n) {
        return false;
      }
      byte c = b[i];
      Object value;
      if (c == '"') {
        int start = i + 1;
        i = plainStringEnd(b, start);
        if (i < 0 || i - start > SCAN_MAX_TOKEN) {
          return false;
        }
        value = column < 0 ? null : stringValue(types[column], b, start, i);
        i++;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        int start = i;
        boolean negative = c == '-';
        if (negative) {
          i++;
        }
        int digitsStart = i;
        if (i < n && b[i] == '0') {
          i++;
        } else if (i < n && b[i] >= '1' && b[i] <= '9') {
          while (i < n && b[i] >= '0' && b[i] <= '9') {
            i++;
          }
        } else {
          return false;
        }
        int digits = i - digitsStart;
        boolean fraction = false;
        if (i < n && b[i] == '.') {
          fraction = true;
          int f = ++i;
          while (i < n && b[i] >= '0' && b[i] <= '9') {
            i++;
          }
          if (i == f) {
            return false;
          }
        }
        if (i < n && (b[i] == 'e' || b[i] == 'E')) {
          fraction = true;
          i++;
          if (i < n && (b[i] == '+' || b[i] == '-')) {
            i++;
          }
          int e = i;
          while (i < n && b[i] >= '0' && b[i] <= '9') {
            i++;
          }
          if (i == e) {
            return false;
          }
        }
        if (i - start > SCAN_MAX_TOKEN || (!fraction && digits > 18)) {
          return false;
        }
        if (column < 0) {
          value = null;
        } else if (fraction) {
          value = floatValue(types[column], b, start, i);
        } else {
          long v = 0;
          for (int d = digitsStart; d < digitsStart + digits; d++) {
            v = v * 10 + (b[d] - '0');
          }
          if (negative && v == 0) {
            return false; // -0: leave the sign rules of a negative zero to Jackson
          }
          value = integerValue(types[column], negative ? -v : v, b, start, i);
        }
      } else if (c == 't' && matches(b, i, "true")) {
        value = column < 0 ? null : literalValue(types[column], Boolean.TRUE, "true");
        i += 4;
      } else if (c == 'f' && matches(b, i, "false")) {
        value = column < 0 ? null : literalValue(types[column], Boolean.FALSE, "false");
        i += 5;
      } else if (c == 'n' && matches(b, i, "null")) {
        value = null;
        i += 4;
      } else {
        return false; // an object, an array, or not JSON
      }
      if (column >= 0) {
        row.setField(column, value); // the last occurrence of a repeated field wins
      }
      i = skipWhitespace(b, i);
      if (i >= n) {
        return false;
      }
      if (b[i] == '}') {
        return true; // what follows the object is not read (as with the streaming parse)
      }
      if (b[i] != ',') {
        return false;
      }
      i = skipWhitespace(b, i + 1);
    }
  }

  /** JSON whitespace (the four characters Jackson skips). */
  private static int skipWhitespace(byte[] b, int i) {
    while (i < b.length && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) {
      i++;
    }
    return i;
  }

  /**
   * The index of the closing quote of a string starting at {@code i}, or -1 when it holds an escape, a
   * control character or a non-ASCII byte (or does not end).
   */
  private static int plainStringEnd(byte[] b, int i) {
    while (i < b.length) {
      byte c = b[i];
      if (c == '"') {
        return i;
      }
      if (c < 0x20 || c == '\\') { // also every byte >= 0x80 (negative)
        return -1;
      }
      i++;
    }
    return -1;
  }

  private static boolean matches(byte[] b, int i, String literal) {
    if (i + literal.length() > b.length) {
      return false;
    }
    for (int k = 0; k < literal.length(); k++) {
      if (b[i + k] != literal.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  /** The read column named by the ASCII bytes {@code [start, end)}, or -1. */
  private int column(byte[] b, int start, int end) {
    int length = end - start;
    if (length >= nameBytesByLength.length) {
      return -1;
    }
    int[] candidates = nameBytesByLength[length];
    if (candidates == null) {
      return -1;
    }
    for (int candidate : candidates) {
      byte[] name = nameBytes[candidate];
      int k = 0;
      while (k < length && name[k] == b[start + k]) {
        k++;
      }
      if (k == length) {
        return candidate;
      }
    }
    return -1;
  }

  /** The internal value of a JSON string (plain ASCII, bytes [start, end)) in a column of {@code type}. */
  private static Object stringValue(String type, byte[] b, int start, int end) {
    switch (type) {
      case "TIMESTAMP":
        try {
          return TimestampData.fromLocalDateTime(dev.streamfold.schema.IsoDateTimes.parse(
              new String(b, start, end - start, StandardCharsets.ISO_8859_1)));
        } catch (RuntimeException e) {
          return null;
        }
      case "BOOLEAN": case "INT": case "BIGINT": case "DOUBLE":
        return null;
      default:
        return StringData.fromBytes(Arrays.copyOfRange(b, start, end));
    }
  }

  /** The internal value of a JSON integer {@code v} (text [start, end), at most 18 digits). */
  private static Object integerValue(String type, long v, byte[] b, int start, int end) {
    switch (type) {
      case "BOOLEAN":
        return null;
      case "INT":
        return v == (int) v ? Integer.valueOf((int) v) : null;
      case "BIGINT":
        return v;
      case "DOUBLE":
        return (double) v;
      case "TIMESTAMP":
        return TimestampData.fromLocalDateTime(LocalDateTime.ofInstant(Instant.ofEpochMilli(v), ZoneOffset.UTC));
      default:
        return StringData.fromBytes(Arrays.copyOfRange(b, start, end)); // the number as written
    }
  }

  /** The internal value of a JSON number with a fraction or exponent (text [start, end)). */
  private static Object floatValue(String type, byte[] b, int start, int end) {
    switch (type) {
      case "DOUBLE":
        return Double.parseDouble(new String(b, start, end - start, StandardCharsets.ISO_8859_1));
      case "BOOLEAN": case "INT": case "BIGINT": case "TIMESTAMP":
        return null;
      default:
        return StringData.fromBytes(Arrays.copyOfRange(b, start, end));
    }
  }

  private static Object literalValue(String type, Boolean value, String text) {
    switch (type) {
      case "BOOLEAN":
        return value;
      case "INT": case "BIGINT": case "DOUBLE": case "TIMESTAMP":
        return null;
      default:
        return StringData.fromString(text);
    }
  }
}
