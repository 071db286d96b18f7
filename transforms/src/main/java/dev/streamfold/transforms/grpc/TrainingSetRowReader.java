package dev.streamfold.transforms.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.api.v1.TrainingSetRow;
import dev.streamfold.api.v1.TrainingSetValue;
import dev.streamfold.transforms.training.TrainingSetFormat;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Iterator;
import java.util.List;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

/**
 * Reads a finished training-set file back, one row at a time (memory does not grow with the rows):
 * Parquet with Parquet's own reader (one row group buffered as pages), CSV with Commons CSV, JSON Lines
 * with Jackson. Every format gives the same {@link TrainingSetValue}s for the same rows: STRING and
 * DECIMAL as text, INT and BIGINT as int64, DOUBLE as double, BOOLEAN as bool, TIMESTAMP as epoch
 * milliseconds (UTC), DATE as days since 1970-01-01, SQL NULL as {@code is_null} (in CSV an empty unquoted
 * field is null and a quoted {@code ""} the empty string, as the writer writes them). Not thread-safe.
 */
abstract class TrainingSetRowReader implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TrainingSetValue NULL = TrainingSetValue.newBuilder().setIsNull(true).build();

  protected final List<String> names;
  protected final List<String> types;

  private TrainingSetRowReader(List<String> names, List<String> types) {
    if (names.size() != types.size()) {
      throw new IllegalArgumentException("columns and types differ in length: " + names + " vs " + types);
    }
    this.names = List.copyOf(names);
    this.types = List.copyOf(types);
  }

  /**
   * Open a training-set file for reading; its extension picks the format.
   *
   * @param file the file
   * @param names column names, in file order (as the manifest lists them)
   * @param types SQL type per column, same order
   * @return the reader; close it
   * @throws IOException if the file cannot be opened or is not of its format
   * @throws IllegalArgumentException if the extension names no format, or names and types differ in length
   */
  static TrainingSetRowReader open(Path file, List<String> names, List<String> types) throws IOException {
    return switch (TrainingSetFormat.of(file)) {
      case PARQUET -> new Parquet(file, names, types);
      case CSV -> new Csv(file, names, types);
      case JSONL -> new Jsonl(file, names, types);
    };
  }

  /**
   * Read the next row.
   *
   * @return the row, one value per column; null after the last row
   * @throws IOException if reading fails or a value does not parse as its column's type
   */
  abstract TrainingSetRow next() throws IOException;

  @Override
  public abstract void close() throws IOException;

  /**
   * Convert a value written as text (CSV, or a JSON string) to its wire form.
   *
   * @param type the column's SQL type
   * @param text the text; null for SQL NULL (CSV's empty unquoted field, JSON's null); "" only for STRING
   * @return the value
   * @throws IllegalArgumentException if the text does not parse as the type
   */
  static TrainingSetValue fromText(String type, String text) {
    if (text == null) {
      return NULL;
    }
    TrainingSetValue.Builder v = TrainingSetValue.newBuilder();
    return switch (type) {
      case "INT", "BIGINT" -> v.setInt64Value(Long.parseLong(text)).build();
      case "DOUBLE" -> v.setDoubleValue(Double.parseDouble(text)).build();
      case "BOOLEAN" -> v.setBoolValue(Boolean.parseBoolean(text)).build();
      case "TIMESTAMP" -> v.setInt64Value(Instant.parse(text).toEpochMilli()).build();
      case "DATE" -> v.setInt64Value(LocalDate.parse(text).toEpochDay()).build();
      default -> v.setStringValue(text).build();
    };
  }

  final IOException unreadable(String where, int column, RuntimeException e) {
    return new IOException("cannot read " + where + ", column " + names.get(column) + " (" + types.get(column) + "): "
        + e.getMessage(), e);
  }

  private static final class Parquet extends TrainingSetRowReader {
    private final ParquetFileReader reader;
    private final MessageType schema;
    private final int[] fields;
    private RecordReader<Group> records;
    private long left;
    private long row;

    Parquet(Path file, List<String> names, List<String> types) throws IOException {
      super(names, types);
      reader = ParquetFileReader.open(new LocalInputFile(file));
      schema = reader.getFooter().getFileMetaData().getSchema();
      fields = new int[names.size()];
      for (int i = 0; i < fields.length; i++) {
        if (!schema.containsField(names.get(i))) {
          reader.close();
          throw new IOException(file + " has no column " + names.get(i) + "; its schema: " + schema);
        }
        fields[i] = schema.getFieldIndex(names.get(i));
      }
    }

    @Override
    TrainingSetRow next() throws IOException {
      while (left == 0) {
        PageReadStore pages = reader.readNextRowGroup();
        if (pages == null) {
          return null;
        }
        left = pages.getRowCount();
        records = new ColumnIOFactory().getColumnIO(schema).getRecordReader(pages, new GroupRecordConverter(schema));
      }
      Group g = records.read();
      left--;
      row++;
      TrainingSetRow.Builder out = TrainingSetRow.newBuilder();
      for (int i = 0; i < fields.length; i++) {
        int f = fields[i];
        if (g.getFieldRepetitionCount(f) == 0) {
          out.addValues(NULL);
          continue;
        }
        TrainingSetValue.Builder v = TrainingSetValue.newBuilder();
        try {
          switch (types.get(i)) {
            case "BIGINT", "TIMESTAMP" -> v.setInt64Value(g.getLong(f, 0));
            case "INT", "DATE" -> v.setInt64Value(g.getInteger(f, 0));
            case "DOUBLE" -> v.setDoubleValue(g.getDouble(f, 0));
            case "BOOLEAN" -> v.setBoolValue(g.getBoolean(f, 0));
            default -> v.setStringValue(g.getString(f, 0));
          }
        } catch (RuntimeException e) {
          throw unreadable("Parquet row " + row, i, e);
        }
        out.addValues(v);
      }
      return out.build();
    }

    @Override
    public void close() throws IOException {
      reader.close();
    }
  }

  private static final class Csv extends TrainingSetRowReader {
    private final CSVParser parser;
    private final Iterator<CSVRecord> records;

    Csv(Path file, List<String> names, List<String> types) throws IOException {
      super(names, types);
      Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
      parser = CSVParser.builder().setReader(in)
          .setFormat(dev.streamfold.transforms.training.TrainingSetWriter.CSV_FORMAT.builder().setHeader()
              .setSkipHeaderRecord(true).get()).get();
      if (!parser.getHeaderNames().equals(names)) {
        parser.close();
        throw new IOException(file + " has the header " + parser.getHeaderNames() + ", expected " + names);
      }
      records = parser.iterator();
    }

    @Override
    TrainingSetRow next() throws IOException {
      if (!records.hasNext()) {
        return null;
      }
      CSVRecord record = records.next();
      TrainingSetRow.Builder out = TrainingSetRow.newBuilder();
      for (int i = 0; i < names.size(); i++) {
        // an empty unquoted field is null (NON_NUMERIC mode); "" is the empty string. Files written before
        // this dialect had both unquoted, so their empty strings read as null, as they did then.
        String text = i < record.size() ? record.get(i) : null;
        try {
          out.addValues(fromText(types.get(i), text == null || (text.isEmpty() && !types.get(i).equals("STRING"))
              ? null : text));
        } catch (RuntimeException e) {
          throw unreadable("CSV line " + record.getRecordNumber(), i, e);
        }
      }
      return out.build();
    }

    @Override
    public void close() throws IOException {
      parser.close();
    }
  }

  private static final class Jsonl extends TrainingSetRowReader {
    private final BufferedReader lines;
    private long line;

    Jsonl(Path file, List<String> names, List<String> types) throws IOException {
      super(names, types);
      lines = Files.newBufferedReader(file, StandardCharsets.UTF_8);
    }

    @Override
    TrainingSetRow next() throws IOException {
      String text;
      do {
        text = lines.readLine();
        line++;
        if (text == null) {
          return null;
        }
      } while (text.isBlank());
      JsonNode node = JSON.readTree(text);
      TrainingSetRow.Builder out = TrainingSetRow.newBuilder();
      for (int i = 0; i < names.size(); i++) {
        JsonNode value = node.get(names.get(i));
        try {
          if (value == null || value.isNull()) {
            out.addValues(NULL);
          } else if (value.isTextual()) {
            out.addValues(fromText(types.get(i), value.asText()));
          } else {
            TrainingSetValue.Builder v = TrainingSetValue.newBuilder();
            switch (types.get(i)) {
              case "INT", "BIGINT", "TIMESTAMP", "DATE" -> v.setInt64Value(value.longValue());
              case "DOUBLE" -> v.setDoubleValue(value.doubleValue());
              case "BOOLEAN" -> v.setBoolValue(value.booleanValue());
              default -> v.setStringValue(value.asText());
            }
            out.addValues(v);
          }
        } catch (RuntimeException e) {
          throw unreadable("JSON line " + line, i, e);
        }
      }
      return out.build();
    }

    @Override
    public void close() throws IOException {
      lines.close();
    }
  }
}
