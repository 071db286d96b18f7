package dev.streamfold.views;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ViewNameQuotingTest {
  @Test
  void hostileNamesAreQuotedEscapedAndShortened() {
    assertThatThrownBy(() -> new ViewName("demo", "v".repeat(10_000)))
        .hasMessageStartingWith("invalid view name '" + "v".repeat(80) + "... (10000 characters)': use");
    assertThatThrownBy(() -> new ViewName("demo", "a\r\nb")).hasMessageStartingWith("invalid view name 'a\\u000d\\u000ab'");
    assertThatThrownBy(() -> new ViewName("../x", "v")).hasMessageStartingWith("invalid tenant name '../x'");
  }
}
