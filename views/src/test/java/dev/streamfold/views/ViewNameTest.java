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

  /** The hand-written checks accept exactly what the documented regexes accept. */
  @Test
  void checksWithoutRegexAgreeWithTheRegexes() {
    java.util.Random random = new java.util.Random(7);
    String alphabet = "azAZ09_-@:.}{ \u00e9";
    for (int i = 0; i < 200_000; i++) {
      int length = random.nextInt(i % 50 == 0 ? 110 : 8);
      StringBuilder text = new StringBuilder();
      for (int j = 0; j < length; j++) {
        text.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String name = text.toString();
      boolean tenantOk = ViewName.TENANT.matcher(name).matches();
      boolean viewOk = ViewName.VIEW.matcher(name).matches();
      assertThat(accepts(() -> ViewName.checkTenant(name))).as("tenant %s", name).isEqualTo(tenantOk);
      assertThat(accepts(() -> new ViewName("acme", name))).as("view %s", name).isEqualTo(viewOk);
    }
    for (String name : new String[] {"a".repeat(64), "a".repeat(65), "a".repeat(100), "a".repeat(101), "_x", "-x", "0"}) {
      assertThat(accepts(() -> ViewName.checkTenant(name))).as(name).isEqualTo(ViewName.TENANT.matcher(name).matches());
      assertThat(accepts(() -> new ViewName("acme", name))).as(name).isEqualTo(ViewName.VIEW.matcher(name).matches());
    }
  }

  private static boolean accepts(Runnable check) {
    try {
      check.run();
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
