package dev.streamfold.schema;

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

  @Test
  void theAllocationFreeCheckAcceptsExactlyWhatTheJdkAcceptsAmongTheCommonShapes() {
    List<String> texts = new java.util.ArrayList<>(List.of("2015-01-01T06:05", "2015-01-01T06:05:07.1",
        "2015-12-31T23:59:59.999999999", "0000-01-01T00:00:00", "9999-12-31T23:59:59", "2015-01-01T24:00",
        "2015-01-01T23:60", "2015-01-01T23:59:60", "2015-01-01T06:05:07.", "2015-01-01T06:05:07.1234567891",
        "2015-01-01 06:05:07", "x015-01-01T06:05:07", "2015-01-01T06:5:07", "2015-01-01", "+12015-01-01T00:00",
        "2015-01-01T06:05:07Z", "2015-01-01T06:05:0x"));
    for (int year : new int[] {1900, 2000, 2001, 2004, 2100, 0}) {
      for (int month = 0; month <= 13; month++) {
        for (int day = 0; day <= 32; day++) {
          texts.add(String.format("%04d-%02d-%02dT12:30:45", year, month, day));
        }
      }
    }
    for (String text : texts) {
      boolean jdk;
      try {
        LocalDateTime.parse(text);
        jdk = true;
      } catch (DateTimeParseException e) {
        jdk = false;
      }
      char[] padded = ("[" + text + "]").toCharArray(); // an offset into a larger buffer, like Jackson's
      boolean fast = IsoDateTimes.isValidCommonShape(padded, 1, text.length());
      if (fast) {
        assertThat(jdk).as("accepted by the fast check but not the JDK: %s", text).isTrue();
      }
      if (jdk && text.length() <= 29 && !text.startsWith("+") && !text.endsWith(".")) {
        assertThat(fast).as("a valid common shape the fast check refuses: %s", text).isTrue();
      }
    }
  }
}
