package dev.streamfold.transforms.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import org.junit.jupiter.api.Test;

class SourceEventTest {

  @Test
  void partitionIsTheSetOneOrTheMessageIdsThirdField() {
    assertThat(new SourceEvent("12:5:-1:4", "k", 1, 1, "{}").partitionIndex()).isEqualTo(-1);
    assertThat(new SourceEvent("12:5:3:-1", "k", 1, 1, "{}").partitionIndex()).isEqualTo(3);
    assertThat(new SourceEvent("123456789012:987654321:15:999", "k", 1, 1, "{}").partitionIndex()).isEqualTo(15);
    SourceEvent set = new SourceEvent("12:5:-1:4", "k", 1, 1, "{}");
    set.partition = 2; // the source's own (e.g. from the partition's topic name)
    assertThat(set.partitionIndex()).isEqualTo(2);
  }

  @Test
  void positionIsTheSetOneOrTheParsedText() {
    SourceEvent parsed = new SourceEvent("12:5:3:7", "k", 1, 1, "{}");
    assertThat(parsed.position()).isEqualTo(new MessageId(12, 5, 3, 7));
    assertThat(parsed.position()).isSameAs(parsed.position()); // parsed once

    SourceEvent set = new SourceEvent(null, "k", 1, 1, "{}");
    MessageId id = new MessageId(210, 64, 2, 999);
    set.position(id);
    assertThat(set.position()).isSameAs(id);
    assertThat(set.messageId).isEqualTo("210:64:2:999");
    assertThat(set.partitionIndex()).isEqualTo(2);
    assertThat(MessageId.parse(set.messageId)).isEqualTo(id);
  }
}
