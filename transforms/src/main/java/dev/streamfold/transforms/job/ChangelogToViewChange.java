package dev.streamfold.transforms.job;

import dev.streamfold.transforms.sink.ViewChange;
import dev.streamfold.views.ViewSchema;
import java.math.BigDecimal;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * Turns the SQL result's changelog into view changes: INSERT and UPDATE_AFTER replace the row of their
 * key; UPDATE_BEFORE and DELETE retract it (a retracted key that gets no new row disappears).
 */
public final class ChangelogToViewChange implements MapFunction<Row, ViewChange> {
  private static final long serialVersionUID = 1L;

  private final int[] keyIndexes;

  ChangelogToViewChange(int[] keyIndexes) {
    this.keyIndexes = keyIndexes;
  }

  @Override
  public ViewChange map(Row row) {
    StringBuilder key = new StringBuilder();
    for (int i = 0; i < keyIndexes.length; i++) {
      if (i > 0) {
        key.append(ViewSchema.KEY_SEPARATOR);
      }
      Object part = row.getField(keyIndexes[i]);
      ViewSchema.appendKeyPart(key, part == null ? null : text(part));
    }
    RowKind kind = row.getKind();
    if (kind == RowKind.UPDATE_BEFORE || kind == RowKind.DELETE) {
      return ViewChange.delete(key.toString());
    }
    String[] values = new String[row.getArity()];
    for (int i = 0; i < values.length; i++) {
      Object value = row.getField(i);
      values[i] = value == null ? null : text(value);
    }
    return ViewChange.upsert(key.toString(), values);
  }

  /**
   * Text of a SQL value as stored in Redis: Java's canonical forms; timestamps and times in ISO-8601 with the
   * seconds always written ({@code 2023-11-14T22:14:00}, where {@code LocalDateTime.toString} drops zero
   * seconds: a window key read back with {@code :00} missed its row), fraction digits as the value has them.
   */
  public static String text(Object value) {
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    if (value instanceof java.time.LocalDateTime timestamp) {
      return java.time.format.DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(timestamp);
    }
    if (value instanceof java.time.LocalTime time) {
      return java.time.format.DateTimeFormatter.ISO_LOCAL_TIME.format(time);
    }
    return value.toString();
  }
}
