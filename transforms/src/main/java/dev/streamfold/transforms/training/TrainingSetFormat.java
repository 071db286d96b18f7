package dev.streamfold.transforms.training;

import java.nio.file.Path;
import java.util.Locale;

/** Output file formats of a training set, chosen by the output file's extension. */
public enum TrainingSetFormat {
  /** Apache Parquet, one column per output column with its SQL type (see {@link TrainingSetColumns}). */
  PARQUET,
  /** RFC 4180 CSV with a header line; null is an empty field. */
  CSV,
  /** One JSON object per line; null is JSON null. */
  JSONL;

  /**
   * Pick the format of an output file.
   *
   * @param file the output file
   * @return PARQUET for {@code .parquet}, CSV for {@code .csv}, JSONL for {@code .jsonl} or {@code .ndjson}
   * @throws IllegalArgumentException for any other extension
   */
  public static TrainingSetFormat of(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".parquet")) {
      return PARQUET;
    }
    if (name.endsWith(".csv")) {
      return CSV;
    }
    if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
      return JSONL;
    }
    throw new IllegalArgumentException("cannot tell the format of '" + file.getFileName()
        + "': name the output file .parquet, .csv or .jsonl");
  }
}
