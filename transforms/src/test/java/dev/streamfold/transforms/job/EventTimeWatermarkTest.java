package dev.streamfold.transforms.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EventTimeWatermarkTest {
  @Test
  void theWatermarkRisesOnlyWithTheLargestEventTimeLessTheDelay() {
    EventTimeWatermark watermark = new EventTimeWatermark(10, Long.MIN_VALUE, Long.MIN_VALUE);
    assertThat(watermark.advance(100)).isEqualTo(90);
    assertThat(watermark.advance(95)).as("below the largest: no new watermark").isEqualTo(EventTimeWatermark.NONE);
    assertThat(watermark.behind(85)).isTrue();
    assertThat(watermark.behind(90)).isFalse();
    assertThat(watermark.advance(130)).isEqualTo(120);
    assertThat(watermark.maxEventTimeMs()).isEqualTo(130);
    assertThat(watermark.watermarkMs()).isEqualTo(120);
  }

  @Test
  void aRestoredWatermarkIsNotEmittedAgainNorLowered() {
    EventTimeWatermark watermark = new EventTimeWatermark(10, 130, 120);
    assertThat(watermark.advance(125)).isEqualTo(EventTimeWatermark.NONE);
    assertThat(watermark.behind(119)).isTrue();
    assertThat(watermark.advance(131)).isEqualTo(121);
  }
}
