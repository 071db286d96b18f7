package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads JSON Lines: one JSON object per line, nothing after it but whitespace (a second value on the line is a
 * bad row, not dropped); blank lines are skipped. Values keep their JSON types.
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
    return object;
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
