package dev.streamfold.cli.ingest;

import java.nio.file.Path;
import java.util.Locale;

/** Input file formats of {@code streamfold ingest}. */
public enum FileFormat {
  /** Comma-separated values (RFC 4180) with a header row naming the fields. */
  CSV,
  /** One JSON object per line (JSON Lines). */
  JSONL,
  /** Apache Parquet, read with Parquet's own Java reader. */
  PARQUET;

  /**
   * Guess the format from a file name's extension.
   *
   * @param file the file
   * @return the format
   * @throws IllegalArgumentException if the extension is not .csv, .jsonl, .ndjson, .json or .parquet
   */
  public static FileFormat of(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".csv")) {
      return CSV;
    }
    if (name.endsWith(".jsonl") || name.endsWith(".ndjson") || name.endsWith(".json")) {
      return JSONL;
    }
    if (name.endsWith(".parquet") || name.endsWith(".parq")) {
      return PARQUET;
    }
    throw new IllegalArgumentException("cannot tell the format of " + file
        + " from its extension: pass --format csv, jsonl or parquet");
  }
}
