package dev.streamfold.transforms.training;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FeatureSpecTest {

  @Test
  void parsesNameViewColumnJoinAndTtl() {
    FeatureSpec plain = FeatureSpec.parse("delays_by_origin.flights");
    assertThat(plain).isEqualTo(new FeatureSpec("delays_by_origin", "flights", "", -1, "delays_by_origin__flights"));
    FeatureSpec full = FeatureSpec.parse("recent=delays_by_dest.avg_delay@destination/2h");
    assertThat(full.name()).isEqualTo("recent");
    assertThat(full.view()).isEqualTo("delays_by_dest");
    assertThat(full.column()).isEqualTo("avg_delay");
    assertThat(full.join()).isEqualTo("destination");
    assertThat(full.ttlMs()).isEqualTo(7_200_000);
    assertThat(FeatureSpec.parse("v.c/PT90S").ttlMs()).isEqualTo(90_000);
    assertThat(FeatureSpec.parse("v.c@UPPER(origin)").join()).isEqualTo("UPPER(origin)");
    assertThat(FeatureSpec.parseTtl("7d")).isEqualTo(604_800_000L);
    assertThat(FeatureSpec.parseTtl("250ms")).isEqualTo(250);
  }

  @Test
  void rejectsMalformedFeatures() {
    assertThatThrownBy(() -> FeatureSpec.parse("flights")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[name=]VIEW.column");
    assertThatThrownBy(() -> FeatureSpec.parse("v.c/soon")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("time-to-live 'soon'");
  }
}
