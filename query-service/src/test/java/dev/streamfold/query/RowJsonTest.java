package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.views.ViewSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowJsonTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static Map<String, String> columns(String... nameType) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (int i = 0; i < nameType.length; i += 2) {
      columns.put(nameType[i], nameType[i + 1]);
    }
    return columns;
  }

  @Test
  void typesValuesByTheirSqlTypes() throws Exception {
    ViewSchema schema = new ViewSchema(columns("airport", "STRING", "flights", "BIGINT", "avg", "DOUBLE",
        "ratio", "DECIMAL(5, 2)", "cancelled", "BOOLEAN", "small", "INT NOT NULL", "code", "VARCHAR(3)"),
        List.of("airport"));
    Map<String, String> row = new LinkedHashMap<>();
    row.put("airport", "ATL");
    row.put("flights", "12345678901234567890");
    row.put("avg", "1.5E3");
    row.put("ratio", "0.25");
    row.put("cancelled", "TRUE");
    row.put("small", "007");
    row.put("code", "123");

    String json = RowJson.render(row, schema);

    assertThat(json).isEqualTo("{\"airport\":\"ATL\",\"flights\":12345678901234567890,\"avg\":1.5E3,"
        + "\"ratio\":0.25,\"cancelled\":true,\"small\":7,\"code\":\"123\"}");
    JsonNode parsed = MAPPER.readTree(json);
    assertThat(parsed.get("flights").isIntegralNumber()).isTrue();
    assertThat(parsed.get("avg").asDouble()).isEqualTo(1500.0);
  }

  @Test
  void rendersAbsentColumnsAsNullAndKeepsSchemaOrder() {
    ViewSchema schema = new ViewSchema(columns("k", "STRING", "n", "BIGINT", "b", "BOOLEAN"), List.of("k"));

    assertThat(RowJson.render(Map.of("b", "false", "k", "x"), schema))
        .isEqualTo("{\"k\":\"x\",\"n\":null,\"b\":false}");
  }

  @Test
  void rendersArrayColumnsAsJsonArraysAndMalformedOnesAsStrings() {
    ViewSchema schema = new ViewSchema(columns("k", "STRING", "last", "ARRAY<BIGINT>"), List.of("k"));

    assertThat(RowJson.render(Map.of("k", "x", "last", "[1,-2,3]"), schema))
        .isEqualTo("{\"k\":\"x\",\"last\":[1,-2,3]}");
    assertThat(RowJson.render(Map.of("k", "x", "last", "[1,2] [3]"), schema))
        .isEqualTo("{\"k\":\"x\",\"last\":\"[1,2] [3]\"}");
    assertThat(RowJson.render(Map.of("k", "x", "last", "[1,"), schema))
        .isEqualTo("{\"k\":\"x\",\"last\":\"[1,\"}");
  }

  @Test
  void keepsUnparseableValuesAsStrings() {
    ViewSchema schema = new ViewSchema(columns("k", "STRING", "d", "DOUBLE", "b", "BOOLEAN"), List.of("k"));

    assertThat(RowJson.render(Map.of("k", "x", "d", "NaN", "b", "maybe"), schema))
        .isEqualTo("{\"k\":\"x\",\"d\":\"NaN\",\"b\":\"maybe\"}");
  }

  @Test
  void escapesStringsAndAddsColumnsOutsideTheSchema() {
    ViewSchema schema = new ViewSchema(columns("k", "STRING"), List.of("k"));
    Map<String, String> row = new LinkedHashMap<>();
    row.put("k", "a\"b\n");
    row.put("extra", "1");

    assertThat(RowJson.render(row, schema)).isEqualTo("{\"k\":\"a\\\"b\\n\",\"extra\":\"1\"}");
    assertThat(RowJson.render(Map.of("x", "1"), null)).isEqualTo("{\"x\":\"1\"}");
  }

  @Test
  void reducesTypesToTheirBaseName() {
    assertThat(RowJson.baseType(" decimal(10, 2) not null")).isEqualTo("DECIMAL");
    assertThat(RowJson.baseType("DOUBLE PRECISION")).isEqualTo("DOUBLE");
    assertThat(RowJson.baseType("TIMESTAMP_LTZ(3)")).isEqualTo("TIMESTAMP_LTZ");
  }

  @Test
  void tellsJsonNumbersAsTheGrammarDoes() {
    java.util.regex.Pattern grammar = java.util.regex.Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
    List<String> texts = List.of("0", "-0", "7", "42", "-42", "01", "-01", "00", "1.5", "-0.25", "1.", ".5", "1.e3",
        "1e3", "1E+3", "1e-3", "-1.5E-07", "1e", "1e+", "e3", "-", "", "+1", "1 ", " 1", "1_000", "0x1F", "NaN",
        "Infinity", "1.2.3", "1e3e4", "12345678901234567890", "٣");
    for (String text : texts) {
      assertThat(RowJson.isJsonNumber(text)).as(text).isEqualTo(grammar.matcher(text).matches());
    }
  }

  @Test
  void rendersTheSameTextAsUtf8Bytes() {
    ViewSchema schema = new ViewSchema(columns("k", "STRING", "n", "BIGINT"), List.of("k"));
    Map<String, String> row = Map.of("k", "Zürich \u2603", "n", "12");
    assertThat(new String(RowJson.renderUtf8(row, schema), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(RowJson.render(row, schema)).isEqualTo("{\"k\":\"Zürich \u2603\",\"n\":12}");
  }
}
