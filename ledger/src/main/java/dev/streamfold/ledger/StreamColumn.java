package dev.streamfold.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A column of a stream's payload, declared so that SQL transformations can be planned before they run.
 *
 * @param name field name in the payload JSON object
 * @param type SQL type, one of {@link #TYPES}
 */
public record StreamColumn(String name, String type) {
  /**
   * Supported types. TIMESTAMP is a timestamp with millisecond precision, given in the payload as an
   * ISO-8601 local date-time text ({@code 2001-01-01T00:01:00}) or as epoch milliseconds (UTC).
   */
  public static final Set<String> TYPES = Set.of("STRING", "BOOLEAN", "INT", "BIGINT", "DOUBLE", "TIMESTAMP");

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  /**
   * Create a column.
   *
   * @throws IllegalArgumentException if the name is not an identifier or the type is unsupported
   */
  public StreamColumn {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("invalid column name '" + name
          + "': use a letter or '_' then letters, digits or '_'");
    }
    type = type == null ? "" : type.trim().toUpperCase(Locale.ROOT);
    if (type.equals("VARCHAR")) {
      type = "STRING";
    } else if (type.equals("INTEGER")) {
      type = "INT";
    }
    if (!TYPES.contains(type)) {
      throw new IllegalArgumentException("column '" + name + "' has unsupported type '" + type
          + "'; supported: STRING, BOOLEAN, INT, BIGINT, DOUBLE, TIMESTAMP");
    }
  }

  /** Names reserved for the metadata columns every stream has in SQL (event key and event time). */
  public static final Set<String> RESERVED_NAMES = Set.of("_key", "_event_time");

  /**
   * Check that column names are distinct (case-insensitively, as SQL compares them) and none is reserved.
   *
   * @param columns the columns
   * @throws IllegalArgumentException naming the first duplicate or reserved name
   */
  public static void checkDistinct(List<StreamColumn> columns) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (StreamColumn c : columns) {
      String lower = c.name().toLowerCase(Locale.ROOT);
      if (RESERVED_NAMES.contains(lower)) {
        throw new IllegalArgumentException("column name '" + c.name() + "' is reserved for the event's metadata "
            + "(every stream has _key and _event_time in SQL)");
      }
      if (!seen.add(lower)) {
        throw new IllegalArgumentException("column '" + c.name() + "' is declared twice");
      }
    }
  }

  /**
   * Encode columns as {@code name TYPE,name TYPE}.
   *
   * @param columns the columns
   * @return the text; empty for no columns
   */
  public static String encode(List<StreamColumn> columns) {
    List<String> parts = new ArrayList<>();
    for (StreamColumn c : columns) {
      parts.add(c.name() + " " + c.type());
    }
    return String.join(",", parts);
  }

  /**
   * Decode {@link #encode} output.
   *
   * @param text the text, may be null or empty
   * @return the columns
   * @throws IllegalArgumentException if malformed
   */
  public static List<StreamColumn> decode(String text) {
    List<StreamColumn> columns = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return columns;
    }
    for (String part : text.split(",")) {
      String[] nt = part.trim().split(" ");
      columns.add(new StreamColumn(nt[0], nt[1]));
    }
    return columns;
  }
}
