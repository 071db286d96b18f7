package dev.streamfold.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.junit.jupiter.api.Test;

class IsoDateTimesTest {

  @Test
  void agreesWithTheJdkOnValidTexts() {
    for (String text : List.of("2015-01-01T06:05", "2015-01-01T06:05:07", "2015-01-01T06:05:07.1",
        "2015-01-01T06:05:07.123", "2015-12-31T23:59:59.999999999", "2016-02-29T00:00", "+12015-01-01T00:00",
        "0001-01-01T00:00:00",
        "2015-01-01T06:05:07.")) {
      assertThat(IsoDateTimes.parse(text)).as(text).isEqualTo(LocalDateTime.parse(text));
    }
  }

  @Test
  void rejectsWhatTheJdkRejects() {
    for (String text : List.of("2015-02-30T00:00", "2015-13-01T00:00", "2015-01-01T24:00", "2015-01-01 06:05:07",
        "2015-01-01T06:05:07.1234567891", "2015-1-01T06:05", "x015-01-01T06:05:07",
        "2015-01-01T06:5:07", "2015-01-01")) {
      assertThatThrownBy(() -> IsoDateTimes.parse(text)).as(text).isInstanceOf(DateTimeParseException.class);
    }
  }
}
