package dev.streamfold.transforms.training;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.core.ClientText;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A training set's labels from a file (Feast's entity dataframe): a CSV (with a header line), JSON Lines or Parquet
 * file, chosen by its extension, whose rows each hold a timestamp ({@code --time}) and any entity and label columns.
 * Read whole and checked before a build starts: every column has one SQL type and every row a timestamp, else the
 * file is refused naming the row and column. A build keeps every column as it is, in file order.
 *
 * <p>Column types: Parquet's own (INT32 INT, INT64 BIGINT, FLOAT and DOUBLE DOUBLE, BOOLEAN, a string STRING, a
 * TIMESTAMP of any unit TIMESTAMP in milliseconds, a DATE or DECIMAL as its text STRING). CSV and JSON Lines are
 * read as DuckDB reads them, by what every value of a column looks like: whole numbers BIGINT, other numbers DOUBLE,
 * {@code true}/{@code false} BOOLEAN, anything else STRING; a column with a whole number that a BIGINT would not keep
 * as written (a leading zero as in {@code 02134}, {@code -0}, more than 19 digits) is STRING; a JSON object or array is
 * its JSON text. An empty CSV field and a JSON null or absent field are null.
 * The time column is read as a timestamp: ISO-8601 text with a zone ({@code 2001-01-08T00:01:00Z}, {@code +02:00}),
 * without one (UTC; a space may replace the {@code T}) or a date alone (midnight UTC), or a Parquet TIMESTAMP or
 * DATE. Numbers are refused there: epoch seconds and milliseconds look alike.
 */
public final class LabelsFile {
  /** A zone offset without its colon ({@code +0000}, as {@code strftime %z} writes it). */
  private static final Pattern COMPACT_OFFSET = Pattern.compile("(.*[T ].*[+-][0-9]{2})([0-9]{2})");
  /** A number as DuckDB and JSON write one, its integer part without leading zeros (so {@code 02134} is text). */
  static final Pattern NUMBER = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?");

  private final Path path;
  private final String timeColumn;
  private final List<StreamColumn> columns;
  /** Per row, in file order: the label time (epoch ms) and the row as a JSON object of its columns. */
  private final long[] times;
  private final String[] rows;
  private String sha256;

  private LabelsFile(Path path, String timeColumn, List<StreamColumn> columns, long[] times, String[] rows) {
    this.path = path;
    this.timeColumn = timeColumn;
    this.columns = List.copyOf(columns);
    this.times = times;
    this.rows = rows;
  }

  /** The formats, by file extension. */
  enum Format { CSV, JSONL, PARQUET }

  /**
   * The format a labels file's extension names.
   *
   * @param path the file
   * @return its format
   * @throws TransformException.InvalidTrainingSet for another extension
   */
  static Format format(Path path) {
    String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".csv")) {
      return Format.CSV;
    } else if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
      return Format.JSONL;
    } else if (name.endsWith(".parquet")) {
      return Format.PARQUET;
    }
    throw new TransformException.InvalidTrainingSet("--labels-file " + path + ": the extension says no format; use .csv,"
        + " .jsonl (or .ndjson) or .parquet");
  }

  /**
   * Read and check a labels file.
   *
   * @param path the file
   * @param timeColumn the column holding each row's timestamp
   * @return the file's columns and rows
   * @throws TransformException.InvalidTrainingSet if the file cannot be read, is empty of columns, lacks the time
   *     column, has a column name that is not an identifier (or starts with '_', which Streamfold's own columns
   *     use), a row whose time is missing or unparsable, or a value of another type than its column's (Parquet);
   *     the message names the file, row and column
   */
  public static LabelsFile read(Path path, String timeColumn) {
    if (timeColumn == null || timeColumn.isBlank()) {
      throw new TransformException.InvalidTrainingSet("--time is required with --labels-file: the column holding each"
          + " row's timestamp");
    }
    Format format = format(path);
    if (!Files.isRegularFile(path)) {
      throw new TransformException.InvalidTrainingSet("--labels-file " + path + ": no such file");
    }
    try {
      Table table = switch (format) {
        case CSV -> LabelsFileReaders.csv(path, timeColumn.trim());
        case JSONL -> LabelsFileReaders.jsonl(path, timeColumn.trim());
        case PARQUET -> LabelsFileReaders.parquet(path);
      };
      return table.toLabels(path, timeColumn.trim());
    } catch (IOException | RuntimeException e) {
      if (e instanceof TransformException) {
        throw (TransformException) e;
      }
      throw new TransformException.InvalidTrainingSet("--labels-file " + path + ": cannot read it as "
          + format.name().toLowerCase(Locale.ROOT) + ": " + e.getMessage());
    }
  }

  /**
   * Where a build reads its labels file: a relative path under {@code trainingSets} (the server's
   * {@code training-sets/}); for a tenant token's request one in {@code training-sets/<tenant>/} once resolved
   * (symbolic links followed), so that no tenant reads another's files or the server's.
   *
   * @param labels the request's labels file
   * @param trainingSets the server's training-sets directory
   * @return the path to read
   * @throws TransformException.InvalidTrainingSet if a tenant's file is elsewhere
   */
  static Path locate(TrainingSetSpec.FileLabels labels, Path trainingSets) {
    Path given = Path.of(labels.path());
    Path path = (given.isAbsolute() ? given : trainingSets.resolve(given)).normalize();
    if (labels.confinedTo() == null) {
      return path;
    }
    Path home = trainingSets.resolve(labels.confinedTo()).normalize();
    Path real = path;
    try {
      real = path.toRealPath();
      home = home.toRealPath();
    } catch (IOException e) {
      // a missing file is refused by read, naming it; a missing home holds no file
    }
    if (!real.startsWith(home)) {
      throw new TransformException.InvalidTrainingSet("--labels-file " + labels.path() + ": with a tenant token a"
          + " labels file is read from the server's training-sets/" + labels.confinedTo() + "/ directory (" + home
          + "); put it there (any path needs the admin token)");
    }
    return path;
  }

  /**
   * Whether {@code other} names this file (both resolved when it exists): a build may not write its output over it.
   *
   * @param other a path
   * @return true when it is this file
   */
  boolean isAt(Path other) {
    try {
      return Files.exists(other) && Files.isSameFile(other, path)
          || other.toAbsolutePath().normalize().equals(path.toAbsolutePath().normalize());
    } catch (IOException e) {
      return false;
    }
  }

  /** The file. */
  public Path path() {
    return path;
  }

  /** The time column's name. */
  public String timeColumn() {
    return timeColumn;
  }

  /** Every column, in file order, with its SQL type (the time column TIMESTAMP); none required. */
  public List<StreamColumn> columns() {
    return columns;
  }

  /**
   * The SHA-256 of the file's bytes as hex, computed on first use: the manifest records it, so a rebuild can tell
   * whether it reads the same file.
   *
   * @throws java.io.UncheckedIOException if the file cannot be read
   */
  public String sha256() {
    if (sha256 == null) {
      try (java.io.InputStream in = Files.newInputStream(path)) {
        java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
        byte[] buffer = new byte[1 << 16];
        for (int n; (n = in.read(buffer)) > 0; ) {
          digest.update(buffer, 0, n);
        }
        sha256 = java.util.HexFormat.of().formatHex(digest.digest());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
    return sha256;
  }

  /** The number of rows. */
  public int rows() {
    return rows.length;
  }



  /**
   * Write the rows in the order a build takes them, by time (ties in file order), one line each: the time in epoch
   * milliseconds, a tab, the row as a JSON object ({@link LabelRows} reads it).
   *
   * @param out the file to write
   * @throws IOException if it cannot be written
   */
  void writeInTimeOrder(Path out) throws IOException {
    Integer[] order = new Integer[rows.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> times[a] != times[b] ? Long.compare(times[a], times[b]) : Integer.compare(a, b));
    try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      for (int i : order) {
        w.write(Long.toString(times[i]));
        w.write('\t');
        w.write(rows[i]);
        w.write('\n');
      }
    }
  }

  /** The file as read: column names in order, their types, and each row's values (null, String, Long, Double,
   * Boolean, or epoch-ms Long for a Parquet TIMESTAMP column). */
  record Table(List<String> names, List<String> types, List<Object[]> values, String rowWord) {
    LabelsFile toLabels(Path path, String timeColumn) {
      if (names.isEmpty()) {
        throw new TransformException.InvalidTrainingSet("--labels-file " + path + ": no columns");
      }
      java.util.Set<String> seen = new java.util.HashSet<>();
      for (String name : names) {
        if (!seen.add(name.toLowerCase(Locale.ROOT))) {
          throw new TransformException.InvalidTrainingSet("labels file " + path + ": column " + ClientText.quote(name)
              + " appears twice (names are compared ignoring case, as SQL and DuckDB compare them); rename one");
        }
      }
      int time = names.indexOf(timeColumn);
      if (time < 0) {
        throw new TransformException.InvalidTrainingSet("--time " + ClientText.quote(timeColumn) + ": labels file " + path
            + " has no such column; its columns: " + names);
      }
      List<StreamColumn> columns = new ArrayList<>();
      for (int c = 0; c < names.size(); c++) {
        String name = names.get(c);
        if (name.startsWith("_")) {
          throw new TransformException.InvalidTrainingSet("labels file " + path + ": column " + ClientText.quote(name)
              + " starts with '_', which Streamfold's own columns use (_event_time, _message_id, ...); rename it");
        }
        try {
          columns.add(new StreamColumn(name, c == time ? "TIMESTAMP" : types.get(c)));
        } catch (IllegalArgumentException e) {
          throw new TransformException.InvalidTrainingSet("labels file " + path + ": " + e.getMessage());
        }
      }
      long[] times = new long[values.size()];
      String[] rows = new String[values.size()];
      for (int r = 0; r < values.size(); r++) {
        Object[] row = values.get(r);
        String where = "labels file " + path + ", " + rowWord + " " + (r + 1) + ", column " + timeColumn;
        if (row[time] == null) {
          throw new TransformException.InvalidTrainingSet(where + ": no timestamp; every row needs one");
        }
        times[r] = switch (types.get(time)) {
          case "TIMESTAMP" -> (Long) row[time];
          case "STRING" -> timestamp(where, row[time].toString());
          default -> throw new TransformException.InvalidTrainingSet(where + ": a " + types.get(time) + " column; give"
              + " the time as a TIMESTAMP column or ISO-8601 text, e.g. 2001-01-08T00:01:00Z (epoch seconds and"
              + " milliseconds look alike)");
        };
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        for (int c = 0; c < names.size(); c++) {
          Object v = c == time ? Long.valueOf(times[r]) : row[c];
          String type = c == time ? "TIMESTAMP" : types.get(c);
          if (v == null) {
            json.putNull(names.get(c));
          } else {
            switch (type) {
              case "BIGINT", "INT", "TIMESTAMP" -> json.put(names.get(c), ((Number) v).longValue());
              case "DOUBLE" -> json.put(names.get(c), ((Number) v).doubleValue());
              case "BOOLEAN" -> json.put(names.get(c), (Boolean) v);
              default -> json.put(names.get(c), v.toString());
            }
          }
        }
        rows[r] = json.toString();
      }
      return new LabelsFile(path, timeColumn, columns, times, rows);
    }
  }

  /**
   * A label time written as text, epoch ms.
   *
   * @throws TransformException.InvalidTrainingSet naming {@code where} when it is not ISO-8601
   */
  static long timestamp(String where, String text) {
    String t = text.trim();
    if (NUMBER.matcher(t).matches()) {
      throw new TransformException.InvalidTrainingSet(where + ": " + ClientText.quote(t) + " is a number; give the time"
          + " as ISO-8601 text, e.g. 2001-01-08T00:01:00Z (epoch seconds and milliseconds look alike)");
    }
    String iso = t.length() > 10 && t.charAt(10) == ' ' ? t.substring(0, 10) + 'T' + t.substring(11) : t;
    java.util.regex.Matcher compact = COMPACT_OFFSET.matcher(iso);
    if (compact.matches()) {
      iso = compact.group(1) + ':' + compact.group(2);
    }
    try {
      return OffsetDateTime.parse(iso).toInstant().toEpochMilli();
    } catch (DateTimeParseException notOffset) {
      try {
        return LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC).toEpochMilli();
      } catch (DateTimeParseException notLocal) {
        try {
          return LocalDate.parse(iso).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeParseException notDate) {
          throw new TransformException.InvalidTrainingSet(where + ": cannot read " + ClientText.quote(t) + " as a"
              + " timestamp; give ISO-8601, e.g. 2001-01-08T00:01:00Z, 2001-01-08 00:01:00 (UTC) or 2001-01-08");
        }
      }
    }
  }

  @Override
  public String toString() {
    return path + " (" + rows.length + " rows, time column " + timeColumn + ")";
  }

}
