package dev.streamfold.views;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisKeysTest {
  private static final ViewName NAME = new ViewName("acme", "delays");

  @Test
  void keysOfAViewAndItsVersions() {
    assertThat(RedisKeys.tenantViews("acme")).isEqualTo("sf:acme:views");
    assertThat(RedisKeys.view(NAME)).isEqualTo("sf:{acme:delays}:view");
    assertThat(RedisKeys.meta(NAME, 3)).isEqualTo("sf:{acme:delays:3}:meta");
    assertThat(RedisKeys.keys(NAME, 3)).isEqualTo("sf:{acme:delays:3}:keys");
    assertThat(RedisKeys.row(NAME, 3, "ATL")).isEqualTo("sf:{acme:delays:3}:r:ATL");
    assertThat(RedisKeys.versionPattern(NAME, 3)).isEqualTo("sf:{acme:delays:3}:*");
    assertThat(RedisKeys.allVersionsPattern(NAME)).isEqualTo("sf:{acme:delays:[0-9]*");
    assertThat(RedisKeys.parseRow("acme", RedisKeys.row(NAME, 3, "ATL"))).containsExactly("delays", "3", "ATL");
  }

  /** The rows script finds a rolled-back view's keys at run time: its expressions build the same keys. */
  @Test
  void luaExpressionsBuildTheSameKeys() {
    assertThat(RedisKeys.viewLua("ARGV[1]", "src")).isEqualTo("'sf:{' .. ARGV[1] .. ':' .. src .. '}:view'");
    assertThat(concat(RedisKeys.viewLua("'acme'", "'delays'"))).isEqualTo(RedisKeys.view(NAME));
    assertThat(concat(RedisKeys.rowPrefixLua("'acme'", "'delays'", "'3'")) + "ATL")
        .isEqualTo(RedisKeys.row(NAME, 3, "ATL"));
  }

  /** Evaluate a Lua concatenation of string literals (no quote or " .. " inside them). */
  private static String concat(String lua) {
    StringBuilder text = new StringBuilder();
    for (String literal : lua.split(" \\.\\. ")) {
      assertThat(literal).startsWith("'").endsWith("'");
      text.append(literal, 1, literal.length() - 1);
    }
    return text.toString();
  }
}
