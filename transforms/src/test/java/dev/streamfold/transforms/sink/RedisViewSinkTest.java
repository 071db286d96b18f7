package dev.streamfold.transforms.sink;

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

  @Test
  void aPartitionedViewIsLiveOnlyOnceEveryPartitionOfTheTargetIsReached() {
    String target = "5:10:0:3,7:2:1:-1,9:4:3:0";
    assertThat(RedisViewSink.phase("5:10:0:3,7:2:1:-1", target)).as("partition 3 not read yet")
        .isEqualTo(ViewPhase.BACKFILLING);
    assertThat(RedisViewSink.phase("5:10:0:3,7:1:1:-1,9:4:3:0", target)).isEqualTo(ViewPhase.BACKFILLING);
    assertThat(RedisViewSink.phase("5:10:0:3,7:2:1:-1,9:4:3:0", target)).isEqualTo(ViewPhase.LIVE);
    assertThat(RedisViewSink.phase("5:11:0:0,7:9:1:-1,8:0:2:0,9:5:3:0", target)).isEqualTo(ViewPhase.LIVE);
  }
}
