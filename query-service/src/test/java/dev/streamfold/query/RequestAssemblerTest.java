package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.FixedRedisMessagePool;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.DefaultBulkStringRedisContent;
import io.netty.handler.codec.redis.DefaultLastBulkStringRedisContent;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RequestAssemblerTest {
  private final List<Throwable> errors = new ArrayList<>();
  private final List<Object> passed = new ArrayList<>();

  private EmbeddedChannel channel(long timeoutMs) {
    EmbeddedChannel channel = new EmbeddedChannel(new RequestAssembler(timeoutMs), new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        passed.add(msg);
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        errors.add(cause);
      }
    });
    channel.freezeTime();
    return channel;
  }

  private static FullBulkStringRedisMessage bulk(String text) {
    return new FullBulkStringRedisMessage(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
  }

  @Test
  void aRequestThatStallsAfterItsHeaderIsRefusedAfterTheTimeout() {
    EmbeddedChannel channel = channel(1_000);
    channel.writeInbound(new ArrayHeaderRedisMessage(2), bulk("GET"));
    channel.advanceTimeBy(999, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertThat(errors).isEmpty();
    channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertThat(errors).singleElement().isInstanceOf(ProtocolException.class)
        .extracting(Throwable::getMessage).asString().startsWith("ERR Protocol error: request not complete")
        .endsWith("(at most 1000 ms)");
    channel.finishAndReleaseAll();
  }

  @Test
  void theTimerDoesNotRunOutWhileTheServerIsNotReading() {
    // found by a tryout: a pipelining client that did not read its replies for 30 s lost its connection,
    // because back-pressure (auto-read off) left the last request read incomplete
    EmbeddedChannel channel = channel(1_000);
    channel.writeInbound(new ArrayHeaderRedisMessage(2), bulk("GET"));
    channel.config().setAutoRead(false);
    channel.advanceTimeBy(5_000, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertThat(errors).isEmpty();
    channel.config().setAutoRead(true);
    channel.advanceTimeBy(999, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    channel.writeInbound(new BulkStringHeaderRedisMessage(1), last("k"));
    assertThat(errors).isEmpty();
    assertThat(texts(passed.get(0))).containsExactly("GET", "k");
    channel.writeInbound(new ArrayHeaderRedisMessage(2), bulk("GET")); // reading again: the client's delay counts
    channel.advanceTimeBy(1_000, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertThat(errors).singleElement().extracting(Throwable::getMessage).asString()
        .startsWith("ERR Protocol error: request not complete");
    channel.finishAndReleaseAll();
  }

  @Test
  void aBulkStringOutsideAnArrayThatArrivesInPiecesStopsItsTimer() {
    // found by a tryout: "$5\r\nab" then "cde\r\n" got its reply, then the idle connection was closed 30 s later
    EmbeddedChannel channel = channel(1_000);
    channel.writeInbound(new BulkStringHeaderRedisMessage(5), chunk("ab"));
    channel.writeInbound(last("cde"));
    assertThat(passed).hasSize(1);
    ((FullBulkStringRedisMessage) passed.get(0)).release();
    channel.advanceTimeBy(1, TimeUnit.HOURS);
    channel.runScheduledPendingTasks();
    assertThat(errors).isEmpty();
    channel.finishAndReleaseAll();
  }

  @Test
  void completeRequestsAndIdleConnectionsAreNotTimedOut() {
    EmbeddedChannel channel = channel(1_000);
    for (int i = 0; i < 3; i++) {
      channel.writeInbound(new ArrayHeaderRedisMessage(2), bulk("GET"), new BulkStringHeaderRedisMessage(1),
          new DefaultLastBulkStringRedisContent(Unpooled.copiedBuffer("k", StandardCharsets.UTF_8)));
      channel.advanceTimeBy(800, TimeUnit.MILLISECONDS);
      channel.runScheduledPendingTasks();
    }
    channel.advanceTimeBy(1, TimeUnit.HOURS);
    channel.runScheduledPendingTasks();
    assertThat(errors).isEmpty();
    channel.finishAndReleaseAll();
  }

  private static List<String> texts(Object request) {
    return ((Request) request).args().stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList();
  }

  private static DefaultBulkStringRedisContent chunk(String text) {
    return new DefaultBulkStringRedisContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
  }

  private static DefaultLastBulkStringRedisContent last(String text) {
    return new DefaultLastBulkStringRedisContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
  }

  @Test
  void buildsOneRequestPerArrayFromWholeAndChunkedBulkStrings() {
    EmbeddedChannel channel = channel(1_000);
    channel.writeInbound(new ArrayHeaderRedisMessage(3), new BulkStringHeaderRedisMessage(4), last("HGET"),
        new BulkStringHeaderRedisMessage(6), chunk("v:"), chunk("AT"), last("L1"), FullBulkStringRedisMessage.EMPTY_INSTANCE);
    channel.writeInbound(new ArrayHeaderRedisMessage(1), new BulkStringHeaderRedisMessage(4), last("PING"));
    assertThat(passed).hasSize(2);
    assertThat(texts(passed.get(0))).containsExactly("HGET", "v:ATL1", "");
    assertThat(texts(passed.get(1))).containsExactly("PING");
    assertThat(errors).isEmpty();
    assertThat(channel.finishAndReleaseAll()).isFalse();
  }

  @Test
  void emptyAndNullArraysAreIgnoredAndOtherMessagesPassAsTheyCame() {
    EmbeddedChannel channel = channel(1_000);
    InlineCommandRedisMessage inline = new InlineCommandRedisMessage("PING");
    channel.writeInbound(new ArrayHeaderRedisMessage(0), new ArrayHeaderRedisMessage(-1), inline,
        new BulkStringHeaderRedisMessage(3), last("foo"));
    assertThat(passed).hasSize(2);
    assertThat(passed.get(0)).isSameAs(inline);
    assertThat(((FullBulkStringRedisMessage) passed.get(1)).content().toString(StandardCharsets.UTF_8)).isEqualTo("foo");
    ((FullBulkStringRedisMessage) passed.get(1)).release();
    assertThat(errors).isEmpty();
    channel.finishAndReleaseAll();
  }

  @Test
  void aNullBulkStringOrANestedArrayInARequestIsAProtocolError() {
    EmbeddedChannel channel = channel(1_000);
    channel.writeInbound(new ArrayHeaderRedisMessage(2), new BulkStringHeaderRedisMessage(4), last("ECHO"),
        FullBulkStringRedisMessage.NULL_INSTANCE, new ArrayHeaderRedisMessage(1));
    assertThat(passed).isEmpty();
    assertThat(errors).singleElement().extracting(Throwable::getMessage).asString()
        .isEqualTo("ERR Protocol error: invalid bulk length");
    channel.finishAndReleaseAll();
    errors.clear();
    channel = channel(1_000);
    channel.writeInbound(new ArrayHeaderRedisMessage(2), new ArrayHeaderRedisMessage(1));
    assertThat(errors).singleElement().extracting(Throwable::getMessage).asString()
        .isEqualTo("ERR Protocol error: expected '$', got '*'");
    channel.finishAndReleaseAll();
  }

  @Test
  void limitsAreCheckedOnHeaders() {
    EmbeddedChannel channel = channel(1_000);
    channel.writeInbound(new ArrayHeaderRedisMessage(RequestAssembler.MAX_ARGUMENTS + 1));
    assertThat(errors).singleElement().extracting(Throwable::getMessage).asString()
        .isEqualTo("ERR Protocol error: invalid multibulk length (65537 arguments; at most 65536)");
    channel.finishAndReleaseAll();
    errors.clear();
    channel = channel(1_000);
    channel.writeInbound(new ArrayHeaderRedisMessage(2), new IntegerRedisMessage(1));
    assertThat(errors).singleElement().extracting(Throwable::getMessage).asString()
        .isEqualTo("ERR Protocol error: expected '$', got ':'");
    channel.finishAndReleaseAll();
  }

  /** The error for these bytes, decoded by Netty's RedisDecoder as the server does. */
  private String errorFor(String bytes) {
    errors.clear();
    EmbeddedChannel channel = channel(1_000);
    channel.pipeline().addFirst(new RedisDecoder(RespServer.MAX_INLINE_BYTES, FixedRedisMessagePool.INSTANCE, true));
    channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.US_ASCII));
    channel.finishAndReleaseAll();
    assertThat(errors).as(bytes).hasSize(1);
    return errors.get(0).getMessage();
  }

  @Test
  void aLengthLineTheDecoderRefusesIsWordedAsRedisWordsIt() {
    // each as redis-server 7.0 answers it (networking.c, processMultibulkBuffer)
    assertThat(errorFor("*abc\r\n")).isEqualTo("ERR Protocol error: invalid multibulk length");
    assertThat(errorFor("*" + "9".repeat(25) + "\r\n")).isEqualTo("ERR Protocol error: invalid multibulk length");
    assertThat(errorFor("*2\r\n$4\r\nECHO\r\n$x\r\n")).isEqualTo("ERR Protocol error: invalid bulk length");
    assertThat(errorFor("*2\r\n$4\r\nECHO\r\n$-5\r\n")).isEqualTo("ERR Protocol error: invalid bulk length");
    // Redis waits for a count line up to 64 KiB; Netty gives up after 20 bytes without a line end
    assertThat(errorFor("*" + "9".repeat(70_000))).isEqualTo("ERR Protocol error: too big mbulk count string");
    assertThat(errorFor("*2\r\n$4\r\nECHO\r\n$" + "9".repeat(70_000)))
        .isEqualTo("ERR Protocol error: too big bulk count string");
    assertThat(errorFor("PING " + "a".repeat(RespServer.MAX_INLINE_BYTES + 1)))
        .isEqualTo("ERR Protocol error: too big inline request");
    assertThat(errorFor("*1\r\n$4\r\nPINGxx\r\n")).startsWith("ERR Protocol error: invalid request (delimiter");
  }

  @Test
  void onlyTheFirstDecoderFailureIsReported() {
    errors.clear();
    EmbeddedChannel channel = channel(1_000);
    channel.pipeline().addFirst(new RedisDecoder(RespServer.MAX_INLINE_BYTES, FixedRedisMessagePool.INSTANCE, true));
    channel.writeInbound(Unpooled.copiedBuffer("*abc\r\n*def\r\n", StandardCharsets.US_ASCII));
    channel.writeInbound(Unpooled.copiedBuffer("*ghi\r\n", StandardCharsets.US_ASCII));
    assertThat(errors).singleElement().extracting(Throwable::getMessage).asString()
        .isEqualTo("ERR Protocol error: invalid multibulk length");
    channel.finishAndReleaseAll();
  }
}
