package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads JSON Lines: one JSON object per line, nothing after it but whitespace (a second value on the line is a
 * bad row, not dropped); blank lines are skipped. Values keep their JSON types; a number beyond a double's range
 * ({@code 1e400}) makes the row bad (JSON has no Infinity).
 */
final class JsonlRowReader implements RowReader {
  private final Path file;
  private final Utf8Lines in;
  private long line;
  private long row;

  JsonlRowReader(Path file) throws IOException {
    this.file = file;
    this.in = new Utf8Lines(file);
  }

  @Override
  public ObjectNode next() throws IOException {
    String text;
    do {
      text = readLine();
      line++;
      if (text == null) {
        return null;
      }
    } while (text.isBlank());
    row++;
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new InputException(where(), row, "not valid JSON: " + e.getOriginalMessage());
    }
    if (!(node instanceof ObjectNode object)) {
      throw new InputException(where(), row, "not a JSON object (each line must be one {...} object)");
    }
    String overflow = nonFinite(object, "");
    if (overflow != null) {
      // Jackson reads 1e400 as Infinity, which JSON cannot hold: it was written into the payload as the text
      // "Infinity", another value than the file's
      throw new InputException(where(), row, "field '" + overflow + "' holds a number beyond the range of a 64-bit"
          + " floating-point number (at most about 1.8e308)");
    }
    return object;
  }

  /** The path of the first number in a JSON value that is not finite, e.g. {@code a.b[2]}; null when none. */
  private static String nonFinite(JsonNode node, String path) {
    if (node.isFloatingPointNumber()) {
      return Double.isFinite(node.doubleValue()) ? null : path;
    }
    if (node.isObject()) {
      for (java.util.Iterator<java.util.Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        java.util.Map.Entry<String, JsonNode> field = it.next();
        String found = nonFinite(field.getValue(), path.isEmpty() ? field.getKey() : path + "." + field.getKey());
        if (found != null) {
          return found;
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        String found = nonFinite(node.get(i), path + "[" + i + "]");
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }

  @Override
  public long rowNumber() {
    return row;
  }

  @Override
  public String where() {
    return file + " row " + row + " (line " + line + ")";
  }

  @Override
  public long totalRows() {
    return -1;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  /** Read a line; text that is not UTF-8 stops the reading, naming its line (it cannot be skipped). */
  private String readLine() throws IOException {
    return in.readLine();
  }
}
