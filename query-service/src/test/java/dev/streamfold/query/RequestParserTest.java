package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestParserTest {

  private static List<String> split(String line) {
    return RequestParser.splitArgs(line.getBytes(StandardCharsets.UTF_8)).stream()
        .map(b -> new String(b, StandardCharsets.UTF_8)).toList();
  }

  private static List<List<String>> parse(RedisMessage message) {
    return RequestParser.parse(message).stream()
        .map(r -> r.args().stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList()).toList();
  }

  private static FullBulkStringRedisMessage bulk(String text) {
    return new FullBulkStringRedisMessage(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
  }

  @Test
  void splitsInlineLinesLikeSdssplitargs() {
    assertThat(split("  HGET   delays:ATL\tflights ")).containsExactly("HGET", "delays:ATL", "flights");
    assertThat(split("PING \"a b\"")).containsExactly("PING", "a b");
    assertThat(split("ECHO \"x\\x41y\\n\"")).containsExactly("ECHO", "xAy\n");
    assertThat(split("ECHO 'it\\'s'")).containsExactly("ECHO", "it's");
    assertThat(split("ECHO 'a\\nb'")).containsExactly("ECHO", "a\\nb");
    assertThat(split("ECHO ab\"c d\"")).containsExactly("ECHO", "abc d");
    assertThat(split("ECHO \"\"")).containsExactly("ECHO", "");
    assertThat(split("   ")).isEmpty();
    assertThat(split("PING\0 ignored")).containsExactly("PING");
  }

  @Test
  void rejectsUnbalancedQuotes() {
    for (String line : List.of("PING \"a b", "PING 'a", "PING \"a\"b", "PING 'a'b")) {
      assertThatThrownBy(() -> split(line)).as(line)
          .isInstanceOf(ProtocolException.class)
          .hasMessage("ERR Protocol error: unbalanced quotes in request");
    }
  }

  @Test
  void readsArraysOfBulkStrings() {
    ArrayRedisMessage array = new ArrayRedisMessage(List.of(bulk("HGET"), bulk("v:k"), bulk("")));

    assertThat(parse(array)).containsExactly(List.of("HGET", "v:k", ""));
  }

  @Test
  void ignoresEmptyAndNullArraysAndBlankLines() {
    assertThat(parse(ArrayRedisMessage.EMPTY_INSTANCE)).isEmpty();
    assertThat(parse(ArrayRedisMessage.NULL_INSTANCE)).isEmpty();
    assertThat(parse(new InlineCommandRedisMessage(""))).isEmpty();
  }

  @Test
  void rejectsArraysWithOtherElementsLikeRedis() {
    assertThatThrownBy(() -> parse(new ArrayRedisMessage(List.of(new SimpleStringRedisMessage("PING")))))
        .hasMessage("ERR Protocol error: expected '$', got '+'");
    assertThatThrownBy(() -> parse(new ArrayRedisMessage(List.of(new IntegerRedisMessage(1)))))
        .hasMessage("ERR Protocol error: expected '$', got ':'");
    assertThatThrownBy(() -> parse(new ArrayRedisMessage(List.of(new InlineCommandRedisMessage("foo")))))
        .hasMessage("ERR Protocol error: expected '$', got 'f'");
    assertThatThrownBy(() -> parse(new ArrayRedisMessage(List.of(FullBulkStringRedisMessage.NULL_INSTANCE))))
        .hasMessage("ERR Protocol error: invalid bulk length");
  }

  @Test
  void readsOtherTopLevelTypesAsInlineLinesLikeRedis() {
    assertThat(parse(new SimpleStringRedisMessage("PING"))).containsExactly(List.of("+PING"));
    assertThat(parse(new IntegerRedisMessage(5))).containsExactly(List.of(":5"));
    assertThat(parse(bulk("hello"))).containsExactly(List.of("$5"), List.of("hello"));
  }

  @Test
  void splitsInlineContentAtNewlines() {
    assertThat(parse(new InlineCommandRedisMessage("PING\nECHO x\r"))).containsExactly(
        List.of("PING"), List.of("ECHO", "x"));
  }
}
