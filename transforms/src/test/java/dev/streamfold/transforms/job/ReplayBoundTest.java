package dev.streamfold.transforms.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.transforms.source.SourceEvent;
import org.junit.jupiter.api.Test;

class ReplayBoundTest {
  private static SourceEvent at(String id, long timeMs) {
    return new SourceEvent(id, "k", timeMs, 0, "{}");
  }

  @Test
  void messageIdStopsCompareBatchIndexes() {
    ReplayBound to = new ReplayBound(null, Long.MIN_VALUE, "7:3:-1:4", true, Long.MAX_VALUE, true);
    ReplayBound before = new ReplayBound(null, Long.MIN_VALUE, "7:3:-1:4", false, Long.MAX_VALUE, true);
    assertThat(to.pastStop(at("7:3:-1:4", 0))).isFalse();
    assertThat(to.pastStop(at("7:3:-1:5", 0))).isTrue();
    assertThat(before.pastStop(at("7:3:-1:3", 0))).isFalse();
    assertThat(before.pastStop(at("7:3:-1:4", 0))).isTrue();
    assertThat(to.pastStop(at("7:4:-1:-1", 0))).isTrue();
    assertThat(to.pastStop(at("6:900:-1:-1", 0))).isFalse();
  }

  @Test
  void positionVectorsStopEachPartitionAtItsOwnMessageIdAndLeaveOutUnlistedPartitions() {
    ReplayBound to = new ReplayBound(null, Long.MIN_VALUE, "7:3:0:4,9:1:2:-1", true, Long.MAX_VALUE, true);
    ReplayBound before = new ReplayBound(null, Long.MIN_VALUE, "7:3:0:4,9:1:2:-1", false, Long.MAX_VALUE, true);
    assertThat(to.pastStop(at("7:3:0:4", 0))).isFalse();
    assertThat(to.pastStop(at("7:3:0:5", 0))).isTrue();
    assertThat(to.pastStop(at("9:1:2:-1", 0))).isFalse();
    assertThat(to.pastStop(at("9:2:2:-1", 0))).isTrue();
    assertThat(to.pastStop(at("1:1:1:-1", 0))).as("partition 1 is not in the vector").isTrue();
    assertThat(before.pastStop(at("7:3:0:4", 0))).isTrue();
    assertThat(before.pastStop(at("9:0:2:-1", 0))).isFalse();
  }

  @Test
  void eventTimeStopsAreInclusiveOrExclusiveAtTheTimeItself() {
    ReplayBound to = new ReplayBound(null, Long.MIN_VALUE, null, true, 1000, true);
    ReplayBound before = new ReplayBound(null, Long.MIN_VALUE, null, true, 1000, false);
    assertThat(to.pastStop(at("1:1:-1:-1", 1000))).isFalse();
    assertThat(to.pastStop(at("1:1:-1:-1", 1001))).isTrue();
    assertThat(before.pastStop(at("1:1:-1:-1", 999))).isFalse();
    assertThat(before.pastStop(at("1:1:-1:-1", 1000))).isTrue();
  }

  @Test
  void startsAtAMessageIdOrTheFirstEventAtOrAfterATime() {
    ReplayBound fromId = new ReplayBound("7:3:-1:2", Long.MIN_VALUE, null, true, Long.MAX_VALUE, true);
    assertThat(fromId.beforeStart(at("7:3:-1:1", 0))).isTrue();
    assertThat(fromId.beforeStart(at("7:3:-1:2", 0))).isFalse();
    ReplayBound fromTime = new ReplayBound(null, 500, null, true, Long.MAX_VALUE, true);
    assertThat(fromTime.beforeStart(at("1:1:-1:-1", 499))).isTrue();
    assertThat(fromTime.beforeStart(at("1:1:-1:-1", 500))).isFalse();
  }
}
