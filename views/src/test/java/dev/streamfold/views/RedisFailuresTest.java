package dev.streamfold.views;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.sync.RedisCommands;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

class RedisFailuresTest {
  private static final String TIMEOUT = "EVALSHA. Command timed out after 10 second(s)";

  @Test
  void redisClientFailuresBecomeViewStoreExceptionsWithTheSameMessageAndText() {
    RedisCommandTimeoutException timeout = new RedisCommandTimeoutException(TIMEOUT);
    RuntimeException translated = RedisFailures.translate(timeout);
    assertThat(translated).isInstanceOf(ViewStoreException.class).hasMessage(TIMEOUT).hasCause(timeout);
    assertThat(ViewStore.isRedisFailure(translated)).isTrue();
    assertThat(ViewStore.isRedisFailure(timeout)).isTrue();
    assertThat(ViewStore.describeRedisFailure(translated)).isEqualTo(ViewStore.describeRedisFailure(timeout))
        .isEqualTo("the view store (Redis) did not answer: Command timed out after 10 second(s)");
    assertThat(RedisFailures.translate(new RedisNoScriptException("NOSCRIPT No matching script")))
        .isInstanceOf(RedisFailures.ScriptNotCached.class).hasMessage("NOSCRIPT No matching script");
  }

  @Test
  void otherFailuresStayAsTheyAre() {
    IllegalArgumentException malformed = new IllegalArgumentException("bad");
    assertThat(RedisFailures.translate(malformed)).isSameAs(malformed);
    assertThat(ViewStore.isRedisFailure(malformed)).isFalse();
  }

  @Test
  void translatingCommandsAnswerAsTheirConnectionAndThrowViewStoreExceptions() {
    RedisCommands<String, String> commands = RedisFailures.translating(commands());
    assertThat(commands.hget("k", "f")).isEqualTo("v");
    assertThatThrownBy(() -> commands.get("k")).isExactlyInstanceOf(ViewStoreException.class).hasMessage(TIMEOUT)
        .hasCauseInstanceOf(RedisCommandTimeoutException.class);
    assertThatThrownBy(() -> commands.del("k")).isExactlyInstanceOf(IllegalStateException.class).hasMessage("not a Redis failure");
  }

  /** Commands whose HGET answers "v", GET times out and DEL fails otherwise. */
  @SuppressWarnings("unchecked")
  private static RedisCommands<String, String> commands() {
    return (RedisCommands<String, String>) Proxy.newProxyInstance(RedisCommands.class.getClassLoader(),
        new Class<?>[] {RedisCommands.class}, (proxy, method, args) -> switch (method.getName()) {
          case "hget" -> "v";
          case "get" -> throw new RedisCommandTimeoutException(TIMEOUT);
          default -> throw new IllegalStateException("not a Redis failure");
        });
  }
}
