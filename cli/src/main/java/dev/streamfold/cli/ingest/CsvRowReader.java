package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads CSV (RFC 4180: comma separator, double-quoted fields with {@code ""} escapes and line breaks)
 * with a header row of distinct names. A closing quote must be followed by a comma or the end of the line:
 * anything else is a malformed record (a stray quote would otherwise swallow the rows after it into one
 * field), and a carriage return outside quotes is too (a file whose lines end in CR alone would be one record).
 * Values are typed by the stream's declared column types: INT/BIGINT become integers (ASCII digits,
 * an optional sign), DOUBLE/FLOAT finite numbers (decimal notation with an optional exponent), BOOLEAN
 * true/false, TIMESTAMP epoch milliseconds when the value is an integer, else text (ISO-8601, checked by the
 * server); anything else (STRING, undeclared columns) text. An empty value is JSON null, except in STRING
 * columns where it is "".
 */
final class CsvRowReader implements RowReader {
  private final Path file;
  private final Utf8Lines in;
  private final String[] header;
  private final String[] types;
  private long line;
  private long rowLine;
  private long row;

  CsvRowReader(Path file, Map<String, String> columnTypes) throws IOException {
    this.file = file;
    this.in = new Utf8Lines(file);
    List<String> names;
    try {
      names = record();
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
    if (names == null) {
      in.close();
      throw new InputException(file.toString(), 0, "empty file: a CSV file needs a header row naming the fields");
    }
    Map<String, String> upper = new HashMap<>();
    columnTypes.forEach((k, v) -> upper.put(k, v.toUpperCase(Locale.ROOT)));
    header = new String[names.size()];
    types = new String[names.size()];
    for (int i = 0; i < header.length; i++) {
      header[i] = names.get(i).trim();
      if (header[i].isEmpty()) {
        in.close();
        throw new InputException(file + " line " + rowLine, 0, "header field " + (i + 1) + " has no name");
      }
      for (int j = 0; j < i; j++) {
        if (header[j].equals(header[i])) {
          in.close();
          throw new InputException(file + " line " + rowLine, 0, "header fields " + (j + 1) + " and " + (i + 1)
              + " are both named '" + header[i] + "': an event holds one value per field; rename one");
        }
      }
      types[i] = upper.getOrDefault(header[i], "STRING");
    }
  }

  @Override
  public ObjectNode next() throws IOException {
    List<String> fields = record();
    if (fields == null) {
      return null;
    }
    row++;
    if (fields.size() != header.length) {
      throw new InputException(where(), row, fields.size() + (fields.size() == 1 ? " field" : " fields")
          + ", but the header has " + header.length);
    }
    ObjectNode node = Json.NODES.objectNode();
    for (int i = 0; i < header.length; i++) {
      put(node, header[i], types[i], fields.get(i));
    }
    return node;
  }

  private void put(ObjectNode node, String name, String type, String value) {
    if (value.isEmpty()) {
      if (type.equals("STRING")) {
        node.put(name, "");
      } else {
        node.putNull(name);
      }
      return;
    }
    try {
      switch (type) {
        case "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT" -> {
          String v = value.trim();
          if (INTEGER.matcher(v).matches() && v.replaceFirst("^[+-]?0*", "").length() > 18) {
            try {
              Long.parseLong(v);
            } catch (NumberFormatException beyond) {
              throw new InputException(where(), row, "column '" + name + "' value '" + value + "' is beyond the range"
                  + " of a 64-bit integer (type " + type + ")");
            }
          }
          node.put(name, integer(v));
        }
        case "DOUBLE", "FLOAT", "REAL" -> {
          String v = value.trim();
          if (!DECIMAL.matcher(v).matches()) {
            throw new NumberFormatException();
          }
          double d = Double.parseDouble(v);
          if (Double.isInfinite(d)) {
            throw new InputException(where(), row, "column '" + name + "' value '" + value + "' is beyond the range"
                + " of type " + type + " (at most about 1.8e308)");
          }
          node.put(name, d);
        }
        case "TIMESTAMP" -> {
          // epoch ms as a number (the server takes integers as epoch ms, text as ISO-8601)
          String v = value.trim();
          if (INTEGER.matcher(v).matches()) {
            node.put(name, integer(v));
          } else {
            node.put(name, value);
          }
        }
        case "BOOLEAN" -> {
          String v = value.trim().toLowerCase(Locale.ROOT);
          if (!v.equals("true") && !v.equals("false")) {
            throw new NumberFormatException();
          }
          node.put(name, v.equals("true"));
        }
        default -> node.put(name, value);
      }
    } catch (NumberFormatException e) {
      throw new InputException(where(), row, "column '" + name + "' value '" + value + "' is not of type " + type);
    }
  }

  /** An integer as JSON writes it, with an optional leading + (ASCII digits only: Java also takes other scripts'). */
  private static final java.util.regex.Pattern INTEGER = java.util.regex.Pattern.compile("[+-]?[0-9]+");
  /** A decimal number with an optional exponent (Java's parser also takes hex, NaN, Infinity and a d/f suffix). */
  private static final java.util.regex.Pattern DECIMAL =
      java.util.regex.Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");

  private static long integer(String value) {
    if (!INTEGER.matcher(value).matches()) {
      throw new NumberFormatException();
    }
    return Long.parseLong(value);
  }

  /** Read one CSV record; null at the end of the file. Blank lines between records are skipped. */
  private List<String> record() throws IOException {
    String text = readLine();
    line++;
    // whitespace alone is a blank line, unless it can be a value (a one-column file)
    while (text != null && (text.isEmpty() || text.isBlank() && (header == null || header.length > 1))) {
      text = readLine();
      line++;
    }
    if (text == null) {
      return null;
    }
    rowLine = line;
    List<String[]> continuation = new ArrayList<>(); // the record's lines after its first, with their breaks
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    int i = 0;
    while (true) {
      if (i >= text.length()) {
        if (quoted) {
          String lineBreak = lastBreak; // the break ending the line read last: part of the quoted field
          text = readLine();
          line++;
          if (text == null) {
            throw malformed(continuation, "a quoted field is not closed (at the end of the file)");
          }
          continuation.add(new String[] {text, lastBreak});
          field.append(lineBreak);
          i = 0;
          continue;
        }
        fields.add(field.toString());
        return fields;
      }
      char c = text.charAt(i++);
      if (quoted) {
        if (c == '"') {
          if (i < text.length() && text.charAt(i) == '"') {
            field.append('"');
            i++;
          } else {
            quoted = false;
            if (i < text.length() && text.charAt(i) != ',') {
              throw malformed(continuation, "a quoted field ends at '\"' followed by '" + text.charAt(i)
                  + "' (RFC 4180: a closing quote is followed by a comma or the end of the line; a quote inside a"
                  + " quoted field is written \"\")");
            }
          }
        } else {
          field.append(c);
        }
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
      } else if (c == '"' && field.length() == 0) {
        quoted = true;
      } else if (c == '\r') {
        // RFC 4180 ends lines with CRLF (LF is taken too); a CR alone is a line end of old Mac files, which would
        // make the whole file one record, or would stay silently inside a value
        throw malformed(continuation, "a carriage return (CR) outside a quoted field: lines end in LF or CRLF (convert"
            + " a file whose lines end in CR alone), and a value holding a CR is quoted");
      } else {
        field.append(c);
      }
    }
  }

  @Override
  public long rowNumber() {
    return row;
  }

  @Override
  public String where() {
    return file + " row " + row + " (line " + rowLine + ")";
  }

  @Override
  public long totalRows() {
    return -1;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  /**
   * Report a malformed record and go on at the line after its first: the record is one bad row (its first line),
   * and the lines a stray quote took into it are read again as records of their own, so skipping a bad row
   * never loses the rows after it.
   *
   * @param continuation the record's lines after its first, in order, each with its line break
   * @param problem what is wrong
   * @return the exception to throw
   */
  private InputException malformed(List<String[]> continuation, String problem) {
    if (header == null) {
      return new InputException(file + " line " + rowLine, 0, "the header row: " + problem); // not a data row
    }
    for (int k = continuation.size() - 1; k >= 0; k--) {
      pushedBack.addFirst(continuation.get(k));
    }
    line = rowLine;
    row++;
    return new InputException(file + " row " + row + " (line " + rowLine + ")", row, problem);
  }

  /** Lines to read again before the file's next ones (after a malformed record). */
  private final java.util.ArrayDeque<String[]> pushedBack = new java.util.ArrayDeque<>();
  /** The line break that ended the line read last: "\r\n", "\n", or "" at the end of the file. */
  private String lastBreak = "";

  /** Read a line; text that is not UTF-8 stops the reading, naming its line (it cannot be skipped). */
  private String readLine() throws IOException {
    if (pushedBack.isEmpty()) {
      String text = in.readLine();
      lastBreak = in.lastBreak();
      return text;
    }
    String[] again = pushedBack.pollFirst();
    lastBreak = again[1];
    return again[0];
  }
}
