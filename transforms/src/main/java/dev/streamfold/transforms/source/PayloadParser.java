package dev.streamfold.transforms.source;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.schema.StreamColumn;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;

/**
 * Turns an event's payload into a SQL row: the stream's declared columns in order, then the metadata
 * columns {@value #KEY_COLUMN} (event key) and {@value #EVENT_TIME_COLUMN} (event time, UTC). A
 * missing field, JSON null or a value that does not fit the column type is SQL NULL (ingestion already
 * rejects wrongly typed values of declared columns).
 *
 * <p>Two outputs with the same values: {@link #toRow} (external {@link Row}, used by planning and training
 * sets) and {@link #toRowData} (Flink's internal {@link RowData}, used by view jobs and replays: the SQL
 * reads it without a Row to RowData conversion, and a flat payload's bytes are scanned directly).
 */
public final class PayloadParser implements EventConverter<Row> {
  /** Metadata column holding the event key. */
  public static final String KEY_COLUMN = "_key";
  /** Metadata column holding the event time as TIMESTAMP(3), UTC. */
  public static final String EVENT_TIME_COLUMN = "_event_time";
  /** Metadata column of ledger-clock rows (training sets): the event's message ID text. */
  public static final String MESSAGE_ID_COLUMN = "_message_id";
  /**
   * Metadata rowtime column of ledger-clock rows: the event's sequence id (its ordinal in the stream) as
   * a TIMESTAMP_LTZ(3) of that many milliseconds, with the source's per-event watermarks.
   */
  public static final String LEDGER_TIME_COLUMN = "_ledger_time";

  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String[] names;
  private final String[] types;
  /** Per declared column: its DEFAULT as JSON text (events without the field are read with it), or null. */
  private final String[] defaults;
  private transient Object[] defaultValues;
  /** Per declared column: whether it is parsed (columns no query reads stay NULL, unparsed). */
  private final boolean[] read;
  private transient Map<String, Integer> indexes;
  /** The byte scan of flat JSON objects (built on first use). */
  private transient FlatJsonScanner scanner;
  /** Per declared column: its DEFAULT as an internal value (for {@link #toRowData}). */
  private transient Object[] defaultInternal;

  /**
   * A parser of every declared column.
   *
   * @param columns the stream's declared columns
   */
  public PayloadParser(List<StreamColumn> columns) {
    this(columns, null);
  }

  /**
   * A parser of the declared columns some SQL reads; the others are NULL in every row, which saves
   * parsing them (parsing was the largest cost of a backfill; docs/performance.md).
   *
   * @param columns the stream's declared columns
   * @param read the names of the columns to parse, as the optimized plans of the SQL that reads the rows
   *     found them ({@link dev.streamfold.transforms.sql.SqlPlanner#analyze}); null parses every column
   */
  public PayloadParser(List<StreamColumn> columns, java.util.Set<String> read) {
    names = columns.stream().map(StreamColumn::name).toArray(String[]::new);
    types = columns.stream().map(StreamColumn::type).toArray(String[]::new);
    defaults = columns.stream().map(StreamColumn::defaultJson).toArray(String[]::new);
    this.read = new boolean[names.length];
    for (int i = 0; i < names.length; i++) {
      this.read[i] = read == null || read.contains(names[i]);
    }
  }

  /** The row type: declared columns, then {@code _key}, {@code _event_time}. */
  public RowTypeInfo rowType() {
    TypeInformation<?>[] infos = new TypeInformation<?>[names.length + 2];
    String[] fieldNames = new String[names.length + 2];
    for (int i = 0; i < names.length; i++) {
      infos[i] = typeInfo(types[i]);
      fieldNames[i] = names[i];
    }
    infos[names.length] = Types.STRING;
    fieldNames[names.length] = KEY_COLUMN;
    infos[names.length + 1] = Types.LOCAL_DATE_TIME;
    fieldNames[names.length + 1] = EVENT_TIME_COLUMN;
    return new RowTypeInfo(infos, fieldNames);
  }

  /**
   * The internal type of {@link #toRowData}'s rows: the logical types of {@link #schema()} (declared
   * columns, then {@code _key}, {@code _event_time}), as Flink's {@link RowData}.
   *
   * @return the type information
   */
  public InternalTypeInfo<RowData> rowDataType() {
    LogicalType[] logical = new LogicalType[names.length + 2];
    String[] fieldNames = new String[names.length + 2];
    for (int i = 0; i < names.length; i++) {
      logical[i] = dataType(types[i]).getLogicalType();
      fieldNames[i] = names[i];
    }
    logical[names.length] = DataTypes.STRING().getLogicalType();
    fieldNames[names.length] = KEY_COLUMN;
    logical[names.length + 1] = DataTypes.TIMESTAMP(3).getLogicalType();
    fieldNames[names.length + 1] = EVENT_TIME_COLUMN;
    return InternalTypeInfo.of(RowType.of(logical, fieldNames));
  }

  /**
   * This parser as the converter of a view job or replay: each event becomes {@link #toRowData}'s row.
   *
   * @return the converter (not for ledger-clock jobs, which read {@link Row}s)
   */
  public EventConverter<RowData> rowDataConverter() {
    return (event, ledgerClock) -> {
      if (ledgerClock) {
        throw new IllegalStateException("ledger-clock rows are Rows (toRow), not RowData");
      }
      return toRowData(event);
    };
  }

  /** The SQL schema of the row type, with TIMESTAMP(3) for timestamps. */
  public Schema schema() {
    Schema.Builder b = Schema.newBuilder();
    for (int i = 0; i < names.length; i++) {
      b.column(names[i], dataType(types[i]));
    }
    b.column(KEY_COLUMN, DataTypes.STRING());
    b.column(EVENT_TIME_COLUMN, DataTypes.TIMESTAMP(3));
    return b.build();
  }

  /**
   * The SQL schema of event-time rows (views with event-time windows): {@link #schema()} with
   * {@code _event_time} as the rowtime attribute and the {@link dev.streamfold.transforms.job.PositionTracker}'s watermarks.
   */
  public Schema eventTimeSchema() {
    return Schema.newBuilder().fromSchema(schema()).watermark(EVENT_TIME_COLUMN, "SOURCE_WATERMARK()").build();
  }

  /** The row type of ledger-clock rows: {@link #rowType()} then {@code _message_id}. */
  public RowTypeInfo ledgerClockRowType() {
    RowTypeInfo base = rowType();
    TypeInformation<?>[] infos = java.util.Arrays.copyOf(base.getFieldTypes(), base.getArity() + 1);
    String[] fieldNames = java.util.Arrays.copyOf(base.getFieldNames(), base.getArity() + 1);
    infos[base.getArity()] = Types.STRING;
    fieldNames[base.getArity()] = MESSAGE_ID_COLUMN;
    return new RowTypeInfo(infos, fieldNames);
  }

  /**
   * The SQL schema of ledger-clock rows: {@link #schema()}, {@code _message_id}, and the rowtime
   * {@code _ledger_time} read from the records' timestamps, with the source's watermarks.
   */
  public Schema ledgerClockSchema() {
    Schema.Builder b = Schema.newBuilder().fromSchema(schema());
    b.column(MESSAGE_ID_COLUMN, DataTypes.STRING());
    b.columnByMetadata(LEDGER_TIME_COLUMN, DataTypes.TIMESTAMP_LTZ(3), "rowtime");
    b.watermark(LEDGER_TIME_COLUMN, "SOURCE_WATERMARK()");
    return b.build();
  }

  private static TypeInformation<?> typeInfo(String type) {
    switch (type) {
      case "BOOLEAN": return Types.BOOLEAN;
      case "INT": return Types.INT;
      case "BIGINT": return Types.LONG;
      case "DOUBLE": return Types.DOUBLE;
      case "TIMESTAMP": return Types.LOCAL_DATE_TIME;
      default: return Types.STRING;
    }
  }

  private static DataType dataType(String type) {
    switch (type) {
      case "BOOLEAN": return DataTypes.BOOLEAN();
      case "INT": return DataTypes.INT();
      case "BIGINT": return DataTypes.BIGINT();
      case "DOUBLE": return DataTypes.DOUBLE();
      case "TIMESTAMP": return DataTypes.TIMESTAMP(3);
      default: return DataTypes.STRING();
    }
  }

  /**
   * Parse one event.
   *
   * @param event the event
   * @return the row; all payload columns NULL when the payload is not a JSON object
   */
  @Override
  public Row convert(SourceEvent event, boolean ledgerClock) {
    return ledgerClock ? toRow(event, true) : toRow(event);
  }

  public Row toRow(SourceEvent event) {
    return toRow(event, false);
  }

  /**
   * Parse one event.
   *
   * @param event the event
   * @param withMessageId true for a ledger-clock row ({@link #ledgerClockRowType()}), which ends with the
   *     message ID
   * @return the row; all payload columns NULL when the payload is not a JSON object
   */
  public Row toRow(SourceEvent event, boolean withMessageId) {
    Row row = new Row(names.length + (withMessageId ? 3 : 2));
    if (withMessageId) {
      row.setField(names.length + 2, event.messageId);
    }
    if (!parsePayload(event.payloadText(), row)) {
      for (int i = 0; i < names.length; i++) {
        row.setField(i, null); // ingestion rejects such payloads; a foreign writer's garbage becomes NULLs
      }
    }
    row.setField(names.length, event.key);
    row.setField(names.length + 1, LocalDateTime.ofInstant(Instant.ofEpochMilli(event.eventTimeMs), ZoneOffset.UTC));
    return row;
  }

  /**
   * Parse one event into Flink's internal row format, with exactly the values of {@link #toRow(SourceEvent)}
   * (STRING as {@link StringData}, TIMESTAMP as {@link TimestampData}, the other types as their boxed Java
   * values). A payload given as bytes ({@link SourceEvent#payloadBytes}) that is a flat JSON object of plain
   * values (ASCII strings without escapes, JSON numbers, true, false, null) is scanned in one pass over the
   * bytes, strings taken as UTF-8 slices; anything else (escapes, non-ASCII bytes, nested values, malformed
   * or unusual JSON, a text payload) goes through the same Jackson parse as {@link #toRow}, so both agree on
   * every input ({@code PayloadParserTest} compares them).
   *
   * @param event the event
   * @return a new row of {@link #rowDataType()}
   */
  public RowData toRowData(SourceEvent event) {
    GenericRowData row = new GenericRowData(names.length + 2);
    boolean scanned = false;
    if (event.payloadBytes != null) {
      prepare();
      for (int i = 0; i < names.length; i++) {
        if (read[i]) {
          row.setField(i, defaultInternal[i]); // a field the event does not hold is read as its DEFAULT
        }
      }
      try {
        scanned = scanner.scan(event.payloadBytes, row);
      } catch (RuntimeException unusual) {
        scanned = false; // e.g. an epoch-millis timestamp out of range: Jackson's parse decides
      }
    }
    if (!scanned) {
      Row slow = toRow(event);
      for (int i = 0; i < names.length; i++) {
        row.setField(i, internal(slow.getField(i)));
      }
    }
    row.setField(names.length, StringData.fromString(event.key));
    // = TimestampData.fromLocalDateTime(toRow's LocalDateTime.ofInstant(ofEpochMilli(ms), UTC))
    row.setField(names.length + 1, TimestampData.fromEpochMillis(event.eventTimeMs));
    return row;
  }

  /** A {@link Row} field's internal value (what Flink's Row to RowData conversion makes of it). */
  private static Object internal(Object value) {
    if (value instanceof String s) {
      return StringData.fromString(s);
    }
    if (value instanceof LocalDateTime t) {
      return TimestampData.fromLocalDateTime(t);
    }
    return value;
  }

  /** Build the byte scanner and the defaults' internal values (once per parser instance). */
  private void prepare() {
    if (scanner != null) {
      return;
    }
    prepareDefaults();
    Object[] internals = new Object[names.length];
    for (int i = 0; i < names.length; i++) {
      internals[i] = internal(defaultValues[i]);
    }
    defaultInternal = internals;
    scanner = new FlatJsonScanner(names, types, read);
  }

  /**
   * Fill the declared columns that are read, in one streaming pass (the last occurrence of a repeated
   * field wins, as in a JSON tree).
   *
   * @return false when the payload is not a JSON object
   */
  private boolean parsePayload(String payload, Row row) {
    if (indexes == null) {
      Map<String, Integer> map = new java.util.HashMap<>();
      for (int i = 0; i < names.length; i++) {
        if (read[i]) {
          map.put(names[i], i);
        }
      }
      indexes = map;
    }
    prepareDefaults();
    try (JsonParser parser = JSON.getFactory().createParser(payload)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      // a field the event does not hold is read as the column's DEFAULT (an explicit null stays NULL)
      for (int i = 0; i < names.length; i++) {
        if (read[i] && defaultValues[i] != null) {
          row.setField(i, defaultValues[i]);
        }
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        Integer i = indexes.get(parser.currentName());
        JsonToken token = parser.nextToken();
        if (i == null) {
          parser.skipChildren();
          continue;
        }
        row.setField(i, value(types[i], token, parser));
      }
      return true;
    } catch (Exception malformed) {
      return false;
    }
  }

  private void prepareDefaults() {
    if (defaultValues == null) {
      Object[] values = new Object[names.length];
      for (int i = 0; i < names.length; i++) {
        try {
          values[i] = defaults[i] == null ? null : value(types[i], JSON.readTree(defaults[i]));
        } catch (java.io.IOException e) {
          values[i] = null;
        }
      }
      defaultValues = values;
    }
  }

  /** The SQL value of the current token of a column of {@code type}, or null when it does not fit. */
  private static Object value(String type, JsonToken token, JsonParser parser) throws java.io.IOException {
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    switch (type) {
      case "BOOLEAN":
        return token.isBoolean() ? parser.getBooleanValue() : skip(parser);
      case "INT":
        return token == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() == JsonParser.NumberType.INT
            ? parser.getIntValue() : skip(parser);
      case "BIGINT":
        return token == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER
            ? parser.getLongValue() : skip(parser);
      case "DOUBLE":
        return token.isNumeric() ? parser.getDoubleValue() : skip(parser);
      case "TIMESTAMP":
        if (token == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
          return LocalDateTime.ofInstant(Instant.ofEpochMilli(parser.getLongValue()), ZoneOffset.UTC);
        }
        if (token == JsonToken.VALUE_STRING) {
          try {
            return dev.streamfold.schema.IsoDateTimes.parse(parser.getText());
          } catch (RuntimeException e) {
            return null;
          }
        }
        return skip(parser);
      default:
        if (token.isScalarValue()) {
          return parser.getText();
        }
        return JSON.readTree(parser).toString(); // an object or array in a STRING column: its JSON text
    }
  }

  private static Object skip(JsonParser parser) throws java.io.IOException {
    parser.skipChildren();
    return null;
  }

  static Object value(String type, JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    switch (type) {
      case "BOOLEAN":
        return v.isBoolean() ? v.booleanValue() : null;
      case "INT":
        return v.isIntegralNumber() && v.canConvertToInt() ? v.intValue() : null;
      case "BIGINT":
        return v.isIntegralNumber() && v.canConvertToLong() ? v.longValue() : null;
      case "DOUBLE":
        return v.isNumber() ? v.doubleValue() : null;
      case "TIMESTAMP":
        if (v.isIntegralNumber()) {
          return LocalDateTime.ofInstant(Instant.ofEpochMilli(v.longValue()), ZoneOffset.UTC);
        }
        try {
          return v.isTextual() ? dev.streamfold.schema.IsoDateTimes.parse(v.textValue()) : null;
        } catch (RuntimeException e) {
          return null;
        }
      default:
        return v.isTextual() ? v.textValue() : v.isValueNode() ? v.asText() : v.toString();
    }
  }
}
