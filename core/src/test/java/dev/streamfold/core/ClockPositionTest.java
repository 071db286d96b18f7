package dev.streamfold.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ClockPositionTest {

  @Test
  void theTextFormRoundTrips() {
    TreeMap<String, PositionVector> streams = new TreeMap<>();
    streams.put("flights", PositionVector.parse("12:38:1:-1,11:40:0:-1"));
    streams.put("airports", PositionVector.parse("10:3:-1:-1"));
    ClockPosition position = new ClockPosition(17, streams);
    assertThat(position.toString()).isEqualTo("17 airports=10:3:-1:-1 flights=11:40:0:-1,12:38:1:-1");
    assertThat(ClockPosition.parse(position.toString())).isEqualTo(position);
    assertThat(ClockPosition.parse("0")).isEqualTo(ClockPosition.START);
    assertThat(ClockPosition.parse("")).isEqualTo(ClockPosition.NONE);
    assertThat(ClockPosition.NONE.toString()).isEmpty();
    assertThat(ClockPosition.START.toString()).isEqualTo("0");
  }

  @Test
  void aTicksVectorsOfTheStreamsRead() {
    TreeMap<String, PositionVector> streams = new TreeMap<>();
    streams.put("flights", PositionVector.parse("11:40:0:-1"));
    streams.put("airports", PositionVector.parse("10:3:-1:-1"));
    streams.put("other", PositionVector.parse("9:1:-1:-1"));
    ClockPosition position = ClockPosition.at(new Tick(5, 1, streams), List.of("airports", "flights", "empty"));
    assertThat(position.toString()).isEqualTo("5 airports=10:3:-1:-1 flights=11:40:0:-1");
    assertThat(position.position("empty")).isEqualTo(PositionVector.EMPTY);
  }

  @Test
  void malformedTextIsRefusedWithTheText() {
    for (String text : List.of("x", "-1", "3 flights", "3 =1:2:-1:-1", "3 a=1:2:-1:-1 a=1:3:-1:-1", "3 a=nope", "3  a=1:2:-1:-1")) {
      assertThatThrownBy(() -> ClockPosition.parse(text)).as(text).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("invalid clock position '" + text + "'");
    }
  }
}
