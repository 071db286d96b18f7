package dev.streamfold.schema;

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
  void aLoneSurrogateEscapeIsRefusedAPairIsNot() {
    for (String lone : List.of("{\"s\":\"\\ud800\"}", "{\"s\":\"a\\uDBFFb\"}", "{\"s\":\"\\udc00\"}",
        "{\"s\":\"\\ude00\\ud83d\"}", "{\"\\ud800\":1}", "{\"s\":\"\\ud83d\\u0041\"}",
        "{\"s\":\"\\ud83d\\ud83d\\ude00\"}")) {
      assertThatThrownBy(() -> EventValidator.check(3, event("k", lone), COLUMNS)).as(lone)
          .isInstanceOf(InvalidEventException.class)
          .hasMessageStartingWith("event 3: field 'payload_json' holds a lone UTF-16 surrogate escape \\u")
          .hasMessageContaining("e.g. \\ud83d\\ude00");
    }
    assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"s\":\"ab\\ud800\"}"), COLUMNS))
        .hasMessage("event 0: field 'payload_json' holds a lone UTF-16 surrogate escape \\ud800 at byte 8: JSON text"
            + " is Unicode, and a surrogate escape is a high one (\\ud800-\\udbff) followed at once by a low one"
            + " (\\udc00-\\udfff), e.g. \\ud83d\\ude00");
    for (String fine : List.of("{\"s\":\"\\ud83d\\ude00\"}", "{\"s\":\"\\\\ud800\"}", "{\"s\":\"\\u00e9\\\"\"}",
        "{\"s\":\"\\uD83D\\uDE00 \\uE000\"}", "{\"s\":\"\uD83D\uDE00\"}")) {
      assertThatCode(() -> EventValidator.check(0, event("k", fine), COLUMNS)).as(fine).doesNotThrowAnyException();
    }
  }

  @Test
  void aLoneSurrogateInAClientsTextIsRefusedBeforeUtf8TurnsItIntoAQuestionMark() {
    assertThatThrownBy(() -> EventValidator.check(2, event("k", "{\"s\":\"a\uD800\"}"), COLUMNS, 0))
        .hasMessage("event 2: field 'payload_json' holds a lone UTF-16 surrogate U+D800 at character 7, which is no"
            + " character and which UTF-8 cannot encode (it would be sent as '?')");
    assertThatThrownBy(() -> EventValidator.check(0, event("\uDC00k", "{}"), COLUMNS, 0))
        .hasMessageStartingWith("event 0: field 'key' holds a lone UTF-16 surrogate U+DC00 at character 0");
    assertThatThrownBy(() -> EventValidator.check(0, new EventEnvelope("k", "", 1, "{}", "", Map.of("h", "\uD83D")),
        COLUMNS, 0)).hasMessageStartingWith("event 0: field 'headers' holds a lone UTF-16 surrogate U+D83D");
    assertThatCode(() -> EventValidator.check(0, event("\uD83D\uDE00", "{\"s\":\"\uD83D\uDE00\"}"), COLUMNS, 0))
        .doesNotThrowAnyException();
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
  void checksTimestampTextsWithoutParsingThemAsTheJdkWould() {
    for (String valid : List.of("2001-01-01T00:01", "2000-02-29T23:59:59.5", "2001-12-31T00:00:00.123456789",
        "+12001-01-01T00:00", "2001-01-01T00:00:00.")) {
      assertThatCode(() -> EventValidator.check(0, event("k", "{\"date\":\"" + valid + "\"}"), COLUMNS)).as(valid)
          .doesNotThrowAnyException();
    }
    for (String invalid : List.of("2001-02-29T00:00", "2001-04-31T00:00:00", "2001-01-01T24:00", "2001-01-01T00:60",
        "2001-01-01T00:00:60", "2001-01-01 00:00:00", "2001-01-01T00:00:00.1234567890")) {
      assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"date\":\"" + invalid + "\"}"), COLUMNS))
          .as(invalid).hasMessageStartingWith("event 0: field 'payload_json.date' must be an ISO-8601");
    }
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
        .isInstanceOf(InvalidEventException.class)
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
        .hasMessage("event 0: field 'payload_json' is nested deeper than 1000 levels of objects and arrays");
    String deepest = "{\"a\":" + "[".repeat(EventValidator.MAX_NESTING_DEPTH - 1) + "]".repeat(EventValidator.MAX_NESTING_DEPTH - 1) + "}";
    assertThatCode(() -> EventValidator.check(0, event("k", deepest), COLUMNS)).doesNotThrowAnyException();
  }

  private static final long NOW = 1_764_500_000_000L; // 2025-11-30T10:53:20Z

  private static EventEnvelope timed(long eventTimeMs) {
    return new EventEnvelope("k", "", eventTimeMs, "{}", "", Map.of());
  }

  @Test
  void eventTimesAreBetweenZeroAndOneDayAfterTheServerClock() {
    assertThatCode(() -> EventValidator.check(0, timed(0), COLUMNS, NOW)).as("0: the append time").doesNotThrowAnyException();
    assertThatCode(() -> EventValidator.check(0, timed(1), COLUMNS, NOW)).as("far past").doesNotThrowAnyException();
    assertThatCode(() -> EventValidator.check(0, timed(NOW + EventValidator.MAX_EVENT_TIME_AHEAD_MS), COLUMNS, NOW))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> EventValidator.check(4, timed(NOW + EventValidator.MAX_EVENT_TIME_AHEAD_MS + 1), COLUMNS, NOW))
        .hasMessageStartingWith("event 4: field 'event_time_ms' is 1764586400001 (2025-12-01T10:53:20.001Z), more than 1 day"
            + " after the server's clock (2025-11-30T10:53:20Z)");
    assertThatThrownBy(() -> EventValidator.check(0, timed(Long.MAX_VALUE), COLUMNS, NOW))
        .hasMessageContaining("event_time_ms").hasMessageContaining("more than 1 day after");
    assertThatThrownBy(() -> EventValidator.check(0, timed(-1), COLUMNS, NOW))
        .hasMessage("event 0: field 'event_time_ms' is negative: -1 (epoch ms; 0 means the append time)");
  }

  @Test
  void sizesAreBytesOfUtf8() {
    String emoji = "\uD83D\uDE00"; // 4 bytes of UTF-8, 2 chars
    assertThatCode(() -> EventValidator.check(0, event(emoji.repeat(256), "{}"), COLUMNS)).doesNotThrowAnyException();
    assertThatThrownBy(() -> EventValidator.check(0, event(emoji.repeat(257), "{}"), COLUMNS))
        .hasMessage("event 0: field 'key' is longer than 1024 bytes of UTF-8 (1028)");
    String big = "{\"s\":\"" + "\u00e9".repeat(EventValidator.MAX_PAYLOAD_BYTES / 2) + "\"}"; // under 1 Mi chars, over 1 MiB
    assertThatThrownBy(() -> EventValidator.check(0, event("k", big), COLUMNS))
        .hasMessageStartingWith("event 0: field 'payload_json' is larger than 1048576 bytes of UTF-8");
    assertThatThrownBy(() -> EventValidator.check(0, new EventEnvelope("k", "", 1, "{}", "",
        Map.of("h", "v".repeat(EventValidator.MAX_HEADERS_BYTES))), COLUMNS))
        .hasMessage("event 0: field 'headers' hold 65537 bytes; at most 65536 bytes of names and values");
    assertThatCode(() -> EventValidator.check(0, event("nul\0key\r\n" + emoji, "{}"), COLUMNS)).as("binary-safe keys")
        .doesNotThrowAnyException();
  }

  /**
   * A header named like the ledger's own message properties was stored as one: after a crash the idempotency
   * index, catching up from the ledger, took {@code sf.idempotency-key} for the event's key and answered a
   * later event with that key as a repeat (dropping it); {@code sf.type} was read back as the event's type.
   */
  @Test
  void headersCannotUseTheLedgersOwnPropertyNames() {
    for (String name : List.of(EventEnvelope.IDEMPOTENCY_KEY_PROPERTY, EventEnvelope.TYPE_PROPERTY, "sf.anything")) {
      assertThatThrownBy(() -> EventValidator.check(3, new EventEnvelope("k", "", 1, "{}", "",
          Map.of("trace", "t1", name, "v")), COLUMNS))
          .isInstanceOf(InvalidEventException.class)
          .hasMessage("event 3: field 'headers' has a header named '" + name + "': names starting with 'sf.' are"
              + " the ledger's own (the event's type and idempotency key have their own fields)");
    }
    assertThatThrownBy(() -> EventValidator.check(0, new EventEnvelope("k", "", 1, "{}", "", Map.of("", "v")), COLUMNS))
        .hasMessage("event 0: field 'headers' has a header with an empty name");
    assertThatCode(() -> EventValidator.check(0, new EventEnvelope("k", "", 1, "{}", "",
        Map.of("SF.type", "v", "x-sf.type", "v", "sf", "v")), COLUMNS)).doesNotThrowAnyException();
  }

  @Test
  void checksRequiredColumnsAndNonAsciiTextFromTheUtf8Bytes() {
    List<StreamColumn> columns = List.of(new StreamColumn("origin", "STRING", true, null),
        new StreamColumn("delay", "INT", true, null), new StreamColumn("note", "STRING"));
    String ok = "{\"origin\":\"Z\u00fcrich \uD83D\uDE00\",\"delay\":3,\"\u00e9t\u00e9\":[{\"a\":\"\u00e9\"}]}";
    assertThatCode(() -> EventValidator.check(0, event("k", ok), columns)).doesNotThrowAnyException();
    byte[] utf8 = ok.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThatCode(() -> EventValidator.check(0, event("k", ok), utf8, columns, System.currentTimeMillis()))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> EventValidator.check(4, event("k", "{\"origin\":\"\u00e9\",\"delay\":null,\"delay\":null}"),
        columns)).hasMessage("event 4: field 'payload_json.delay' is missing or null, but the stream's schema requires"
        + " it (column delay INT NOT NULL)");
    assertThatCode(() -> EventValidator.check(0, event("k", "{\"delay\":null,\"delay\":1,\"origin\":\"x\"}"), columns))
        .as("a later non-null value of a repeated field counts").doesNotThrowAnyException();
    assertThatThrownBy(() -> EventValidator.check(1, event("k", "{\"origin\":\"x\",\"delay\":\"\u00e9\"}"), columns))
        .hasMessage("event 1: field 'payload_json.delay' must be a 32-bit integer (column type INT), got '\u00e9'");
  }

  /**
   * A NOT NULL column with a DEFAULT: a missing field is read with the DEFAULT (stored events were; new ones were
   * refused, tryout 14), an explicit null is still refused.
   */
  @Test
  void aNotNullColumnsDefaultStandsInForAMissingFieldNotForNull() {
    List<StreamColumn> columns = List.of(StreamColumn.parse("w:INT NOT NULL DEFAULT 5"));
    assertThatCode(() -> EventValidator.check(0, event("k", "{\"other\":1}"), columns)).doesNotThrowAnyException();
    assertThatCode(() -> EventValidator.check(0, event("k", "{\"w\":7}"), columns)).doesNotThrowAnyException();
    assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"w\":null}"), columns))
        .hasMessage("event 0: field 'payload_json.w' is missing or null, but the stream's schema requires it"
            + " (column w INT NOT NULL DEFAULT 5); its DEFAULT applies only to an event without the field, and an"
            + " explicit null (an empty CSV value) is a value");
  }

  @Test
  void timestampColumnsHoldSqlTimestampYearsAndLongValuesAreShortened() {
    assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"date\":9223372036854775807}"), COLUMNS))
        .hasMessageContaining("payload_json.date").hasMessageContaining("years 0000..9999");
    assertThatCode(() -> EventValidator.check(0, event("k", "{\"date\":253402300799999}"), COLUMNS))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> EventValidator.check(0, event("k", "{\"delay\":\"" + "x".repeat(100_000) + "\"}"), COLUMNS))
        .hasMessageEndingWith("... (100000 characters)'");
  }
}
