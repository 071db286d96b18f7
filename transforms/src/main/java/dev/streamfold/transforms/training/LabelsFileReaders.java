package dev.streamfold.transforms.training;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.transforms.TransformException;
import java.io.BufferedReader;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
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
 * Reads a labels file of each format into its columns, their SQL types and its rows' values ({@link LabelsFile}
 * checks them and says the rules): CSV with Commons CSV, JSON Lines with Jackson, Parquet with Parquet's reader.
 */
final class LabelsFileReaders {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A whole number as a BIGINT column holds one: no leading zeros, no {@code -0} (text keeps them as written). */
  private static final Pattern WHOLE = Pattern.compile("0|-?[1-9][0-9]{0,18}");

  private LabelsFileReaders() {}

  static LabelsFile.Table csv(Path path, String timeColumn) throws IOException {
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

  static LabelsFile.Table jsonl(Path path, String timeColumn) throws IOException {
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
  private static LabelsFile.Table inferred(List<String> names, List<Object[]> values, String rowWord, String timeColumn) {
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
        number &= LabelsFile.NUMBER.matcher(v).matches();
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
    return new LabelsFile.Table(names, types, values, rowWord);
  }

  private static boolean fitsLong(String v) {
    try {
      Long.parseLong(v);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  static LabelsFile.Table parquet(Path path) throws IOException {
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
      return new LabelsFile.Table(names, types, values, "row");
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
}
