package dev.streamfold.query;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;

/**
 * Encodes every whole reply into one buffer: the RESP3 types ({@link MapRedisMessage}, {@link NullRedisMessage},
 * {@link VerbatimStringRedisMessage}) and the RESP2 ones (arrays, bulk, simple, error and integer messages),
 * byte for byte as Netty's {@code RedisEncoder} writes them. Netty's encoder, which sits before this one in
 * the pipeline, writes a separate small buffer for every header, element and CRLF (about 25 buffers for an
 * HGETALL of 4 columns), which cost more than the rest of a read in the serving profile; it still handles
 * the streaming message types (headers and chunks), which replies do not use.
 */
@ChannelHandler.Sharable
final class Resp3Encoder extends MessageToByteEncoder<RedisMessage> {
  private static final byte[] CRLF = {'\r', '\n'};

  Resp3Encoder() {
    super(RedisMessage.class, true);
  }

  @Override
  public boolean acceptOutboundMessage(Object msg) {
    return writes(msg);
  }

  /**
   * Tell whether {@link #write} can encode a message (every whole reply type, RESP2 and RESP3).
   *
   * @param msg an outbound message
   * @return true when it is a reply this encoder writes
   */
  static boolean writes(Object msg) {
    return msg instanceof ArrayRedisMessage || msg instanceof FullBulkStringRedisMessage
        || msg instanceof SimpleStringRedisMessage || msg instanceof ErrorRedisMessage
        || msg instanceof IntegerRedisMessage || msg instanceof MapRedisMessage || msg instanceof NullRedisMessage
        || msg instanceof VerbatimStringRedisMessage || msg instanceof EncodedReply;
  }

  @Override
  protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, RedisMessage msg, boolean preferDirect)
      throws Exception {
    // a reply encoded earlier gets a buffer of its size (the default starts at 256 bytes and grows)
    return msg instanceof EncodedReply encoded ? ctx.alloc().ioBuffer(encoded.length())
        : super.allocateBuffer(ctx, msg, preferDirect);
  }

  /**
   * Tell whether Netty's RESP2 encoder cannot write a message.
   *
   * @param message a reply
   * @return true when it is, or contains, a RESP3-only type
   */
  static boolean needsResp3(RedisMessage message) {
    if (message instanceof MapRedisMessage || message instanceof NullRedisMessage
        || message instanceof VerbatimStringRedisMessage) {
      return true;
    }
    if (message instanceof ArrayRedisMessage array && !array.isNull()) {
      for (RedisMessage child : array.children()) {
        if (needsResp3(child)) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, RedisMessage msg, ByteBuf out) {
    write(msg, out);
  }

  /**
   * Write one message, RESP2 or RESP3 type, with its children.
   *
   * @param msg the message
   * @param out the buffer to append to
   * @throws IllegalArgumentException if the message type is not a reply type
   */
  static void write(RedisMessage msg, ByteBuf out) {
    if (msg instanceof EncodedReply encoded) {
      encoded.writeTo(out);
    } else if (msg instanceof MapRedisMessage map) {
      header(out, '%', map.keysAndValues().size() / 2);
      map.keysAndValues().forEach(child -> write(child, out));
    } else if (msg instanceof NullRedisMessage) {
      out.writeByte('_').writeBytes(CRLF);
    } else if (msg instanceof VerbatimStringRedisMessage verbatim) {
      byte[] text = (verbatim.format() + ":" + verbatim.text()).getBytes(StandardCharsets.UTF_8);
      header(out, '=', text.length);
      out.writeBytes(text).writeBytes(CRLF);
    } else if (msg instanceof ArrayRedisMessage array) {
      if (array.isNull()) {
        header(out, '*', -1);
      } else {
        header(out, '*', array.children().size());
        array.children().forEach(child -> write(child, out));
      }
    } else if (msg instanceof FullBulkStringRedisMessage bulk) {
      if (bulk.isNull()) {
        header(out, '$', -1);
      } else {
        header(out, '$', bulk.content().readableBytes());
        out.writeBytes(bulk.content(), bulk.content().readerIndex(), bulk.content().readableBytes());
        out.writeBytes(CRLF);
      }
    } else if (msg instanceof SimpleStringRedisMessage simple) {
      out.writeByte('+');
      ByteBufUtil.writeUtf8(out, simple.content());
      out.writeBytes(CRLF);
    } else if (msg instanceof ErrorRedisMessage error) {
      out.writeByte('-');
      ByteBufUtil.writeUtf8(out, error.content());
      out.writeBytes(CRLF);
    } else if (msg instanceof IntegerRedisMessage integer) {
      header(out, ':', integer.value());
    } else {
      throw new IllegalArgumentException("cannot encode reply type " + msg.getClass().getName());
    }
  }

  private static void header(ByteBuf out, char type, long value) {
    out.writeByte(type);
    if (value >= 0 && value < 10_000) {
      // lengths and counts of row replies: digits written directly, no String per header (serving profile)
      if (value >= 1000) {
        out.writeByte('0' + (int) (value / 1000));
      }
      if (value >= 100) {
        out.writeByte('0' + (int) (value / 100 % 10));
      }
      if (value >= 10) {
        out.writeByte('0' + (int) (value / 10 % 10));
      }
      out.writeByte('0' + (int) (value % 10));
    } else {
      ByteBufUtil.writeAscii(out, Long.toString(value));
    }
    out.writeBytes(CRLF);
  }
}
