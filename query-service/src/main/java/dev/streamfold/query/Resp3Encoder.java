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
 * Encodes the replies that need RESP3 types: {@link MapRedisMessage}, {@link NullRedisMessage},
 * {@link VerbatimStringRedisMessage}, and arrays that contain one of them at any depth. Every other
 * message passes on to Netty's {@code RedisEncoder}, which sits before this encoder in the pipeline.
 */
@ChannelHandler.Sharable
final class Resp3Encoder extends MessageToByteEncoder<RedisMessage> {
  private static final byte[] CRLF = {'\r', '\n'};

  Resp3Encoder() {
    super(RedisMessage.class, false);
  }

  @Override
  public boolean acceptOutboundMessage(Object msg) {
    return msg instanceof RedisMessage m && needsResp3(m);
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
    if (msg instanceof MapRedisMessage map) {
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
    ByteBufUtil.writeAscii(out, Long.toString(value));
    out.writeBytes(CRLF);
  }
}
