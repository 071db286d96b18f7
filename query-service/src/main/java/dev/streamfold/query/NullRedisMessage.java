package dev.streamfold.query;

import io.netty.handler.codec.redis.RedisMessage;

/** The RESP3 null reply ({@code _}), which replaces RESP2's null bulk string and null array. */
final class NullRedisMessage implements RedisMessage {
  /** The only instance. */
  static final NullRedisMessage INSTANCE = new NullRedisMessage();

  private NullRedisMessage() {}

  @Override
  public String toString() {
    return "NullRedisMessage";
  }
}
