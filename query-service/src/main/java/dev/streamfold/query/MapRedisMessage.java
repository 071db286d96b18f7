package dev.streamfold.query;

import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * A RESP3 map reply ({@code %<pairs>}): keys and values in reply order. Netty's codec has no RESP3
 * types; {@link Resp3Encoder} writes this one. Releasing it releases its entries.
 */
final class MapRedisMessage extends AbstractReferenceCounted implements RedisMessage {
  private final List<RedisMessage> keysAndValues;

  /**
   * Create a map reply.
   *
   * @param keysAndValues key, value, key, value, … (ownership passes to this message)
   * @throws IllegalArgumentException if the list has an odd size
   */
  MapRedisMessage(List<RedisMessage> keysAndValues) {
    if (keysAndValues.size() % 2 != 0) {
      throw new IllegalArgumentException("a map needs key/value pairs, got " + keysAndValues.size() + " elements");
    }
    this.keysAndValues = List.copyOf(keysAndValues);
  }

  /** Key, value, key, value, … in reply order. */
  List<RedisMessage> keysAndValues() {
    return keysAndValues;
  }

  @Override
  protected void deallocate() {
    keysAndValues.forEach(ReferenceCountUtil::release);
  }

  @Override
  public MapRedisMessage touch(Object hint) {
    keysAndValues.forEach(m -> ReferenceCountUtil.touch(m, hint));
    return this;
  }

  @Override
  public String toString() {
    return "MapRedisMessage" + keysAndValues;
  }
}
