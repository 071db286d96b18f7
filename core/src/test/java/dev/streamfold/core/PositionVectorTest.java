package dev.streamfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PositionVectorTest {
  @ParameterizedTest
  @ValueSource(strings = {"", "12:345:-1:-1", "12:5:0:-1,13:2:1:-1", "3:4:0:5,3:4:1:-1,9:0:7:2"})
  void textRoundTripsExactly(String text) {
    assertThat(PositionVector.parse(text)).hasToString(text);
    assertThat(PositionVector.parse(PositionVector.parse(text).toString())).isEqualTo(PositionVector.parse(text));
  }

  @Test
  void isTheJoinOfItsMessageIdsInPartitionOrder() {
    PositionVector v = PositionVector.of(List.of(MessageId.parse("13:2:1:-1"), MessageId.parse("12:5:0:-1")));
    assertThat(v).hasToString("12:5:0:-1,13:2:1:-1");
    assertThat(v.texts()).containsExactly("12:5:0:-1", "13:2:1:-1");
    assertThat(v.messageIds()).extracting(MessageId::partition).containsExactly(0, 1);
    assertThat(v.size()).isEqualTo(2);
    assertThat(PositionVector.parse("")).isSameAs(PositionVector.EMPTY);
    assertThat(PositionVector.EMPTY.isEmpty()).isTrue();
    assertThat(PositionVector.EMPTY.texts()).isEmpty();
  }

  @Test
  void rejectsAnElementThatIsNotAMessageIdNamingIt() {
    assertThatThrownBy(() -> PositionVector.parse("12:5:0:-1,1:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid position vector '12:5:0:-1,1:2': invalid message ID '1:2': expected"
            + " ledgerId:entryId:partition:batchIndex, e.g. 12:345:-1:-1");
    assertThatThrownBy(() -> PositionVector.parse("12:5:0:-1,")).hasMessageContaining("invalid message ID ''");
    assertThatThrownBy(() -> PositionVector.parse(null)).hasMessage("position vector is missing");
  }

  @Test
  void rejectsTwoMessageIdsOfOnePartition() {
    assertThatThrownBy(() -> PositionVector.parse("12:5:0:-1,13:2:0:-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("position vector names partition 0 twice: 12:5:0:-1,13:2:0:-1");
  }

  @Test
  void reachesAMessageIdAtOrBeforeItsPartitionsEntry() {
    PositionVector v = PositionVector.parse("5:20:0:3,6:1:1:-1");
    assertThat(v.at(1)).contains(MessageId.parse("6:1:1:-1"));
    assertThat(v.at(2)).isEmpty();
    assertThat(v.reached(MessageId.parse("5:20:0:3"))).isTrue();
    assertThat(v.reached(MessageId.parse("5:19:0:99"))).isTrue();
    assertThat(v.reached(MessageId.parse("5:20:0:4"))).isFalse();
    assertThat(v.reached(MessageId.parse("1:1:2:-1"))).as("a partition it does not list").isFalse();
    assertThat(v.reached(MessageId.parse("1:1:-1:-1"))).as("another kind of stream").isFalse();
  }

  @Test
  void reachesAVectorWhenEveryPartitionOfItIsReached() {
    PositionVector v = PositionVector.parse("5:20:0:3,6:1:1:-1");
    assertThat(v.reached(PositionVector.EMPTY)).isTrue();
    assertThat(v.reached(PositionVector.parse("5:20:0:3,6:1:1:-1"))).isTrue();
    assertThat(v.reached(PositionVector.parse("5:2:0:-1"))).isTrue();
    assertThat(v.reached(PositionVector.parse("5:2:0:-1,6:2:1:-1"))).isFalse();
    assertThat(v.reached(PositionVector.parse("5:2:0:-1,1:0:2:-1"))).isFalse();
    assertThat(PositionVector.EMPTY.reached(PositionVector.parse("1:0:-1:-1"))).isFalse();
  }
}
