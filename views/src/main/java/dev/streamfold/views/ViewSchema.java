package dev.streamfold.views;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shape of a view's rows: result columns with their SQL types, and which of them form the row key.
 *
 * @param columns column name to SQL type name (e.g. {@code BIGINT}, {@code DOUBLE}, {@code STRING}),
 *     in result order
 * @param keyColumns the key columns, in order; multi-column keys are joined with {@link #KEY_SEPARATOR}
 */
public record ViewSchema(Map<String, String> columns, List<String> keyColumns) {
  /** Separator of key parts in a multi-column row key. */
  public static final String KEY_SEPARATOR = "|";

  /**
   * Create a schema.
   *
   * @throws IllegalArgumentException if there are no columns, no key columns, or a key column is not a column
   */
  public ViewSchema {
    columns = new LinkedHashMap<>(columns);
    keyColumns = List.copyOf(keyColumns);
    if (columns.isEmpty() || keyColumns.isEmpty()) {
      throw new IllegalArgumentException("a view needs at least one column and one key column");
    }
    for (String key : keyColumns) {
      if (!columns.containsKey(key)) {
        throw new IllegalArgumentException("key column '" + key + "' is not a result column " + columns.keySet());
      }
    }
  }

  String encodeColumns() {
    List<String> parts = new ArrayList<>();
    columns.forEach((name, type) -> parts.add(name + " " + type));
    return String.join(",", parts);
  }

  static ViewSchema decode(String columnsText, String keyText) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (String part : columnsText.split(",")) {
      int space = part.indexOf(' ');
      columns.put(part.substring(0, space), part.substring(space + 1));
    }
    return new ViewSchema(columns, List.of(keyText.split(",")));
  }
}
