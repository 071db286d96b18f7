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
 * @param keyColumns the key columns, in order; row keys are their values joined with {@link #KEY_SEPARATOR},
 *     escaped ({@link #rowKey})
 */
public record ViewSchema(Map<String, String> columns, List<String> keyColumns) {
  /** Separator of key parts in a multi-column row key. */
  public static final String KEY_SEPARATOR = "|";
  /** A key part that is SQL NULL: distinct from every value, the empty string included. */
  public static final String NULL_KEY_PART = "\\N";

  /**
   * The row key of key parts: each part's text with {@code \} written {@code \\} and {@code |} written
   * {@code \|}, NULL written {@link #NULL_KEY_PART}, parts joined with {@link #KEY_SEPARATOR}. Injective
   * (the escaping of PostgreSQL's COPY text format): two different tuples of key values never share a row,
   * which a plain join did ({@code ("x|y","z")} and {@code ("x","y|z")}, or NULL and {@code ""}).
   *
   * @param parts the key values as text, in key-column order; null for SQL NULL
   * @return the row key; a single part without {@code \} or {@code |} is itself
   */
  public static String rowKey(String... parts) {
    StringBuilder key = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        key.append(KEY_SEPARATOR);
      }
      appendKeyPart(key, parts[i]);
    }
    return key.toString();
  }

  /** Append one key part, escaped as {@link #rowKey} says. */
  public static void appendKeyPart(StringBuilder key, String part) {
    if (part == null) {
      key.append(NULL_KEY_PART);
      return;
    }
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      if (c == '\\' || c == '|') {
        key.append('\\');
      }
      key.append(c);
    }
  }

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
