package dev.streamfold.transforms.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.views.ViewPhase;
import org.junit.jupiter.api.Test;

class RedisViewSinkTest {
  @Test
  void liveOnceThePositionReachesTheBackfillTarget() {
    assertThat(RedisViewSink.phase("", "")).isEqualTo(ViewPhase.LIVE);
    assertThat(RedisViewSink.phase("", "5:10:-1:3")).isEqualTo(ViewPhase.BACKFILLING);
    assertThat(RedisViewSink.phase("5:10:-1:2", "5:10:-1:3")).isEqualTo(ViewPhase.BACKFILLING);
    assertThat(RedisViewSink.phase("5:9:-1:999", "5:10:-1:3")).isEqualTo(ViewPhase.BACKFILLING);
    assertThat(RedisViewSink.phase("5:10:-1:3", "5:10:-1:3")).isEqualTo(ViewPhase.LIVE);
    assertThat(RedisViewSink.phase("6:0:-1:0", "5:10:-1:3")).isEqualTo(ViewPhase.LIVE);
  }
}
