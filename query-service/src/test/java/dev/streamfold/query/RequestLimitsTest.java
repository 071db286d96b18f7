package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.DefaultLastBulkStringRedisContent;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RequestLimitsTest {
  private final List<Throwable> errors = new ArrayList<>();

  private EmbeddedChannel channel(long timeoutMs) {
    EmbeddedChannel channel = new EmbeddedChannel(new RequestLimits(timeoutMs), new ChannelInboundHandlerAdapter() {
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

  @Test
  void limitsAreCheckedOnHeaders() {
    EmbeddedChannel channel = channel(1_000);
    channel.writeInbound(new ArrayHeaderRedisMessage(RequestLimits.MAX_ARGUMENTS + 1));
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
}
