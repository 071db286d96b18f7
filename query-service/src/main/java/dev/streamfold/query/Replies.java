package dev.streamfold.query;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Reply builders for one protocol version: the same call gives the RESP2 shape or the RESP3 shape
 * that Redis 7 sends (maps, nulls and verbatim strings differ; everything else is the same).
 */
final class Replies {
  static final Replies RESP2 = new Replies(2);
  static final Replies RESP3 = new Replies(3);

  private static final SimpleStringRedisMessage OK = new SimpleStringRedisMessage("OK");

  private final int protocol;

  private Replies(int protocol) {
    this.protocol = protocol;
  }

  /**
   * Return the builders of a protocol version.
   *
   * @param protocol 2 or 3
   * @return the builders
   * @throws IllegalArgumentException if the version is neither 2 nor 3
   */
  static Replies forProtocol(int protocol) {
    return switch (protocol) {
      case 2 -> RESP2;
      case 3 -> RESP3;
      default -> throw new IllegalArgumentException("unsupported protocol version " + protocol);
    };
  }

  /** The protocol version, 2 or 3. */
  int protocol() {
    return protocol;
  }

  /** Return {@code +OK}. */
  static RedisMessage ok() {
    return OK;
  }

  /** Return a status reply ({@code +text}); CR and LF become spaces. */
  static RedisMessage simple(String text) {
    return new SimpleStringRedisMessage(ErrorMapper.oneLine(text));
  }

  /** Return an integer reply. */
  static RedisMessage integer(long value) {
    return new IntegerRedisMessage(value);
  }

  /** Return a bulk string of the UTF-8 bytes of {@code text}. */
  static RedisMessage bulk(String text) {
    return bulk(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Return a bulk string of {@code bytes} (not copied). */
  static RedisMessage bulk(byte[] bytes) {
    return bytes.length == 0 ? FullBulkStringRedisMessage.EMPTY_INSTANCE
        : new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(bytes));
  }

  /** Return an array reply; the same in RESP2 and RESP3. */
  static RedisMessage array(List<RedisMessage> children) {
    return children.isEmpty() ? ArrayRedisMessage.EMPTY_INSTANCE : new ArrayRedisMessage(children);
  }

  /** Return an array of bulk strings. */
  static RedisMessage bulkArray(Collection<String> texts) {
    List<RedisMessage> children = new ArrayList<>(texts.size());
    texts.forEach(t -> children.add(bulk(t)));
    return array(children);
  }

  /** Return the null reply: {@code $-1} in RESP2, {@code _} in RESP3. */
  RedisMessage nil() {
    return protocol == 3 ? NullRedisMessage.INSTANCE : FullBulkStringRedisMessage.NULL_INSTANCE;
  }

  /**
   * Return a bulk string, or the null reply when the text is null.
   *
   * @param text the text, or null
   * @return the reply
   */
  RedisMessage bulkOrNil(String text) {
    return text == null ? nil() : bulk(text);
  }

  /**
   * Return a map: a flat array in RESP2, a RESP3 map otherwise.
   *
   * @param keysAndValues key, value, key, value, …
   * @return the reply
   * @throws IllegalArgumentException if the list has an odd size
   */
  RedisMessage map(List<RedisMessage> keysAndValues) {
    if (keysAndValues.size() % 2 != 0) {
      throw new IllegalArgumentException("a map needs key/value pairs, got " + keysAndValues.size() + " elements");
    }
    return protocol == 3 ? new MapRedisMessage(keysAndValues) : array(keysAndValues);
  }

  /**
   * Return a text for humans (INFO, CLIENT INFO): a bulk string in RESP2, a verbatim string in RESP3.
   *
   * @param text the text
   * @return the reply
   */
  RedisMessage verbatim(String text) {
    return protocol == 3 ? new VerbatimStringRedisMessage("txt", text) : bulk(text);
  }
}
