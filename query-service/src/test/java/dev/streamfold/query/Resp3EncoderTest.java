package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The encoders as placed in the server pipeline: Netty's RedisEncoder, then Resp3Encoder. */
class Resp3EncoderTest {

  private static String encode(RedisMessage message) {
    EmbeddedChannel channel = new EmbeddedChannel(new RedisEncoder(), new Resp3Encoder());
    channel.writeOutbound(message);
    StringBuilder text = new StringBuilder();
    ByteBuf out;
    while ((out = channel.readOutbound()) != null) {
      text.append(out.toString(StandardCharsets.UTF_8));
      out.release();
    }
    channel.finishAndReleaseAll();
    return text.toString();
  }

  @Test
  void encodesResp3Types() {
    assertThat(encode(NullRedisMessage.INSTANCE)).isEqualTo("_\r\n");
    assertThat(encode(new MapRedisMessage(List.of(Replies.bulk("a"), Replies.integer(1)))))
        .isEqualTo("%1\r\n$1\r\na\r\n:1\r\n");
    assertThat(encode(new VerbatimStringRedisMessage("txt", "é\r\n"))).isEqualTo("=8\r\ntxt:é\r\n\r\n");
  }

  @Test
  void encodesArraysThatContainResp3Types() {
    RedisMessage nested = Replies.array(List.of(Replies.simple("x"), NullRedisMessage.INSTANCE,
        Replies.array(List.of(new MapRedisMessage(List.of())))));

    assertThat(encode(nested)).isEqualTo("*3\r\n+x\r\n_\r\n*1\r\n%0\r\n");
  }

  @Test
  void leavesResp2MessagesToNettysEncoder() {
    RedisMessage plain = Replies.array(List.of(Replies.bulk("a"), Replies.integer(-2),
        ArrayRedisMessage.NULL_INSTANCE, Replies.RESP2.nil()));

    assertThat(Resp3Encoder.needsResp3(plain)).isFalse();
    assertThat(encode(plain)).isEqualTo("*4\r\n$1\r\na\r\n:-2\r\n*-1\r\n$-1\r\n");
    assertThat(encode(Replies.RESP2.map(List.of(Replies.bulk("k"), Replies.bulk("v"))))).isEqualTo("*2\r\n$1\r\nk\r\n$1\r\nv\r\n");
    assertThat(encode(Replies.RESP3.map(List.of(Replies.bulk("k"), Replies.bulk("v"))))).isEqualTo("%1\r\n$1\r\nk\r\n$1\r\nv\r\n");
  }

  @Test
  void writesResp2RepliesInOneBufferAsNettyDoes() {
    List<RedisMessage> replies = List.of(Replies.bulk("é\r\nx"), Replies.simple("OK"), Replies.integer(-42),
        new io.netty.handler.codec.redis.ErrorRedisMessage("ERR no"), Replies.RESP2.bulkOrNil(null),
        Replies.array(List.of(Replies.bulk("a"), Replies.integer(1), Replies.array(List.of()))),
        io.netty.handler.codec.redis.ArrayRedisMessage.NULL_INSTANCE);
    List<RedisMessage> all = new java.util.ArrayList<>(replies);
    for (long n : new long[] {0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 123_456, -1, Long.MAX_VALUE, Long.MIN_VALUE}) {
      all.add(Replies.integer(n)); // headers of every digit count (digits written without a String up to 9,999)
    }
    all.add(Replies.bulk("x".repeat(12_345)));
    for (RedisMessage reply : all) {
      EmbeddedChannel netty = new EmbeddedChannel(new RedisEncoder());
      netty.writeOutbound(io.netty.util.ReferenceCountUtil.retain(reply));
      StringBuilder expected = new StringBuilder();
      for (ByteBuf out; (out = netty.readOutbound()) != null; out.release()) {
        expected.append(out.toString(StandardCharsets.UTF_8));
      }
      netty.finishAndReleaseAll();

      EmbeddedChannel ours = new EmbeddedChannel(new RedisEncoder(), new Resp3Encoder());
      ours.writeOutbound(reply);
      List<ByteBuf> buffers = new java.util.ArrayList<>();
      for (ByteBuf out; (out = ours.readOutbound()) != null; ) {
        buffers.add(out);
      }
      assertThat(buffers).as(expected.toString()).hasSize(1);
      assertThat(buffers.get(0).toString(StandardCharsets.UTF_8)).isEqualTo(expected.toString());
      buffers.get(0).release();
      ours.finishAndReleaseAll();
    }
  }
}
