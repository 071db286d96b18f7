package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every expected key set below was produced by real redis-server 7.0.15 ({@code KEYS pattern} over
 * {@link #KEYS}), so these cases pin Redis's exact glob semantics, corner cases included.
 */
class RedisGlobTest {
  static final List<String> KEYS = List.of("hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "h?llo",
      "h[a]llo", "a-b", "a]b", "a\\b", "b", "abc", "ab", "a", "aXc", "a^c", "aac", "zzz", "h-llo", "x:y:z",
      "delays:ATL", "delays:ns:1", "delays:b[1]");

  static Stream<Arguments> patterns() {
    return Stream.of(
        Arguments.of("h?llo", List.of("h*llo", "h-llo", "h?llo", "hallo", "hello", "hxllo")),
        Arguments.of("h*llo", List.of("h*llo", "h-llo", "h?llo", "h[a]llo", "hallo", "heeeello", "hello", "hllo", "hxllo")),
        Arguments.of("h[ae]llo", List.of("hallo", "hello")),
        Arguments.of("h[^e]llo", List.of("h*llo", "h-llo", "h?llo", "hallo", "hxllo")),
        Arguments.of("h[a-b]llo", List.of("hallo")),
        Arguments.of("h[b-a]llo", List.of("hallo")),
        Arguments.of("h\\*llo", List.of("h*llo")),
        Arguments.of("h\\?llo", List.of("h?llo")),
        Arguments.of("h[\\]]llo", List.of()),
        Arguments.of("a[]]b", List.of()),
        Arguments.of("a[\\-]b", List.of("a-b")),
        Arguments.of("a[-]b", List.of("a-b")),
        Arguments.of("a\\\\b", List.of("a\\b")),
        Arguments.of("*", KEYS.stream().sorted().toList()),
        Arguments.of("**", KEYS.stream().sorted().toList()),
        Arguments.of("a*", List.of("a", "a-b", "aXc", "a\\b", "a]b", "a^c", "aac", "ab", "abc")),
        Arguments.of("*c", List.of("aXc", "a^c", "aac", "abc")),
        Arguments.of("a?c", List.of("aXc", "a^c", "aac", "abc")),
        Arguments.of("a[^a]c", List.of("aXc", "a^c", "abc")),
        Arguments.of("a[^]c", List.of("aXc", "a^c", "aac", "abc")),
        Arguments.of("a[", List.of()),
        Arguments.of("a[b", List.of("ab")),
        Arguments.of("h[a-", List.of()),
        Arguments.of("[a-c", List.of("a", "b")),
        Arguments.of("a\\", List.of()),
        Arguments.of("a[\\^]c", List.of("a^c")),
        Arguments.of("[", List.of()),
        Arguments.of("\\", List.of()),
        Arguments.of("***b", List.of("a-b", "a\\b", "a]b", "ab", "b")),
        Arguments.of("*:*", List.of("delays:ATL", "delays:b[1]", "delays:ns:1", "x:y:z")),
        Arguments.of("delays:*", List.of("delays:ATL", "delays:b[1]", "delays:ns:1")),
        Arguments.of("delays:b\\[1\\]", List.of("delays:b[1]")),
        Arguments.of("delays:b[[]1]", List.of("delays:b[1]")),
        Arguments.of("?", List.of("a", "b")),
        Arguments.of("??", List.of("ab")),
        Arguments.of("h[!e]llo", List.of("hello")),
        Arguments.of("a[a-a]c", List.of("aac")),
        Arguments.of("a[X]c", List.of("aXc")),
        Arguments.of("*ns*", List.of("delays:ns:1")),
        Arguments.of("delays:?TL", List.of("delays:ATL")),
        Arguments.of("", List.of()));
  }

  @ParameterizedTest(name = "[{index}] pattern ''{0}''")
  @MethodSource("patterns")
  void matchesTheKeysRedisMatches(String pattern, List<String> expected) {
    RedisGlob glob = RedisGlob.compile(pattern);

    List<String> matched = KEYS.stream().filter(glob::matches).sorted().toList();

    assertThat(matched).isEqualTo(expected.stream().sorted().toList());
  }

  @ParameterizedTest(name = "[{index}] pattern ''{0}''")
  @MethodSource("patterns")
  void emptyTextMatchesOnlyTheEmptyPattern(String pattern, List<String> ignored) {
    // Redis 7.0.15: KEYS "" finds the empty key, KEYS ** and KEYS [ do not (KEYS * does only through
    // its match-all shortcut, which SCAN MATCH * shares: ScanCommand skips matching for "*").
    assertThat(RedisGlob.compile(pattern).matches("")).isEqualTo(pattern.isEmpty());
  }

  @org.junit.jupiter.api.Test
  void questionMarkMatchesOneByteNotOneCharacter() {
    // "é" is two UTF-8 bytes: Redis matches bytes.
    assertThat(RedisGlob.compile("??").matches("é")).isTrue();
    assertThat(RedisGlob.compile("?").matches("é")).isFalse();
    assertThat(RedisGlob.matches("[\u00c3]?".getBytes(StandardCharsets.ISO_8859_1),
        "é".getBytes(StandardCharsets.UTF_8))).isTrue();
  }

  @org.junit.jupiter.api.Test
  void manyStarsStayFast() {
    String pattern = "a*".repeat(2000) + "b";
    String text = "a".repeat(3000);

    assertThat(RedisGlob.compile(pattern).matches(text)).isFalse();
  }
}
