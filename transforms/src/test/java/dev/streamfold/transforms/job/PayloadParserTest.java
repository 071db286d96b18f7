package dev.streamfold.transforms.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.ledger.StreamColumn;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

class PayloadParserTest {
  private final PayloadParser parser = new PayloadParser(List.of(new StreamColumn("date", "TIMESTAMP"),
      new StreamColumn("delay", "INT"), new StreamColumn("origin", "STRING"), new StreamColumn("ok", "BOOLEAN")));

  @Test
  void parsesDeclaredColumnsThenMetadata() {
    Row row = parser.toRow(new SourceEvent("1:2:-1:-1", "ATL", 978307260000L, 0,
        "{\"date\":\"2001-01-01T00:01:00\",\"delay\":-3,\"origin\":\"ATL\",\"ok\":true}"));
    assertThat(row.getField(0)).isEqualTo(LocalDateTime.parse("2001-01-01T00:01:00"));
    assertThat(row.getField(1)).isEqualTo(-3);
    assertThat(row.getField(2)).isEqualTo("ATL");
    assertThat(row.getField(3)).isEqualTo(true);
    assertThat(row.getField(4)).isEqualTo("ATL");
    assertThat(row.getField(5)).isEqualTo(LocalDateTime.parse("2001-01-01T00:01:00"));
  }

  @Test
  void oldEventsWithoutAnAddedColumnAreReadWithItsDefault() {
    PayloadParser evolved = new PayloadParser(List.of(new StreamColumn("delay", "INT"),
        new StreamColumn("carrier", "STRING", false, "\"AA\""), new StreamColumn("seats", "INT", true, "150"),
        new StreamColumn("since", "TIMESTAMP", false, "\"2001-01-01T00:00:00\"")));
    Row old = evolved.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, "{\"delay\":5}"));
    assertThat(old.getField(1)).isEqualTo("AA");
    assertThat(old.getField(2)).isEqualTo(150);
    assertThat(old.getField(3)).isEqualTo(LocalDateTime.parse("2001-01-01T00:00:00"));
    Row explicit = evolved.toRow(new SourceEvent("1:3:-1:-1", "k", 0, 0, "{\"delay\":5,\"carrier\":\"UA\",\"seats\":null}"));
    assertThat(explicit.getField(1)).isEqualTo("UA");
    assertThat(explicit.getField(2)).as("an explicit null is not the default").isNull();
  }

  @Test
  void missingOrMistypedValuesAreNull() {
    Row row = parser.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, "{\"delay\":\"late\",\"date\":12}"));
    assertThat(row.getField(1)).isNull();
    assertThat(row.getField(2)).isNull();
    assertThat(row.getField(0)).isEqualTo(LocalDateTime.parse("1970-01-01T00:00:00.012"));
    Row garbage = parser.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, "not json"));
    assertThat(garbage.getField(1)).isNull();
    assertThat(garbage.getField(4)).isEqualTo("k");
  }

  @Test
  void streamingParseAgreesWithTheJsonTreeRules() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    String[] names = {"date", "delay", "origin", "ok"};
    String[] types = {"TIMESTAMP", "INT", "STRING", "BOOLEAN"};
    for (String payload : List.of("{\"date\":\"2001-01-01T00:01\",\"delay\":2147483648,\"origin\":7,\"ok\":\"yes\"}",
        "{\"date\":null,\"delay\":1.5,\"origin\":{\"a\":[1,2]},\"ok\":false,\"extra\":{\"delay\":3}}",
        "{\"date\":\"2001-02-30T00:00\",\"delay\":-7,\"origin\":[\"x\"],\"delay\":8}",
        "{\"date\":-5,\"origin\":true}")) {
      Row row = parser.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, payload));
      var tree = json.readTree(payload);
      for (int i = 0; i < names.length; i++) {
        assertThat(row.getField(i)).as(payload + " " + names[i]).isEqualTo(PayloadParser.value(types[i], tree.get(names[i])));
      }
    }
  }

  @Test
  void onlyColumnsTheSqlReadsAreParsed() {
    List<StreamColumn> columns = List.of(new StreamColumn("date", "TIMESTAMP"), new StreamColumn("delay", "INT"),
        new StreamColumn("origin", "STRING"));
    String payload = "{\"date\":\"2001-01-01T00:01:00\",\"delay\":4,\"origin\":\"ATL\"}";
    Row row = new PayloadParser(columns, List.of("SELECT origin, SUM(delay) AS d FROM flights WHERE 'date' <> origin"
        + " GROUP BY origin")).toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, payload));
    assertThat(row.getField(0)).as("only named in a string literal").isNull();
    assertThat(row.getField(1)).isEqualTo(4);
    assertThat(row.getField(2)).isEqualTo("ATL");
    Row all = new PayloadParser(columns, List.of("SELECT * FROM flights")).toRow(
        new SourceEvent("1:2:-1:-1", "k", 0, 0, payload));
    assertThat(all.getField(0)).isEqualTo(LocalDateTime.parse("2001-01-01T00:01:00"));
  }
}
