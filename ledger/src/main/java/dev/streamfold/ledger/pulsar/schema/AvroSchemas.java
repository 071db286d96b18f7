package dev.streamfold.ledger.pulsar.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamfold.core.StreamRef;
import dev.streamfold.schema.StreamColumn;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The Avro record schemas (JSON text) that stand for a stream's columns in Pulsar's schema registry, and the
 * check of returning columns against earlier ones. No I/O.
 */
public final class AvroSchemas {
  private static final ObjectMapper JSON = new ObjectMapper();

  private AvroSchemas() {
  }

  /**
   * The Avro record schema (JSON text) of a stream's columns, as registered in Pulsar: one field per column
   * (NOT NULL columns as the plain type, the others as a union with null; DEFAULT as the field's default;
   * TIMESTAMP as a string), each with its SQL type as {@code "sqlType"}.
   *
   * @param stream the stream, which names the record ({@code streamfold.<tenant>.<stream>}, '-' as '_')
   * @param columns its columns
   * @return the schema
   */
  public static String record(StreamRef stream, List<StreamColumn> columns) {
    ObjectNode record = JSON.createObjectNode().put("type", "record").put("name", stream.stream().replace('-', '_'))
        .put("namespace", "streamfold." + stream.tenant().replace('-', '_'));
    ArrayNode fields = record.putArray("fields");
    for (StreamColumn c : columns) {
      String avro = switch (c.type()) {
        case "BOOLEAN" -> "boolean";
        case "INT" -> "int";
        case "BIGINT" -> "long";
        case "DOUBLE" -> "double";
        default -> "string";
      };
      ObjectNode field = fields.addObject().put("name", c.name());
      JsonNode defaultValue = defaultJson(c);
      if (c.type().equals("TIMESTAMP") && defaultValue != null && defaultValue.isNumber()) {
        defaultValue = JSON.getNodeFactory().textNode(defaultValue.asText());
      }
      if (c.required()) {
        field.put("type", avro);
        if (defaultValue != null) {
          field.set("default", defaultValue);
        }
      } else if (defaultValue == null) {
        field.putArray("type").add("null").add(avro);
        field.putNull("default");
      } else {
        // an Avro union's default must be of its first branch
        field.putArray("type").add(avro).add("null");
        field.set("default", defaultValue);
      }
      field.put("sqlType", c.type());
    }
    return record.toString();
  }

  /** A column's DEFAULT as JSON, or null for none. */
  private static JsonNode defaultJson(StreamColumn column) {
    try {
      return column.defaultJson() == null ? null : JSON.readTree(column.defaultJson());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // a StreamColumn's DEFAULT is valid JSON
    }
  }

  /**
   * The columns of {@code next} that {@code current} does not have (names compared ignoring case): columns
   * added, or coming back after being removed.
   */
  public static List<StreamColumn> returning(List<StreamColumn> current, List<StreamColumn> next) {
    Set<String> present = new HashSet<>();
    current.forEach(c -> present.add(c.name().toLowerCase(Locale.ROOT)));
    return next.stream().filter(c -> !present.contains(c.name().toLowerCase(Locale.ROOT))).toList();
  }

  /**
   * Check returning columns against earlier definitions of the stream's schema: stored events were read with a
   * column's earlier type and DEFAULT, so it may return only with both unchanged.
   *
   * @param returning the columns to check ({@link #returning})
   * @param definitions the schema definitions (UTF-8 JSON text) of the earlier versions; any that is not JSON
   *     is skipped
   * @return what is incompatible, or null
   */
  public static String earlierDefinitionProblem(List<StreamColumn> returning, List<byte[]> definitions) {
    for (StreamColumn column : returning) {
      for (byte[] definition : definitions) {
        JsonNode fields;
        try {
          fields = JSON.readTree(new String(definition, StandardCharsets.UTF_8)).path("fields");
        } catch (JsonProcessingException unreadable) {
          continue; // not one of ours
        }
        for (JsonNode field : fields) {
          if (!field.path("name").asText().equalsIgnoreCase(column.name())) {
            continue;
          }
          String type = field.path("sqlType").asText();
          String earlierDefault = defaultText(field.get("default"));
          String nextDefault = defaultText(defaultJson(column));
          if (!type.equals(column.type()) || !Objects.equals(earlierDefault, nextDefault)) {
            return "column '" + column.name() + "' was " + type + (earlierDefault == null ? " without a DEFAULT"
                : " DEFAULT " + earlierDefault) + " in an earlier schema of the stream, and stored events were read"
                + " with that: it can come back only as it was (a removed column keeps its meaning), so use a new name";
          }
        }
      }
    }
    return null;
  }

  /** A DEFAULT as comparable text: a JSON string's value, other JSON as written; null for none. */
  private static String defaultText(JsonNode value) {
    if (value == null || value.isNull()) {
      return null;
    }
    return value.isTextual() ? value.asText() : value.toString();
  }
}
