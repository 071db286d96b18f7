package dev.streamfold.transforms.training;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.core.ClientText;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformException;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.math.BigDecimal;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

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
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A whole number as a BIGINT column holds one: no leading zeros, no {@code -0} (text keeps them as written). */
  private static final Pattern WHOLE = Pattern.compile("0|-?[1-9][0-9]{0,18}");
  /** A zone offset without its colon ({@code +0000}, as {@code strftime %z} writes it). */
  private static final Pattern COMPACT_OFFSET = Pattern.compile("(.*[T ].*[+-][0-9]{2})([0-9]{2})");
  /** A number as DuckDB and JSON write one, its integer part without leading zeros (so {@code 02134} is text). */
  private static final Pattern NUMBER = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?");

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
        case CSV -> csv(path, timeColumn.trim());
        case JSONL -> jsonl(path, timeColumn.trim());
        case PARQUET -> parquet(path);
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

  /** The earliest and latest label time, epoch ms; {@code {0, -1}} for no row. */
  long[] timeRange() {
    if (times.length == 0) {
      return new long[] {0, -1};
    }
    return new long[] {Arrays.stream(times).min().getAsLong(), Arrays.stream(times).max().getAsLong()};
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
  private record Table(List<String> names, List<String> types, List<Object[]> values, String rowWord) {
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
        json.put(TrainingSetPreparer.LABEL_ROW_COLUMN, true);
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

  private static Table csv(Path path, String timeColumn) throws IOException {
    CSVFormat format = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).setIgnoreEmptyLines(true)
        .get();
    try (BufferedReader in = withoutBom(Files.newBufferedReader(path, StandardCharsets.UTF_8));
        CSVParser parser = CSVParser.builder().setReader(in).setFormat(format).get()) {
      List<String> names = new ArrayList<>(parser.getHeaderNames());
      List<Object[]> values = new ArrayList<>();
      for (CSVRecord record : parser) {
        if (record.size() != names.size()) {
          throw new TransformException.InvalidTrainingSet("labels file " + path + ", row " + (values.size() + 1)
              + " (line " + record.getParser().getCurrentLineNumber() + "): " + record.size() + " fields, but the header"
              + " has " + names.size());
        }
        Object[] row = new Object[names.size()];
        for (int c = 0; c < row.length; c++) {
          String v = record.get(c);
          row[c] = v.isEmpty() ? null : v;
        }
        values.add(row);
      }
      return inferred(names, values, "row", timeColumn);
    }
  }

  private static Table jsonl(Path path, String timeColumn) throws IOException {
    List<String> names = new ArrayList<>();
    List<Map<String, Object>> objects = new ArrayList<>();
    try (BufferedReader in = withoutBom(Files.newBufferedReader(path, StandardCharsets.UTF_8))) {
      String line;
      int number = 0;
      while ((line = in.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        JsonNode node;
        try {
          node = JSON.readTree(line);
        } catch (JsonProcessingException e) {
          throw new TransformException.InvalidTrainingSet("labels file " + path + ", line " + number + ": not JSON: "
              + e.getOriginalMessage());
        }
        if (!node.isObject()) {
          throw new TransformException.InvalidTrainingSet("labels file " + path + ", line " + number + ": not a JSON"
              + " object");
        }
        Map<String, Object> object = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : node.properties()) {
          if (!names.contains(field.getKey())) {
            names.add(field.getKey());
          }
          JsonNode v = field.getValue();
          object.put(field.getKey(), v.isNull() ? null : v.isTextual() ? v.asText() : v.toString());
        }
        objects.add(object);
      }
    }
    List<Object[]> values = new ArrayList<>();
    for (Map<String, Object> object : objects) {
      Object[] row = new Object[names.size()];
      for (int c = 0; c < row.length; c++) {
        row[c] = object.get(names.get(c));
      }
      values.add(row);
    }
    return inferred(names, values, "line", timeColumn);
  }

  /** The reader past a UTF-8 byte order mark (as spreadsheets write one), if the text starts with one. */
  private static BufferedReader withoutBom(BufferedReader in) throws IOException {
    in.mark(1);
    if (in.read() != '\uFEFF') {
      in.reset();
    }
    return in;
  }

  /** Columns of text values typed by what every value looks like; the values converted. */
  private static Table inferred(List<String> names, List<Object[]> values, String rowWord, String timeColumn) {
    List<String> types = new ArrayList<>();
    for (int c = 0; c < names.size(); c++) {
      if (names.get(c).equals(timeColumn)) {
        types.add("STRING"); // its text is read as a timestamp (a number there is refused, not typed)
        continue;
      }
      boolean whole = true;
      boolean number = true;
      boolean bool = true;
      boolean allNull = true;
      boolean integralAsText = false;
      for (Object[] row : values) {
        if (row[c] == null) {
          continue;
        }
        allNull = false;
        String v = row[c].toString();
        boolean asBigint = WHOLE.matcher(v).matches() && fitsLong(v);
        whole &= asBigint;
        // a 20-digit id or -0 is kept as text, never rounded through a DOUBLE
        integralAsText |= !asBigint && v.matches("-?[0-9]+");
        number &= NUMBER.matcher(v).matches();
        bool &= v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false");
      }
      String type = whole ? "BIGINT" : number && !integralAsText ? "DOUBLE" : bool ? "BOOLEAN" : "STRING";
      types.add(allNull ? "STRING" : type);
      for (Object[] row : values) {
        if (row[c] != null && !allNull) {
          String v = row[c].toString();
          row[c] = switch (type) {
            case "BIGINT" -> Long.parseLong(v);
            case "DOUBLE" -> Double.parseDouble(v);
            case "BOOLEAN" -> Boolean.parseBoolean(v.toLowerCase(Locale.ROOT));
            default -> v;
          };
        }
      }
    }
    return new Table(names, types, values, rowWord);
  }

  private static boolean fitsLong(String v) {
    try {
      Long.parseLong(v);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static Table parquet(Path path) throws IOException {
    ParquetFileReader opened;
    try {
      opened = ParquetFileReader.open(new LocalInputFile(path));
    } catch (RuntimeException | IOException e) {
      throw new TransformException.InvalidTrainingSet("--labels-file " + path + ": not a Parquet file ("
          + (String.valueOf(e.getMessage()).contains("is not a Parquet file") ? "no Parquet magic number at its end"
          : e.getMessage()) + ")");
    }
    try (ParquetFileReader reader = opened) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      List<String> names = new ArrayList<>();
      List<String> types = new ArrayList<>();
      for (Type field : schema.getFields()) {
        names.add(field.getName());
        types.add(parquetType(path, field));
      }
      List<Object[]> values = new ArrayList<>();
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> records = new ColumnIOFactory().getColumnIO(schema)
            .getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          Group g = records.read();
          Object[] row = new Object[names.size()];
          for (int c = 0; c < row.length; c++) {
            if (g.getFieldRepetitionCount(c) > 0) {
              row[c] = parquetValue(schema.getType(c).asPrimitiveType(), types.get(c), g, c);
            }
          }
          values.add(row);
        }
      }
      return new Table(names, types, values, "row");
    }
  }

  /** A Parquet column's SQL type here; TIMESTAMP values are read as epoch ms. */
  private static String parquetType(Path path, Type field) {
    if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
      throw new TransformException.InvalidTrainingSet("labels file " + path + ": column " + field.getName() + " is a "
          + "list or group; labels files hold plain columns only");
    }
    PrimitiveType p = field.asPrimitiveType();
    LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
    return switch (p.getPrimitiveTypeName()) {
      case BOOLEAN -> "BOOLEAN";
      case INT32 -> logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation
          || logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation
          || logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation ? "STRING" : "INT";
      case INT64 -> logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ? "TIMESTAMP"
          : logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation
          || logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation ? "STRING" : "BIGINT";
      case FLOAT, DOUBLE -> "DOUBLE";
      case BINARY, FIXED_LEN_BYTE_ARRAY -> "STRING";
      case INT96 -> throw new TransformException.InvalidTrainingSet("labels file " + path + ": column "
          + field.getName() + " is an INT96 timestamp (a legacy Spark/Impala type); write it as TIMESTAMP"
          + " (pyarrow: coerce_timestamps='ms')");
    };
  }

  private static Object parquetValue(PrimitiveType p, String type, Group g, int c) {
    LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
    switch (p.getPrimitiveTypeName()) {
      case BOOLEAN:
        return g.getBoolean(c, 0);
      case INT32:
        if (logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
          return LocalDate.ofEpochDay(g.getInteger(c, 0)).toString();
        }
        if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
          return BigDecimal.valueOf(g.getInteger(c, 0), d.getScale()).toPlainString();
        }
        if (logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation) { // milliseconds of the day
          return java.time.LocalTime.ofNanoOfDay(g.getInteger(c, 0) * 1_000_000L).toString();
        }
        return (long) g.getInteger(c, 0);
      case INT64:
        if (logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts) {
          long v = g.getLong(c, 0);
          return switch (ts.getUnit()) {
            case MILLIS -> v;
            case MICROS -> Math.floorDiv(v, 1_000L);
            case NANOS -> Math.floorDiv(v, TimeUnit.MILLISECONDS.toNanos(1));
          };
        }
        if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
          return BigDecimal.valueOf(g.getLong(c, 0), d.getScale()).toPlainString();
        }
        if (logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation t) {
          long v = g.getLong(c, 0);
          return java.time.LocalTime.ofNanoOfDay(t.getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS ? v * 1_000L : v)
              .toString();
        }
        return g.getLong(c, 0);
      case FLOAT:
        return (double) g.getFloat(c, 0);
      case DOUBLE:
        return g.getDouble(c, 0);
      default:
        if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
          return new BigDecimal(new java.math.BigInteger(g.getBinary(c, 0).getBytes()), d.getScale()).toPlainString();
        }
        return g.getString(c, 0);
    }
  }

  @Override
  public String toString() {
    return path + " (" + rows.length + " rows, time column " + timeColumn + ")";
  }

}
