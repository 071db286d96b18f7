package dev.streamfold.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.ledger.pulsar.common.PulsarMessageIds;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.impl.BatchMessageIdImpl;
import org.apache.pulsar.client.impl.MessageIdImpl;
import org.apache.pulsar.client.impl.TopicMessageIdImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MessageIdTextTest {
  @ParameterizedTest
  @ValueSource(strings = {"12:345:-1:-1", "12:345:-1:7", "0:0:3:0", "9223372036854775807:1:2:999", "-1:-1:-1:-1"})
  void textRoundTripsExactly(String text) {
    assertThat(MessageIdText.parse(text).toString()).isEqualTo(text);
  }

  @ParameterizedTest
  @ValueSource(strings = {"12:345:-1:-1", "12:345:-1:7", "0:0:3:0", "7:8:2:-1"})
  void pulsarRoundTripsExactly(String text) {
    MessageIdText id = MessageIdText.parse(text);
    MessageId pulsar = PulsarMessageIds.toPulsar(id);
    assertThat(PulsarMessageIds.toText(pulsar)).isEqualTo(id);
    assertThat(pulsar instanceof BatchMessageIdImpl).isEqualTo(id.batchIndex() >= 0);
  }

  @Test
  void readsPulsarsOwnIds() {
    assertThat(PulsarMessageIds.toText(new MessageIdImpl(3, 4, -1))).hasToString("3:4:-1:-1");
    assertThat(PulsarMessageIds.toText(new BatchMessageIdImpl(3, 4, 2, 5))).hasToString("3:4:2:5");
    assertThat(PulsarMessageIds.toText(new TopicMessageIdImpl("t-partition-2", new BatchMessageIdImpl(3, 4, 2, 5))))
        .hasToString("3:4:2:5");
  }

  @Test
  void ordersWithinAPartition() {
    assertThat(MessageIdText.parse("3:4:-1:5")).isLessThan(MessageIdText.parse("3:4:-1:6"));
    assertThat(MessageIdText.parse("3:4:-1:99")).isLessThan(MessageIdText.parse("3:5:-1:0"));
    assertThat(MessageIdText.parse("3:99:-1:-1")).isLessThan(MessageIdText.parse("4:0:-1:-1"));
    assertThatThrownBy(() -> MessageIdText.parse("3:4:0:5").compareTo(MessageIdText.parse("3:4:1:5")))
        .hasMessageContaining("partitions 0 and 1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1:2:3", "a:b:c:d", "1:2:3:4:5", "1:-2:-1:-1"})
  void rejectsMalformedText(String text) {
    assertThatThrownBy(() -> MessageIdText.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }
}
