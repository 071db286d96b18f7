package dev.streamfold.query;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.streamfold.views.ViewSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Renders a row as the JSON object that GET and MGET return. Values are typed by the column's SQL
 * type: integer and decimal types become JSON numbers, BOOLEAN becomes true/false, ARRAY columns (JSON
 * array text) JSON arrays, all other types strings. Schema columns absent from the row (SQL NULL) become {@code null}; a value that does not
 * parse as its type stays a string rather than failing the read.
 */
final class RowJson {
  private static final JsonFactory JSON = new JsonFactory();
  private static final Set<String> NUMERIC = Set.of("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT",
      "FLOAT", "REAL", "DOUBLE", "DECIMAL", "DEC", "NUMERIC");
  private static final Set<String> BOOLEAN = Set.of("BOOLEAN", "BOOL");
  /** Most distinct SQL type texts whose base names are kept; further ones are reduced on every read. */
  static final int MAX_CACHED_TYPES = 1024;
  /** Base names by SQL type text as schemas state it: a row is rendered on every GET, its types rarely change. */
  private static final Map<String, String> BASE_TYPES = new ConcurrentHashMap<>();

  private RowJson() {}

  /**
   * Render a row.
   *
   * @param row column to value text, in result order (SQL NULL columns absent)
   * @param schema the view's schema, or null when unknown (all values become strings)
   * @return a JSON object text: schema columns in schema order, then any other columns of the row
   */
  static String render(Map<String, String> row, ViewSchema schema) {
    return new String(renderUtf8(row, schema), StandardCharsets.UTF_8);
  }

  /**
   * Render a row as the UTF-8 bytes of {@link #render}'s text (what GET and MGET send).
   *
   * @param row column to value text, in result order (SQL NULL columns absent)
   * @param schema the view's schema, or null when unknown (all values become strings)
   * @return the UTF-8 encoded JSON object text
   */
  static byte[] renderUtf8(Map<String, String> row, ViewSchema schema) {
    ByteArrayBuilder bytes = new ByteArrayBuilder(256);
    try (JsonGenerator json = JSON.createGenerator(bytes, JsonEncoding.UTF8)) {
      json.writeStartObject();
      if (schema != null) {
        for (Map.Entry<String, String> column : schema.columns().entrySet()) {
          json.writeFieldName(column.getKey());
          writeValue(json, cachedBaseType(column.getValue()), row.get(column.getKey()));
        }
      }
      for (Map.Entry<String, String> column : row.entrySet()) {
        if (schema == null || !schema.columns().containsKey(column.getKey())) {
          json.writeStringField(column.getKey(), column.getValue());
        }
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot render row as JSON", e);
    }
    return bytes.toByteArray();
  }

  /** {@link #baseType}, kept for the first {@link #MAX_CACHED_TYPES} distinct type texts. */
  private static String cachedBaseType(String sqlType) {
    String base = BASE_TYPES.get(sqlType);
    if (base == null) {
      base = baseType(sqlType);
      if (BASE_TYPES.size() < MAX_CACHED_TYPES) {
        BASE_TYPES.put(sqlType, base);
      }
    }
    return base;
  }

  /**
   * Reduce a SQL type to its base name: {@code DECIMAL(10, 2) NOT NULL} becomes {@code DECIMAL}.
   *
   * @param sqlType the type as the schema states it
   * @return the upper-case base name
   */
  static String baseType(String sqlType) {
    String upper = sqlType.trim().toUpperCase(Locale.ROOT);
    int end = 0;
    while (end < upper.length() && (Character.isLetter(upper.charAt(end)) || upper.charAt(end) == '_')) {
      end++;
    }
    return upper.substring(0, end);
  }

  private static void writeValue(JsonGenerator json, String baseType, String value) throws IOException {
    if (value == null) {
      json.writeNull();
    } else if (NUMERIC.contains(baseType)) {
      writeNumber(json, value.trim(), value);
    } else if (BOOLEAN.contains(baseType) && isBoolean(value.trim())) {
      json.writeBoolean(Boolean.parseBoolean(value.trim()));
    } else if (baseType.equals("ARRAY") && isJsonArray(value)) {
      json.writeRawValue(value); // stored as JSON array text (Java transformations' list columns)
    } else {
      json.writeString(value);
    }
  }

  private static void writeNumber(JsonGenerator json, String trimmed, String original) throws IOException {
    if (isJsonNumber(trimmed)) {
      json.writeNumber(trimmed);
      return;
    }
    try {
      json.writeNumber(new BigDecimal(trimmed));
    } catch (NumberFormatException notANumber) {
      json.writeString(original); // NaN, Infinity or garbage: keep the text
    }
  }

  /**
   * Tell whether a text is a number in the JSON grammar (RFC 8259, section 6:
   * {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}), so it can be written unchanged.
   *
   * @param text the text
   * @return true when the whole text is one JSON number
   */
  static boolean isJsonNumber(String text) {
    int n = text.length();
    int i = 0;
    if (i < n && text.charAt(i) == '-') {
      i++;
    }
    if (i >= n) {
      return false;
    }
    if (text.charAt(i) == '0') {
      i++;
    } else if (isDigit(text.charAt(i))) {
      while (i < n && isDigit(text.charAt(i))) {
        i++;
      }
    } else {
      return false;
    }
    if (i < n && text.charAt(i) == '.') {
      int digits = ++i;
      while (i < n && isDigit(text.charAt(i))) {
        i++;
      }
      if (i == digits) {
        return false;
      }
    }
    if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
      i++;
      if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
        i++;
      }
      int digits = i;
      while (i < n && isDigit(text.charAt(i))) {
        i++;
      }
      if (i == digits) {
        return false;
      }
    }
    return i == n;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** Whether a text is exactly one well-formed JSON array. */
  static boolean isJsonArray(String text) {
    try (com.fasterxml.jackson.core.JsonParser parser = JSON.createParser(text)) {
      if (parser.nextToken() != com.fasterxml.jackson.core.JsonToken.START_ARRAY) {
        return false;
      }
      parser.skipChildren();
      return parser.nextToken() == null;
    } catch (IOException malformed) {
      return false;
    }
  }

  private static boolean isBoolean(String text) {
    return text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false");
  }
}
