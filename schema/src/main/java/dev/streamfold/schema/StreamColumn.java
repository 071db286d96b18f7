package dev.streamfold.schema;

import dev.streamfold.core.ClientText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A column of a stream's payload, declared so that SQL transformations can be planned before they run
 * and events are checked when they are appended: the stream's schema.
 *
 * @param name field name in the payload JSON object
 * @param type SQL type, one of {@link #TYPES}
 * @param required true when every event must hold a non-null value ({@code NOT NULL})
 * @param defaultJson the value, as JSON text, that events without the field are read with (SQL sees it;
 *     old events replay with it after the column was added), or null for SQL NULL
 */
public record StreamColumn(String name, String type, boolean required, String defaultJson) {
  /**
   * Supported types. TIMESTAMP is a timestamp with millisecond precision, given in the payload as an
   * ISO-8601 local date-time text ({@code 2001-01-01T00:01:00}) or as epoch milliseconds (UTC).
   */
  public static final Set<String> TYPES = Set.of("STRING", "BOOLEAN", "INT", "BIGINT", "DOUBLE", "TIMESTAMP");

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
  private static final Pattern SPEC = Pattern.compile(
      "(?is)\\s*([^:\\s]+)\\s*:\\s*([A-Za-z]+)\\s*(NOT\\s+NULL)?\\s*(?:DEFAULT\\s+(.+?))?\\s*");

  /**
   * Create an optional column without a default (absent or null values are SQL NULL).
   *
   * @throws IllegalArgumentException if the name is not an identifier or the type is unsupported
   */
  public StreamColumn(String name, String type) {
    this(name, type, false, null);
  }

  /**
   * Create a column.
   *
   * @throws IllegalArgumentException if the name is not an identifier, the type is unsupported, or the
   *     default is not a JSON value of the type (the message names the column)
   */
  public StreamColumn {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("invalid column name " + ClientText.quote(name)
          + ": use a letter or '_' then letters, digits or '_'");
    }
    type = type == null ? "" : type.trim().toUpperCase(Locale.ROOT);
    if (type.equals("VARCHAR")) {
      type = "STRING";
    } else if (type.equals("INTEGER")) {
      type = "INT";
    }
    if (!TYPES.contains(type)) {
      throw new IllegalArgumentException("column '" + name + "' has unsupported type " + ClientText.quote(type)
          + "; supported: STRING, BOOLEAN, INT, BIGINT, DOUBLE, TIMESTAMP");
    }
    if (required && defaultJson != null && defaultJson.trim().equals("null")) {
      // it was dropped silently, leaving a NOT NULL column without the DEFAULT the user wrote
      throw new IllegalArgumentException("column '" + name + "' is NOT NULL, so its DEFAULT cannot be null");
    }
    if (defaultJson != null && (defaultJson.isBlank() || defaultJson.trim().equals("null"))) {
      defaultJson = null;
    }
    if (defaultJson != null) {
      defaultJson = defaultJson.trim();
      String problem = EventValidator.valueProblem(type, defaultJson);
      if (problem != null) {
        throw new IllegalArgumentException("column '" + name + "' DEFAULT " + ClientText.shorten(defaultJson) + " " + problem);
      }
    }
  }

  /**
   * Parse a column as the CLI writes it: {@code name:TYPE [NOT NULL] [DEFAULT <JSON value>]}, e.g.
   * {@code delay:INT NOT NULL}, {@code carrier:STRING DEFAULT "AA"}.
   *
   * @param spec the text
   * @return the column
   * @throws IllegalArgumentException if malformed (the message quotes it)
   */
  public static StreamColumn parse(String spec) {
    java.util.regex.Matcher m = SPEC.matcher(spec == null ? "" : spec);
    if (!m.matches()) {
      throw new IllegalArgumentException("a column is NAME:TYPE [NOT NULL] [DEFAULT <JSON value>] (e.g. delay:INT,"
          + " carrier:STRING DEFAULT \"AA\"), got " + ClientText.quote(spec));
    }
    return new StreamColumn(m.group(1), m.group(2), m.group(3) != null, m.group(4));
  }

  /** The column as {@link #parse} reads it, e.g. {@code delay INT NOT NULL DEFAULT 0}. */
  public String describe() {
    return name + " " + type + (required ? " NOT NULL" : "") + (defaultJson == null ? "" : " DEFAULT " + defaultJson);
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

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  /**
   * Encode a schema as JSON: {@code [{"name":"delay","type":"INT","required":true,"default":0}, ...]}.
   *
   * @param columns the columns
   * @return the JSON text
   */
  public static String encodeSchema(List<StreamColumn> columns) {
    com.fasterxml.jackson.databind.node.ArrayNode array = JSON.createArrayNode();
    for (StreamColumn c : columns) {
      com.fasterxml.jackson.databind.node.ObjectNode o = array.addObject().put("name", c.name()).put("type", c.type());
      if (c.required()) {
        o.put("required", true);
      }
      if (c.defaultJson() != null) {
        try {
          o.set("default", JSON.readTree(c.defaultJson()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
          throw new IllegalStateException("unreadable default of column " + c.name(), e);
        }
      }
    }
    return array.toString();
  }

  /**
   * Decode {@link #encodeSchema} output.
   *
   * @param json the text
   * @return the columns
   * @throws IllegalArgumentException if malformed
   */
  public static List<StreamColumn> decodeSchema(String json) {
    try {
      List<StreamColumn> columns = new ArrayList<>();
      for (com.fasterxml.jackson.databind.JsonNode o : JSON.readTree(json)) {
        com.fasterxml.jackson.databind.JsonNode d = o.get("default");
        columns.add(new StreamColumn(o.path("name").asText(), o.path("type").asText(), o.path("required").asBoolean(false),
            d == null || d.isNull() ? null : d.toString()));
      }
      return columns;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("unreadable stream schema: " + e.getOriginalMessage(), e);
    }
  }
}
