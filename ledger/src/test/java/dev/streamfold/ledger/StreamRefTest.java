package dev.streamfold.ledger;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StreamRefTest {
  @Test
  void hostileNamesAreRefusedAndQuotedSafely() {
    assertThatThrownBy(() -> new StreamRef("demo", "")).hasMessageStartingWith("invalid stream name '': use");
    assertThatThrownBy(() -> new StreamRef("demo", "a/b")).hasMessageStartingWith("invalid stream name 'a/b'");
    assertThatThrownBy(() -> new StreamRef("demo", "..")).hasMessageStartingWith("invalid stream name '..'");
    assertThatThrownBy(() -> new StreamRef("demo", "bad\r\nname\0"))
        .hasMessageStartingWith("invalid stream name 'bad\\u000d\\u000aname\\u0000'");
    assertThatThrownBy(() -> new StreamRef("demo", "s".repeat(10_000)))
        .hasMessageStartingWith("invalid stream name '" + "s".repeat(Names.MAX_QUOTED_CHARS) + "... (10000 characters)'")
        .hasMessageContaining("at most 100 characters");
    assertThatThrownBy(() -> new StreamRef("../etc", "s")).hasMessageStartingWith("invalid tenant name '../etc'");
  }
}
