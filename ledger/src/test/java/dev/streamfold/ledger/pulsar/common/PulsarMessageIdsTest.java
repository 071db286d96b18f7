package dev.streamfold.ledger.pulsar.common;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import org.apache.pulsar.client.impl.BatchMessageIdImpl;
import org.apache.pulsar.client.impl.MessageIdImpl;
import org.apache.pulsar.client.impl.TopicMessageIdImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PulsarMessageIdsTest {
  @ParameterizedTest
  @ValueSource(strings = {"12:345:-1:-1", "12:345:-1:7", "0:0:3:0", "7:8:2:-1"})
  void pulsarRoundTripsExactly(String text) {
    MessageId id = MessageId.parse(text);
    org.apache.pulsar.client.api.MessageId pulsar = PulsarMessageIds.toPulsar(id);
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
}
