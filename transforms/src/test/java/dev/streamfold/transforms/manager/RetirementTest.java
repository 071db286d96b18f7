package dev.streamfold.transforms.manager;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class RetirementTest {
  private static final Set<Integer> NONE = Set.of();

  @Test
  void nothingIsDroppedBeforeAVersionIsServed() {
    assertThat(Retirement.versionsToDrop(0, 0, NONE::contains, v -> true)).isEmpty();
  }

  @Test
  void versionsBelowTheServedOneWithoutAJobAndWithRowsAreDropped() {
    assertThat(Retirement.versionsToDrop(4, 0, NONE::contains, v -> true)).containsExactly(1, 2, 3);
  }

  @Test
  void aVersionAJobStillFillsIsKept() {
    // e.g. the old version's job, not yet cancelled when the update's version is served
    assertThat(Retirement.versionsToDrop(3, 0, Set.of(2)::contains, v -> true)).containsExactly(1);
  }

  @Test
  void aVersionWithoutRowsIsNotDroppedAgain() {
    assertThat(Retirement.versionsToDrop(3, 0, NONE::contains, Set.of(2)::contains)).containsExactly(2);
  }

  @Test
  void theServedVersionAndNewerOnesAreNeverDropped() {
    assertThat(Retirement.versionsToDrop(2, 0, NONE::contains, v -> true)).containsExactly(1);
  }

  @Test
  void aServedVersionAlreadyRetiredBelowDropsNothing() {
    assertThat(Retirement.versionsToDrop(3, 3, NONE::contains, v -> true)).isEmpty();
    assertThat(Retirement.versionsToDrop(5, 3, NONE::contains, v -> true)).containsExactly(1, 2, 3, 4);
  }

  @Test
  void anUpdateIsServedOnceReadersSeeItsVersionOrANewerOne() {
    assertThat(Retirement.updateServed(1, 2)).isFalse();
    assertThat(Retirement.updateServed(2, 2)).isTrue();
    assertThat(Retirement.updateServed(3, 2)).isTrue();
  }
}
