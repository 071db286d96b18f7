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
  void missingOrMistypedValuesAreNull() {
    Row row = parser.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, "{\"delay\":\"late\",\"date\":12}"));
    assertThat(row.getField(1)).isNull();
    assertThat(row.getField(2)).isNull();
    assertThat(row.getField(0)).isEqualTo(LocalDateTime.parse("1970-01-01T00:00:00.012"));
    Row garbage = parser.toRow(new SourceEvent("1:2:-1:-1", "k", 0, 0, "not json"));
    assertThat(garbage.getField(1)).isNull();
    assertThat(garbage.getField(4)).isEqualTo("k");
  }
}
