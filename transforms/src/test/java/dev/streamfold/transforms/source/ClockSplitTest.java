package dev.streamfold.transforms.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClockSplitTest {
  @Test
  void aSplitAndTheEnumeratorsPendingSplitsRoundTrip() throws IOException {
    ClockSplit.Serializer splits = new ClockSplit.Serializer();
    assertThat(splits.deserialize(1, splits.serialize(new ClockSplit(1_234_567_890_123L))))
        .isEqualTo(new ClockSplit(1_234_567_890_123L));
    ClockEnumerator.StateSerializer state = new ClockEnumerator.StateSerializer();
    assertThat(state.deserialize(1, state.serialize(List.of()))).isEmpty();
    assertThat(state.deserialize(1, state.serialize(List.of(new ClockSplit(7))))).containsExactly(new ClockSplit(7));
  }

  @Test
  void anUnknownVersionIsRefusedByName() {
    assertThatThrownBy(() -> new ClockSplit.Serializer().deserialize(2, new byte[8]))
        .hasMessage("clock split version 2 is not known (known: 1)");
    assertThatThrownBy(() -> new ClockEnumerator.StateSerializer().deserialize(3, new byte[4]))
        .hasMessage("clock enumerator state version 3 is not known (known: 1)");
  }

  @Test
  void aSetupNeedsAStreamAndTicksInRange() {
    assertThatThrownBy(() -> ClockedLedgerSource.builder("pulsar://x", "acme", java.util.Set.of()).build())
        .hasMessage("a clocked source reads at least one stream");
    assertThatThrownBy(() -> ClockedLedgerSource.builder("pulsar://x", "acme", java.util.Set.of("a")).afterTick(-1).build())
        .hasMessageContaining("afterTick must be >= 0");
    assertThat(ClockedLedgerSource.builder("pulsar://x", "acme", java.util.Set.of("a")).stopAfterTick(3).build()
        .getBoundedness()).isEqualTo(org.apache.flink.api.connector.source.Boundedness.BOUNDED);
  }
}
