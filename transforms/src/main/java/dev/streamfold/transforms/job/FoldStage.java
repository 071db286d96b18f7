package dev.streamfold.transforms.job;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.fold.Column;
import dev.streamfold.transforms.fold.Event;
import dev.streamfold.transforms.fold.FoldClasses;
import dev.streamfold.transforms.fold.Transformation;
import dev.streamfold.transforms.source.SourceEvent;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Array;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * The Java-transformation stage of a job: it turns applied events into the same changelog of rows a SQL
 * transformation's result gives (key column first, then the declared columns; INSERT for a key's first
 * row, UPDATE_AFTER for a changed row, DELETE when {@link Transformation#apply} returns null for a key
 * that has a row), so the view sink, replay and training sets take it unchanged:
 * <pre>
 * events -&gt; row key (Transformation.key; parallelism 1, ledger order) -&gt; keyBy row key
 *   -&gt; fold (keyed state of the declared state type; events of a key in ledger order) -&gt; changelog rows
 * </pre>
 * The transformation class is loaded in each task from Flink's user-code class loader (the jar travels
 * with the job graph); the graph itself holds only its name.
 */
public final class FoldStage {
  private FoldStage() {}

  /**
   * Add the stage to a job.
   *
   * @param events the applied events, in ledger order (the {@link PositionTracker}'s output)
   * @param definition the Java transformation
   * @param parallelism parallelism of the fold operator
   * @return the changelog rows, typed by the definition's columns
   */
  public static DataStream<Row> changelog(DataStream<SourceEvent> events, TransformDefinition definition,
      int parallelism) {
    return changelog(events, definition, parallelism, "");
  }

  /**
   * Add the stage to a job that holds several (a training set's features).
   *
   * @param uidSuffix appended to the operators' uids, unique per stage in the job ("" in view jobs, whose
   *     checkpoints restore by the plain uids)
   * @return the changelog rows
   */
  public static DataStream<Row> changelog(DataStream<SourceEvent> events, TransformDefinition definition,
      int parallelism, String uidSuffix) {
    List<String> names = new ArrayList<>(definition.columns().keySet());
    List<String> types = new ArrayList<>(definition.columns().values());
    TypeInformation<?>[] infos = types.stream().map(FoldStage::typeInfo).toArray(TypeInformation<?>[]::new);
    RowTypeInfo rowType = new RowTypeInfo(infos, names.toArray(String[]::new));
    TupleTypeInfo<Tuple2<String, SourceEvent>> keyed =
        new TupleTypeInfo<>(Types.STRING, TypeInformation.of(SourceEvent.class));
    return events
        .flatMap(new RowKeys(definition.foldClass()))
        .returns(keyed)
        .name("row key (" + simpleName(definition.foldClass()) + ")")
        .uid("fold-row-key" + uidSuffix)
        .setParallelism(1) // beside the PositionTracker: one channel keeps ledger order into keyBy
        .keyBy(new ByRowKey())
        .process(new Fold(definition.foldClass(), names, types))
        .returns(rowType)
        .setParallelism(parallelism)
        .name("fold " + simpleName(definition.foldClass()))
        .uid("fold" + uidSuffix);
  }

  private static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  static TypeInformation<?> typeInfo(String type) {
    return switch (type) {
      case "BIGINT" -> Types.LONG;
      case "INT" -> Types.INT;
      case "DOUBLE" -> Types.DOUBLE;
      case "BOOLEAN" -> Types.BOOLEAN;
      case "TIMESTAMP" -> Types.LOCAL_DATE_TIME;
      default -> Types.STRING; // STRING, and ARRAY<T> as JSON array text
    };
  }

  /** Pairs each event with its row key; events the transformation leaves out (null key) stop here. */
  static final class RowKeys extends RichFlatMapFunction<SourceEvent, Tuple2<String, SourceEvent>> {
    private static final long serialVersionUID = 1L;
    private final String className;
    private transient Transformation<Object> fold;

    RowKeys(String className) {
      this.className = className;
    }

    @Override
    public void open(OpenContext context) {
      fold = FoldClasses.instantiate(getRuntimeContext().getUserCodeClassLoader(), className);
    }

    @Override
    public void flatMap(SourceEvent event, Collector<Tuple2<String, SourceEvent>> out) {
      String key;
      try {
        key = fold.key(toEvent(event));
      } catch (RuntimeException e) {
        throw new FoldFailure(className + ".key failed on event " + event.messageId + " (key '" + event.key + "'): "
            + e, e);
      }
      if (key != null) {
        out.collect(Tuple2.of(key, event));
      }
    }
  }

  /** The row key of a keyed event. */
  static final class ByRowKey implements KeySelector<Tuple2<String, SourceEvent>, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(Tuple2<String, SourceEvent> value) {
      return value.f0;
    }
  }

  /** Folds events into keyed state and emits each key's changed row. */
  static final class Fold extends KeyedProcessFunction<String, Tuple2<String, SourceEvent>, Row> {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String className;
    private final List<String> names;
    private final List<String> types;
    private transient Transformation<Object> fold;
    private transient ValueState<Object> state;
    private transient Map<String, Integer> indexes;

    Fold(String className, List<String> names, List<String> types) {
      this.className = className;
      this.names = names;
      this.types = types;
    }

    @Override
    public void open(OpenContext context) {
      fold = FoldClasses.instantiate(getRuntimeContext().getUserCodeClassLoader(), className);
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("fold-state", FoldClasses.stateType(fold)));
      indexes = new HashMap<>();
      for (int i = 0; i < names.size(); i++) {
        indexes.put(names.get(i), i);
      }
    }

    @Override
    public void processElement(Tuple2<String, SourceEvent> value, Context context, Collector<Row> out)
        throws IOException {
      SourceEvent event = value.f1;
      Object current = state.value();
      boolean shown = current != null;
      Object next;
      Map<String, ?> row;
      try {
        next = fold.apply(shown ? current : fold.initial(), toEvent(event));
        row = next == null ? null : fold.row(next);
      } catch (RuntimeException e) {
        throw new FoldFailure(className + " failed on event " + event.messageId + " (row key '" + value.f0 + "'): "
            + e, e);
      }
      if (next == null) {
        if (shown) {
          state.clear();
          Row delete = Row.withPositions(RowKind.DELETE, names.size());
          delete.setField(0, value.f0);
          out.collect(delete);
        }
        return;
      }
      state.update(next);
      out.collect(toRow(shown ? RowKind.UPDATE_AFTER : RowKind.INSERT, value.f0, row, event.messageId));
    }

    private Row toRow(RowKind kind, String key, Map<String, ?> values, String messageId) {
      Row row = Row.withPositions(kind, names.size());
      row.setField(0, key);
      if (values == null) {
        return row;
      }
      for (Map.Entry<String, ?> entry : values.entrySet()) {
        Integer index = indexes.get(entry.getKey());
        if (index == null || index == 0) {
          throw new FoldFailure(className + ".row returned column '" + entry.getKey() + "', which is "
              + (index == null ? "not declared in columns() " + names.subList(1, names.size()) : "the key column")
              + " (event " + messageId + ")", null);
        }
        try {
          row.setField(index, convert(types.get(index), entry.getValue()));
        } catch (RuntimeException e) {
          throw new FoldFailure(className + ".row returned " + describe(entry.getValue()) + " for column '"
              + entry.getKey() + "' (" + types.get(index) + ")" + (e instanceof IllegalArgumentException
              || e instanceof ArithmeticException ? ", " + e.getMessage() : "") + " at event " + messageId, e);
        }
      }
      return row;
    }
  }

  private static String describe(Object value) {
    return value == null ? "null" : "a " + value.getClass().getName() + " (" + value + ")";
  }

  /** A value as its column type's Java type (see {@link Transformation#row}). */
  static Object convert(String type, Object value) {
    if (value == null) {
      return null;
    }
    switch (type) {
      case "BIGINT":
        return ((Number) value).longValue();
      case "INT":
        return Math.toIntExact(((Number) value).longValue());
      case "DOUBLE":
        return ((Number) value).doubleValue();
      case "BOOLEAN":
        return (Boolean) value;
      case "STRING":
        return value.toString();
      case "TIMESTAMP":
        LocalDateTime t = value instanceof LocalDateTime given ? given : LocalDateTime.ofInstant(
            value instanceof Instant i ? i : Instant.ofEpochMilli(((Number) value).longValue()), ZoneOffset.UTC);
        if (t.getYear() < 0 || t.getYear() > 9999) {
          // SQL TIMESTAMP's range, as for ingested TIMESTAMP values: beyond it readers (JSON, Parquet) break
          throw new IllegalArgumentException("out of range: a TIMESTAMP is in the years 0000..9999");
        }
        return t;
      default:
        return jsonArray(Column.elementType(type), value);
    }
  }

  private static String jsonArray(String elementType, Object value) {
    List<Object> elements = new ArrayList<>();
    if (value instanceof Iterable<?> iterable) {
      iterable.forEach(elements::add);
    } else if (value.getClass().isArray()) {
      for (int i = 0; i < Array.getLength(value); i++) {
        elements.add(Array.get(value, i));
      }
    } else {
      throw new ClassCastException("not a List or an array");
    }
    StringWriter text = new StringWriter();
    try (JsonGenerator json = Fold.JSON.getFactory().createGenerator(text)) {
      json.writeStartArray();
      for (Object element : elements) {
        Object v = convert(elementType, element);
        if (v == null) {
          json.writeNull();
        } else if (v instanceof Long l) {
          json.writeNumber(l);
        } else if (v instanceof Integer i) {
          json.writeNumber(i);
        } else if (v instanceof Double d) {
          json.writeNumber(d);
        } else if (v instanceof Boolean b) {
          json.writeBoolean(b);
        } else {
          json.writeString(v.toString());
        }
      }
      json.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }

  static Event toEvent(SourceEvent event) {
    return new Event(event.key, event.type, event.eventTimeMs, event.messageId, event.payloadText());
  }

  /** A Java transformation failed on an event; the job fails with this message as its root cause. */
  static final class FoldFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    FoldFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
