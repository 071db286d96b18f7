package dev.streamfold.views;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * Where the Redis client's exceptions become {@link ViewStoreException}s, with the same message: the blocking
 * commands of the store's classes go through {@link #translating}, and connections are opened by {@link
 * #connect}. Failed stages of asynchronous reads keep the client's exception (see {@link ViewStore#isRedisFailure}).
 */
final class RedisFailures {
  private RedisFailures() {}

  /** Redis does not know a script by that SHA-1 (NOSCRIPT, e.g. after SCRIPT FLUSH or a restart): send it again. */
  static final class ScriptNotCached extends ViewStoreException {
    private static final long serialVersionUID = 1L;

    ScriptNotCached(RedisNoScriptException cause) {
      super(cause.getMessage(), cause);
    }
  }

  /**
   * Blocking commands that throw a {@link ViewStoreException} (a {@link ScriptNotCached} for NOSCRIPT) where
   * the Redis client throws its own exception; everything else as {@code commands} does.
   *
   * @param commands a connection's blocking commands
   * @return the same commands, translating failures
   */
  @SuppressWarnings("unchecked")
  static RedisCommands<String, String> translating(RedisCommands<String, String> commands) {
    return (RedisCommands<String, String>) Proxy.newProxyInstance(RedisCommands.class.getClassLoader(),
        new Class<?>[] {RedisCommands.class}, (proxy, method, args) -> {
          try {
            return method.invoke(commands, args);
          } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException failure ? translate(failure) : e.getCause();
          }
        });
  }

  /**
   * Open a connection.
   *
   * @param client the client
   * @return a new connection
   * @throws ViewStoreException if Redis cannot be reached
   */
  static StatefulRedisConnection<String, String> connect(RedisClient client) {
    try {
      return client.connect();
    } catch (RuntimeException e) {
      throw translate(e);
    }
  }

  /**
   * The exception to throw for {@code failure}.
   *
   * @param failure anything a Redis client call threw
   * @return a {@link ViewStoreException} with the same message for the Redis client's exceptions, else {@code failure}
   */
  static RuntimeException translate(RuntimeException failure) {
    if (failure instanceof RedisNoScriptException noScript) {
      return new ScriptNotCached(noScript);
    }
    return failure instanceof RedisException ? new ViewStoreException(failure.getMessage(), failure) : failure;
  }
}
