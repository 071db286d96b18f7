package dev.streamfold.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientTextTest {
  @Test
  void quotesAnyTextEscapingWhatBreaksTheLine() {
    assertThat(ClientText.quote("orders")).isEqualTo("'orders'");
    assertThat(ClientText.quote("bad\r\nname\u0000")).isEqualTo("'bad\\u000d\\u000aname\\u0000'");
    assertThat(ClientText.quote("a\u2028b\u2029c")).isEqualTo("'a\\u2028b\\u2029c'");
    assertThat(ClientText.quote("vols_été_✈")).as("other scripts and symbols read as sent").isEqualTo("'vols_été_✈'");
    assertThat(ClientText.quote(null)).isEqualTo("null");
    assertThat(ClientText.shorten("x\ty")).isEqualTo("x\\u0009y");
  }

  @Test
  void quotesAtMost80CharactersAndCountsTheRest() {
    assertThat(ClientText.quote("s".repeat(10_000)))
        .isEqualTo("'" + "s".repeat(ClientText.MAX_QUOTED_CHARS) + "... (10000 characters)'");
    assertThat(ClientText.shorten("s".repeat(80))).isEqualTo("s".repeat(80));
  }

  @Test
  void keepsOnlyPrintableAsciiWhereOnlyThatIsValid() {
    assertThat(ClientText.printableAscii("acme")).isEqualTo("acme");
    assertThat(ClientText.printableAscii("\u0430cme\n")).as("a Cyrillic look-alike and a control").isEqualTo("?cme?");
    assertThat(ClientText.printableAscii("t".repeat(81))).isEqualTo("t".repeat(80) + "...");
    assertThat(ClientText.printableAscii("t".repeat(80))).isEqualTo("t".repeat(80));
  }
}
