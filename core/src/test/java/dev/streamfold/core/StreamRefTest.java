package dev.streamfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
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
        .hasMessageStartingWith("invalid stream name '" + "s".repeat(ClientText.MAX_QUOTED_CHARS) + "... (10000 characters)'")
        .hasMessageContaining("at most 100 characters");
    assertThatThrownBy(() -> new StreamRef("../etc", "s")).hasMessageStartingWith("invalid tenant name '../etc'");
  }

  /** Names Pulsar gives its own topics: the list of streams hid them, and a partition's name is another stream's. */
  @Test
  void pulsarsOwnTopicNamesAreRefused() {
    assertThatThrownBy(() -> new StreamRef("demo", "orders-partition-0"))
        .hasMessage("invalid stream name 'orders-partition-0': '-partition-' is how Pulsar names the topic of one"
            + " partition of a partitioned stream");
    assertThatThrownBy(() -> new StreamRef("demo", "__change_events"))
        .hasMessage("invalid stream name '__change_events': names starting with '__' are Pulsar's system topics");
    assertThatCode(() -> new StreamRef("demo", "_orders-partitions_2")).doesNotThrowAnyException();
    assertThat(new StreamRef("demo", "orders").partitionTopic(2)).isEqualTo("persistent://demo/ledger/orders-partition-2");
  }
}
