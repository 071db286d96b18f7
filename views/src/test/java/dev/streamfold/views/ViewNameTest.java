package dev.streamfold.views;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ViewNameTest {

  @Test
  void splitsPlainAndPositionFormKeys() {
    assertThat(ViewName.splitKey("delays:LAS")).containsExactly("delays", "LAS");
    assertThat(ViewName.splitKey("delays:a:b")).containsExactly("delays", "a:b");
    assertThat(ViewName.splitKey("delays@12:5:-1:4:LAS")).containsExactly("delays@12:5:-1:4", "LAS");
    assertThat(ViewName.splitKey("delays@12:5:-1:4:a:b")).containsExactly("delays@12:5:-1:4", "a:b");
    assertThat(ViewName.splitKey("delays@12:5:-1:4:")).containsExactly("delays@12:5:-1:4", "");
    assertThat(ViewName.splitKey("delays@12:5:LAS")).containsExactly("delays@12", "5:LAS");
    assertThat(ViewName.splitKey("delays")).isNull();
    assertThat(ViewName.splitKey(":LAS")).isNull();
  }

  @Test
  void acceptsThePositionFormOnlyWithAWholeMessageId() {
    assertThat(new ViewName("acme", "delays@12:5:-1:4").isPositionForm()).isTrue();
    assertThat(new ViewName("acme", "delays").isPositionForm()).isFalse();
    assertThatThrownBy(() -> new ViewName("acme", "delays@12:5")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("@<message ID>");
    assertThatThrownBy(() -> new ViewName("acme", "a:b")).isInstanceOf(IllegalArgumentException.class);
  }
}
