package dev.streamfold.transforms.job;

import dev.streamfold.views.ViewSchema;
import java.math.BigDecimal;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * Turns the SQL result's changelog into view changes: INSERT and UPDATE_AFTER replace the row of their
 * key; UPDATE_BEFORE and DELETE retract it (a retracted key that gets no new row disappears).
 */
final class ChangelogToViewChange implements MapFunction<Row, ViewChange> {
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
      key.append(part == null ? "" : text(part));
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

  /** Text of a SQL value as stored in Redis: Java's canonical forms (ISO-8601 for timestamps). */
  static String text(Object value) {
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    return value.toString();
  }
}
