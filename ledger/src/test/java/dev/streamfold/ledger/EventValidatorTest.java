package dev.streamfold.ledger;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventValidatorTest {
  private static final List<StreamColumn> COLUMNS = List.of(new StreamColumn("delay", "INT"),
      new StreamColumn("date", "TIMESTAMP"), new StreamColumn("origin", "STRING"));

  private static EventEnvelope event(String key, String payload) {
    return new EventEnvelope(key, "", 1, payload, "", Map.of());
  }

  @Test
  void acceptsAWellFormedEvent() {
    assertThatCode(() -> EventValidator.check(0, event("ATL",
        "{\"delay\":3,\"date\":\"2001-01-01T00:01:00\",\"origin\":\"ATL\",\"extra\":[1]}"), COLUMNS))
        .doesNotThrowAnyException();
    assertThatCode(() -> EventValidator.check(0, event("ATL", "{\"delay\":null}"), COLUMNS))
        .doesNotThrowAnyException();
  }

  @Test
  void namesTheIndexAndTheField() {
    assertThatThrownBy(() -> EventValidator.check(3, event("", "{}"), COLUMNS))
        .hasMessage("event 3: field 'key' is missing or empty");
    assertThatThrownBy(() -> EventValidator.check(1, event("k", "[1,2]"), COLUMNS))
        .hasMessage("event 1: field 'payload_json' must be a JSON object, got array");
    assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"delay\":"), COLUMNS))
        .hasMessageStartingWith("event 0: field 'payload_json' is not valid JSON");
    assertThatThrownBy(() -> EventValidator.check(2, event("k", "{\"delay\":\"late\"}"), COLUMNS))
        .isInstanceOf(LedgerException.InvalidEvent.class)
        .hasMessageStartingWith("event 2: field 'payload_json.delay' must be a 32-bit integer");
    assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"date\":\"yesterday\"}"), COLUMNS))
        .hasMessageStartingWith("event 0: field 'payload_json.date' must be an ISO-8601");
    assertThatThrownBy(() -> EventValidator.check(0, event("k", ""), COLUMNS))
        .hasMessageStartingWith("event 0: field 'payload_json' is missing");
  }

  @Test
  void columnNamesAreDistinctAndNotReserved() {
    assertThatThrownBy(() -> StreamColumn.checkDistinct(List.of(new StreamColumn("a", "INT"), new StreamColumn("A", "STRING"))))
        .hasMessage("column 'A' is declared twice");
    assertThatThrownBy(() -> StreamColumn.checkDistinct(List.of(new StreamColumn("_key", "STRING"))))
        .hasMessageContaining("reserved");
    assertThatCode(() -> StreamColumn.checkDistinct(COLUMNS)).doesNotThrowAnyException();
  }

  @Test
  void checksInOneStreamingPass() {
    assertThatCode(() -> EventValidator.check(0, event("k",
        "{\"extra\":{\"deep\":[1,{\"delay\":\"x\"}]},\"delay\":5,\"date\":\"2015-01-01T06:05\"}"), COLUMNS))
        .as("an undeclared field's nested value is skipped, even one named like a column")
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"delay\":1} {}"), COLUMNS))
        .hasMessageContaining("payload_json").hasMessageContaining("content after the object");
    assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"delay\":2147483648}"), COLUMNS))
        .hasMessageContaining("payload_json.delay").hasMessageContaining("32-bit integer");
    assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"delay\":{\"a\":1}}"), COLUMNS))
        .hasMessageContaining("payload_json.delay").hasMessageContaining("got OBJECT");
    String deep = "{\"a\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
    assertThatThrownBy(() -> EventValidator.check(0, event("k", deep), COLUMNS))
        .hasMessageContaining("payload_json").hasMessageContaining("not valid JSON");
  }
}
