package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/** Rows of an input file as JSON objects, in file order. Not thread-safe. */
public interface RowReader extends Closeable {

  /**
   * Read the next row.
   *
   * @return the row as a JSON object (field name to value; absent or null values are JSON null), or
   *     null after the last row
   * @throws InputException if the row is malformed (the message names the row)
   * @throws IOException if the file cannot be read
   */
  ObjectNode next() throws IOException;

  /** The 1-based number of the row last returned (0 before the first). */
  long rowNumber();

  /**
   * Describe where the row last returned is, for messages.
   *
   * @return e.g. {@code flights.csv row 12 (line 13)}
   */
  String where();

  /** Rows in the file when known without reading it (Parquet's footer), else -1. */
  long totalRows();

  /**
   * Skip rows.
   *
   * @param rows how many rows to skip, at least 0
   * @return rows actually skipped (fewer at the end of the file)
   * @throws IOException if the file cannot be read
   */
  default long skip(long rows) throws IOException {
    long skipped = 0;
    while (skipped < rows && next() != null) {
      skipped++;
    }
    return skipped;
  }

  /**
   * Open a file.
   *
   * @param file the file
   * @param format its format
   * @param columnTypes declared SQL types of the stream's columns (e.g. {@code delay -> INT}), used to
   *     type CSV values; other formats carry their own types
   * @return the reader; close it
   * @throws IOException if the file cannot be opened, is a directory, or is not a regular file (a FIFO, a device),
   *     the message naming it
   */
  static RowReader open(Path file, FileFormat format, Map<String, String> columnTypes) throws IOException {
    if (Files.isDirectory(file)) {
      throw new NoSuchFileException(file.toString(), null, "a directory, not a file");
    }
    if (!Files.exists(file)) {
      throw new NoSuchFileException(file.toString(), null, "no such file");
    }
    if (!Files.isRegularFile(file)) {
      // a FIFO would block the reader until something writes to it; a device may never end
      throw new NoSuchFileException(file.toString(), null, "not a regular file (a FIFO, a device or a socket)");
    }
    return switch (format) {
      case CSV -> new CsvRowReader(file, columnTypes);
      case JSONL -> new JsonlRowReader(file);
      case PARQUET -> new ParquetRowReader(file);
    };
  }
}
