package dev.streamfold.cli.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.EnumLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.JsonLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.StringLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.UUIDLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Reads a Parquet file with Apache Parquet's own Java reader ({@link ParquetReader} over
 * {@link GroupReadSupport}, from a {@link LocalInputFile}: no Hadoop file system). Flat schemas only.
 *
 * <p>Values by Parquet type: integers as JSON integers; FLOAT/DOUBLE as numbers (NaN and infinities make the row
 * bad: JSON cannot hold them); BOOLEAN; strings
 * (STRING, ENUM, JSON, UUID) as text; DECIMAL as an exact decimal number; other binaries as base64
 * text. Time types become ISO-8601 text in UTC: a TIMESTAMP (MILLIS, MICROS or NANOS; INT96 too) is a
 * local date-time such as {@code 2001-01-01T00:01:00} (fractions only when non-zero), a DATE is
 * {@code 2001-01-01}, a TIME is {@code 00:01:00}. Such a text is what a stream's TIMESTAMP column and
 * the {@code --time} option accept.
 */
final class ParquetRowReader implements RowReader {
  private static final long JULIAN_DAY_OF_EPOCH = 2_440_588L;

  private final Path file;
  private final ParquetReader<Group> reader;
  private final long totalRows;
  private final String[] names;
  private final Converter[] converters;
  private long row;

  ParquetRowReader(Path file) throws IOException {
    this.file = file;
    InputFile input = new LocalInputFile(file);
    MessageType schema;
    try (ParquetFileReader footer = ParquetFileReader.open(input)) {
      schema = footer.getFooter().getFileMetaData().getSchema();
      totalRows = footer.getRecordCount();
    } catch (RuntimeException | IOException e) {
      // Parquet says "... is not a Parquet file. Expected magic number at tail ..." as a RuntimeException
      // its message names the file as Parquet's LocalInputFile@1ab6718: say the path instead
      String why = String.valueOf(e.getMessage()).replaceAll("\\S*LocalInputFile@[0-9a-f]+", "the file");
      throw new InputException(file.toString(), 0, "not a readable Parquet file (" + why + ")");
    }
    names = new String[schema.getFieldCount()];
    converters = new Converter[schema.getFieldCount()];
    for (int i = 0; i < names.length; i++) {
      Type field = schema.getType(i);
      names[i] = field.getName();
      if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
        throw new InputException(file.toString(), 0, "column '" + field.getName()
            + "' is a nested or repeated Parquet type; only flat columns are supported");
      }
      converters[i] = converter(field.asPrimitiveType());
    }
    reader = new GroupReaderBuilder(input).build();
  }

  /** The file's schema as Parquet prints it. */
  static MessageType schema(Path file) throws IOException {
    try (ParquetFileReader footer = ParquetFileReader.open(new LocalInputFile(file))) {
      return footer.getFooter().getFileMetaData().getSchema();
    }
  }

  @Override
  public ObjectNode next() throws IOException {
    Group group = reader.read();
    if (group == null) {
      return null;
    }
    row++;
    ObjectNode node = Json.NODES.objectNode();
    for (int i = 0; i < names.length; i++) {
      if (group.getFieldRepetitionCount(i) == 0) {
        node.putNull(names[i]);
      } else {
        converters[i].put(group, i, node, names[i]);
        com.fasterxml.jackson.databind.JsonNode value = node.get(names[i]);
        if (value.isFloatingPointNumber() && !Double.isFinite(value.doubleValue())) {
          // Jackson would write it as the text "NaN": another value than the file's
          throw new InputException(where(), row, "column '" + names[i] + "' value " + value.doubleValue() + " is not"
              + " a finite number, which JSON (the event's payload) cannot hold");
        }
      }
    }
    return node;
  }

  @Override
  public long rowNumber() {
    return row;
  }

  @Override
  public String where() {
    return file + " row " + row;
  }

  @Override
  public long totalRows() {
    return totalRows;
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }

  /** Puts one non-null value of a group's field into a JSON object. */
  @FunctionalInterface
  private interface Converter {
    void put(Group group, int field, ObjectNode node, String name);
  }

  private static Converter converter(PrimitiveType type) {
    LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
    switch (type.getPrimitiveTypeName()) {
      case BOOLEAN:
        return (g, f, n, name) -> n.put(name, g.getBoolean(f, 0));
      case FLOAT:
        return (g, f, n, name) -> n.put(name, g.getFloat(f, 0));
      case DOUBLE:
        return (g, f, n, name) -> n.put(name, g.getDouble(f, 0));
      case INT32:
        if (logical instanceof DateLogicalTypeAnnotation) {
          return (g, f, n, name) -> n.put(name, LocalDate.ofEpochDay(g.getInteger(f, 0)).toString());
        }
        if (logical instanceof TimeLogicalTypeAnnotation) {
          return (g, f, n, name) -> n.put(name, LocalTime.ofNanoOfDay(g.getInteger(f, 0) * 1_000_000L).toString());
        }
        if (logical instanceof DecimalLogicalTypeAnnotation d) {
          return (g, f, n, name) -> n.put(name, BigDecimal.valueOf(g.getInteger(f, 0), d.getScale()));
        }
        if (logical instanceof IntLogicalTypeAnnotation i && !i.isSigned()) {
          return (g, f, n, name) -> n.put(name, Integer.toUnsignedLong(g.getInteger(f, 0)));
        }
        return (g, f, n, name) -> n.put(name, g.getInteger(f, 0));
      case INT64:
        if (logical instanceof TimestampLogicalTypeAnnotation ts) {
          long nanosPerUnit = nanosPerUnit(ts.getUnit());
          return (g, f, n, name) -> n.put(name, timestampText(g.getLong(f, 0), nanosPerUnit));
        }
        if (logical instanceof TimeLogicalTypeAnnotation t) {
          long nanosPerUnit = nanosPerUnit(t.getUnit());
          return (g, f, n, name) -> n.put(name, LocalTime.ofNanoOfDay(g.getLong(f, 0) * nanosPerUnit).toString());
        }
        if (logical instanceof DecimalLogicalTypeAnnotation d) {
          return (g, f, n, name) -> n.put(name, BigDecimal.valueOf(g.getLong(f, 0), d.getScale()));
        }
        if (logical instanceof IntLogicalTypeAnnotation i && !i.isSigned()) {
          return (g, f, n, name) -> n.put(name, new BigInteger(Long.toUnsignedString(g.getLong(f, 0))));
        }
        return (g, f, n, name) -> n.put(name, g.getLong(f, 0));
      case INT96:
        return (g, f, n, name) -> n.put(name, int96Text(g.getInt96(f, 0)));
      case BINARY:
      case FIXED_LEN_BYTE_ARRAY:
        if (logical instanceof StringLogicalTypeAnnotation || logical instanceof EnumLogicalTypeAnnotation
            || logical instanceof JsonLogicalTypeAnnotation) {
          return (g, f, n, name) -> n.put(name, g.getString(f, 0));
        }
        if (logical instanceof DecimalLogicalTypeAnnotation d) {
          return (g, f, n, name) ->
              n.put(name, new BigDecimal(new BigInteger(g.getBinary(f, 0).getBytes()), d.getScale()));
        }
        if (logical instanceof UUIDLogicalTypeAnnotation) {
          return (g, f, n, name) -> {
            ByteBuffer b = g.getBinary(f, 0).toByteBuffer();
            n.put(name, new java.util.UUID(b.getLong(), b.getLong()).toString());
          };
        }
        return (g, f, n, name) -> n.put(name, Base64.getEncoder().encodeToString(g.getBinary(f, 0).getBytes()));
      default:
        throw new IllegalArgumentException("unsupported Parquet type " + type);
    }
  }

  private static long nanosPerUnit(TimeUnit unit) {
    return switch (unit) {
      case MILLIS -> 1_000_000L;
      case MICROS -> 1_000L;
      case NANOS -> 1L;
    };
  }

  /**
   * Render a timestamp as an ISO-8601 local date-time in UTC.
   *
   * @param value the timestamp in units since 1970-01-01T00:00:00
   * @param nanosPerUnit nanoseconds per unit (1,000 for MICROS)
   * @return e.g. {@code 2001-01-01T00:01:00}
   */
  static String timestampText(long value, long nanosPerUnit) {
    long unitsPerSecond = 1_000_000_000L / nanosPerUnit;
    long seconds = Math.floorDiv(value, unitsPerSecond);
    long nanos = Math.floorMod(value, unitsPerSecond) * nanosPerUnit;
    return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(LocalDateTime.ofEpochSecond(seconds, (int) nanos, ZoneOffset.UTC));
  }

  private static String int96Text(Binary value) {
    ByteBuffer b = value.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    long nanosOfDay = b.getLong();
    long julianDay = Integer.toUnsignedLong(b.getInt());
    long epochDay = julianDay - JULIAN_DAY_OF_EPOCH;
    long seconds = epochDay * 86_400L + nanosOfDay / 1_000_000_000L;
    return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
        LocalDateTime.ofEpochSecond(seconds, (int) (nanosOfDay % 1_000_000_000L), ZoneOffset.UTC));
  }

  /** A ParquetReader builder over a plain {@link InputFile} with the example Group model. */
  private static final class GroupReaderBuilder extends ParquetReader.Builder<Group> {
    GroupReaderBuilder(InputFile file) {
      super(file, new PlainParquetConfiguration());
    }

    @Override
    protected ReadSupport<Group> getReadSupport() {
      return new GroupReadSupport();
    }
  }
}
