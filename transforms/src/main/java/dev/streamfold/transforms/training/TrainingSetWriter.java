package dev.streamfold.transforms.training;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Writes training-set rows to a file, streaming (memory does not grow with the rows): Parquet through
 * Parquet's own writer, CSV through Commons CSV, JSONL through Jackson. Values are normalized by
 * {@link #normalize}: timestamps are epoch milliseconds (UTC) in Parquet ({@code TIMESTAMP(MILLIS, UTC)})
 * and ISO-8601 instants in CSV and JSONL; DECIMAL values are written as plain-text strings. Not
 * thread-safe.
 */
public abstract class TrainingSetWriter implements AutoCloseable {
  protected final TrainingSetColumns columns;

  private TrainingSetWriter(TrainingSetColumns columns) {
    this.columns = columns;
  }

  /**
   * Open a writer.
   *
   * @param format the file format
   * @param file the file to create (replaced if it exists)
   * @param columns the columns
   * @return the writer
   * @throws IOException if the file cannot be created
   */
  public static TrainingSetWriter open(TrainingSetFormat format, Path file, TrainingSetColumns columns)
      throws IOException {
    return switch (format) {
      case PARQUET -> new Parquet(file, columns);
      case CSV -> new Csv(file, columns);
      case JSONL -> new Jsonl(file, columns);
    };
  }

  /**
   * Write one row.
   *
   * @param row one value per column, in column order; null for SQL NULL
   * @throws IOException if writing fails
   */
  public abstract void write(Object[] row) throws IOException;

  @Override
  public abstract void close() throws IOException;

  /**
   * Normalize a value of a SQL type: TIMESTAMP to epoch milliseconds (Long), DATE to days since epoch
   * (Integer), INT to Integer, BIGINT to Long, DOUBLE to Double, DECIMAL to its plain text; others as is.
   *
   * @param type the SQL type name
   * @param value the value as Flink produced it, or null
   * @return the normalized value, or null
   */
  public static Object normalize(String type, Object value) {
    if (value == null) {
      return null;
    }
    return switch (type) {
      case "TIMESTAMP" -> value instanceof LocalDateTime t ? t.toInstant(ZoneOffset.UTC).toEpochMilli()
          : value instanceof Instant i ? i.toEpochMilli() : ((Number) value).longValue();
      case "DATE" -> value instanceof LocalDate d ? (int) d.toEpochDay() : ((Number) value).intValue();
      case "INT" -> ((Number) value).intValue();
      case "BIGINT" -> ((Number) value).longValue();
      case "DOUBLE" -> ((Number) value).doubleValue();
      case "DECIMAL" -> value instanceof BigDecimal b ? b.toPlainString() : value.toString();
      case "BOOLEAN" -> value;
      default -> value.toString();
    };
  }

  /**
   * The CSV dialect of training sets: RFC 4180, numbers unquoted and every other value quoted
   * ({@link org.apache.commons.csv.QuoteMode#NON_NUMERIC}), SQL NULL an empty unquoted field.
   */
  public static final CSVFormat CSV_FORMAT = CSVFormat.RFC4180.builder()
      .setQuoteMode(org.apache.commons.csv.QuoteMode.NON_NUMERIC).get();

  /** Text of a normalized value for CSV (ISO-8601 for timestamps and dates). */
  static String text(String type, Object value) {
    return switch (type) {
      case "TIMESTAMP" -> Instant.ofEpochMilli((Long) value).toString();
      case "DATE" -> LocalDate.ofEpochDay((Integer) value).toString();
      default -> value.toString();
    };
  }

  /** The Parquet schema of training-set columns. */
  static MessageType parquetSchema(TrainingSetColumns columns) {
    Types.MessageTypeBuilder b = Types.buildMessage();
    for (int i = 0; i < columns.size(); i++) {
      String name = columns.names().get(i);
      switch (columns.types().get(i)) {
        case "BIGINT" -> b.optional(PrimitiveTypeName.INT64).named(name);
        case "INT" -> b.optional(PrimitiveTypeName.INT32).named(name);
        case "DOUBLE" -> b.optional(PrimitiveTypeName.DOUBLE).named(name);
        case "BOOLEAN" -> b.optional(PrimitiveTypeName.BOOLEAN).named(name);
        case "TIMESTAMP" -> b.optional(PrimitiveTypeName.INT64)
            .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS)).named(name);
        case "DATE" -> b.optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named(name);
        default -> b.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(name);
      }
    }
    return b.named("training_set");
  }

  private static final class Parquet extends TrainingSetWriter {
    private final ParquetWriter<Group> writer;
    private final SimpleGroupFactory groups;

    Parquet(Path file, TrainingSetColumns columns) throws IOException {
      super(columns);
      MessageType schema = parquetSchema(columns);
      groups = new SimpleGroupFactory(schema);
      writer = ExampleParquetWriter.builder(new LocalOutputFile(file))
          .withConf(new Configuration(false))
          .withType(schema)
          .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
          .withCompressionCodec(CompressionCodecName.SNAPPY)
          .build();
    }

    @Override
    public void write(Object[] row) throws IOException {
      Group g = groups.newGroup();
      for (int i = 0; i < row.length; i++) {
        Object v = row[i];
        if (v == null) {
          continue;
        }
        switch (columns.types().get(i)) {
          case "BIGINT", "TIMESTAMP" -> g.append(columns.names().get(i), (Long) v);
          case "INT", "DATE" -> g.append(columns.names().get(i), (Integer) v);
          case "DOUBLE" -> g.append(columns.names().get(i), (Double) v);
          case "BOOLEAN" -> g.append(columns.names().get(i), (Boolean) v);
          default -> g.append(columns.names().get(i), v.toString());
        }
      }
      writer.write(g);
    }

    @Override
    public void close() throws IOException {
      writer.close();
    }
  }

  private static final class Csv extends TrainingSetWriter {
    private final CSVPrinter printer;

    Csv(Path file, TrainingSetColumns columns) throws IOException {
      super(columns);
      BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
      // NON_NUMERIC: every value but a number is quoted, so SQL NULL (an empty field) and the empty string ("")
      // stay apart, as in PostgreSQL's CSV format; Commons CSV's parser in the same mode reads them back apart.
      // The header line is quoted only where RFC 4180 needs it: column names are not values.
      out.write(CSVFormat.RFC4180.format(columns.names().toArray()));
      out.write('\n');
      printer = new CSVPrinter(out, CSV_FORMAT.builder().setRecordSeparator("\n").get());
    }

    @Override
    public void write(Object[] row) throws IOException {
      Object[] texts = new Object[row.length];
      for (int i = 0; i < row.length; i++) {
        String type = columns.types().get(i);
        boolean number = type.equals("INT") || type.equals("BIGINT") || type.equals("DOUBLE");
        texts[i] = row[i] == null || number ? row[i] : text(type, row[i]); // a Number is written unquoted
      }
      printer.printRecord(texts);
    }

    @Override
    public void close() throws IOException {
      printer.close(true);
    }
  }

  private static final class Jsonl extends TrainingSetWriter {
    private final OutputStream out;
    private final JsonGenerator json;
    private boolean any;

    Jsonl(Path file, TrainingSetColumns columns) throws IOException {
      super(columns);
      out = new java.io.BufferedOutputStream(Files.newOutputStream(file));
      json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
      json.setRootValueSeparator(new com.fasterxml.jackson.core.io.SerializedString("\n"));
    }

    @Override
    public void write(Object[] row) throws IOException {
      any = true;
      json.writeStartObject();
      for (int i = 0; i < row.length; i++) {
        String name = columns.names().get(i);
        Object v = row[i];
        if (v == null) {
          json.writeNullField(name);
          continue;
        }
        switch (columns.types().get(i)) {
          case "BIGINT" -> json.writeNumberField(name, (Long) v);
          case "INT" -> json.writeNumberField(name, (Integer) v);
          case "DOUBLE" -> json.writeNumberField(name, (Double) v);
          case "BOOLEAN" -> json.writeBooleanField(name, (Boolean) v);
          default -> json.writeStringField(name, text(columns.types().get(i), v));
        }
      }
      json.writeEndObject();
    }

    @Override
    public void close() throws IOException {
      if (any) {
        json.writeRaw('\n'); // every line ends with one; an empty set is an empty file
      }
      json.close();
      out.close();
    }
  }
}
