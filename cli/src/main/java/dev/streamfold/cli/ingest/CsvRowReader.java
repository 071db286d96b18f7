package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads CSV (RFC 4180: comma separator, double-quoted fields with {@code ""} escapes and line breaks)
 * with a header row. Values are typed by the stream's declared column types: INT/BIGINT become
 * integers, DOUBLE/FLOAT numbers, BOOLEAN true/false, anything else (STRING, TIMESTAMP, undeclared
 * columns) text. An empty value is JSON null, except in STRING columns where it is "".
 */
final class CsvRowReader implements RowReader {
  private final Path file;
  private final BufferedReader in;
  private final String[] header;
  private final String[] types;
  private long line;
  private long rowLine;
  private long row;

  CsvRowReader(Path file, Map<String, String> columnTypes) throws IOException {
    this.file = file;
    this.in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
    List<String> names = record();
    if (names == null) {
      in.close();
      throw new InputException(file.toString(), 0, "empty file: a CSV file needs a header row naming the fields");
    }
    if (!names.isEmpty() && names.get(0).startsWith("\uFEFF")) {
      names.set(0, names.get(0).substring(1));
    }
    Map<String, String> upper = new HashMap<>();
    columnTypes.forEach((k, v) -> upper.put(k, v.toUpperCase(Locale.ROOT)));
    header = new String[names.size()];
    types = new String[names.size()];
    for (int i = 0; i < header.length; i++) {
      header[i] = names.get(i).trim();
      if (header[i].isEmpty()) {
        in.close();
        throw new InputException(file + " line 1", 0, "header field " + (i + 1) + " has no name");
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
      throw new InputException(where(), row, fields.size() + " fields, but the header has " + header.length);
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
        case "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT" -> node.put(name, Long.parseLong(value.trim()));
        case "DOUBLE", "FLOAT", "REAL" -> node.put(name, Double.parseDouble(value.trim()));
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

  /** Read one CSV record; null at the end of the file. Blank lines between records are skipped. */
  private List<String> record() throws IOException {
    String text = readLine();
    line++;
    while (text != null && text.isEmpty()) {
      text = readLine();
      line++;
    }
    if (text == null) {
      return null;
    }
    rowLine = line;
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    int i = 0;
    while (true) {
      if (i >= text.length()) {
        if (quoted) {
          text = readLine();
          line++;
          if (text == null) {
            throw new InputException(file + " line " + rowLine, row + 1, "a quoted field is not closed");
          }
          field.append('\n');
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
          }
        } else {
          field.append(c);
        }
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
      } else if (c == '"' && field.length() == 0) {
        quoted = true;
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

  /** Read a line; text that is not UTF-8 stops the reading, naming its first such line (it cannot be skipped). */
  private String readLine() throws IOException {
    try {
      return in.readLine();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw Utf8Lines.notUtf8(file, e);
    }
  }
}
