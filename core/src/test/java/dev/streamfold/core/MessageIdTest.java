package dev.streamfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MessageIdTest {
  @ParameterizedTest
  @ValueSource(strings = {"12:345:-1:-1", "12:345:-1:7", "0:0:3:0", "9223372036854775807:1:2:999", "-1:-1:-1:-1"})
  void textRoundTripsExactly(String text) {
    assertThat(MessageId.parse(text).toString()).isEqualTo(text);
  }

  @Test
  void ordersWithinAPartition() {
    assertThat(MessageId.parse("3:4:-1:5")).isLessThan(MessageId.parse("3:4:-1:6"));
    assertThat(MessageId.parse("3:4:-1:99")).isLessThan(MessageId.parse("3:5:-1:0"));
    assertThat(MessageId.parse("3:99:-1:-1")).isLessThan(MessageId.parse("4:0:-1:-1"));
    assertThatThrownBy(() -> MessageId.parse("3:4:0:5").compareTo(MessageId.parse("3:4:1:5")))
        .hasMessageContaining("partitions 0 and 1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1:2:3", "a:b:c:d", "1:2:3:4:5", "1:-2:-1:-1"})
  void rejectsMalformedText(String text) {
    assertThatThrownBy(() -> MessageId.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }
}
