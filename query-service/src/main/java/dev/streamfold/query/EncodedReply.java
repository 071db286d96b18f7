package dev.streamfold.query;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;

/**
 * A reply already in its wire form, written as is by {@link Resp3Encoder}: a reply rendered once from a cached
 * row and shared by every read of that row (see {@code ViewReader.Rows#derived}). Immutable.
 */
final class EncodedReply implements RedisMessage {
  private final byte[] bytes;

  private EncodedReply(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Encode a reply now, exactly as {@link Resp3Encoder} would write it, and release it.
   *
   * @param reply a reply (any type {@link Resp3Encoder} writes)
   * @return the encoded reply
   * @throws IllegalArgumentException if the reply is not a reply type
   */
  static EncodedReply of(RedisMessage reply) {
    ByteBuf out = Unpooled.buffer(256);
    try {
      Resp3Encoder.write(reply, out);
      byte[] bytes = new byte[out.readableBytes()];
      out.readBytes(bytes);
      return new EncodedReply(bytes);
    } finally {
      out.release();
      ReferenceCountUtil.release(reply);
    }
  }

  /** The wire form's length in bytes. */
  int length() {
    return bytes.length;
  }

  /** Append the wire form to {@code out}. */
  void writeTo(ByteBuf out) {
    out.writeBytes(bytes);
  }

  @Override
  public String toString() {
    return "EncodedReply[" + bytes.length + " bytes]";
  }
}
