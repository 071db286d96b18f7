package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads JSON Lines: one JSON object per line; blank lines are skipped. Values keep their JSON types. */
final class JsonlRowReader implements RowReader {
  private final Path file;
  private final BufferedReader in;
  private long line;
  private long row;

  JsonlRowReader(Path file) throws IOException {
    this.file = file;
    this.in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
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
    if (row == 1 && text.startsWith("\uFEFF")) {
      text = text.substring(1);
    }
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

  /** Read a line; text that is not UTF-8 stops the reading, naming its first such line (it cannot be skipped). */
  private String readLine() throws IOException {
    try {
      return in.readLine();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw Utf8Lines.notUtf8(file, e);
    }
  }
}
