package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewSchema;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * The reply queue of {@link CommandHandler} on an {@link EmbeddedChannel}: view reads whose Redis replies
 * the test completes by hand, in any order, and a blocking-command executor the test runs by hand.
 */
class CommandHandlerTest {
  private static final ViewName VIEW = new ViewName("t", "v");

  /** Reads complete only when the test says so; one pending read per row key. */
  private static final class HeldReader extends InMemoryViewReader {
    final Map<String, CompletableFuture<Rows>> reads = new LinkedHashMap<>();
    int flushes;

    @Override
    public void flushReads() {
      flushes++;
    }

    @Override
    public CompletionStage<Rows> rowsWithSchemaAsync(ViewName name, List<String> rowKeys) {
      CompletableFuture<Rows> read = new CompletableFuture<>();
      reads.put(rowKeys.get(0), read);
      return read;
    }

    void reply(String rowKey, String value) {
      reads.get(rowKey).complete(new Rows(Optional.empty(), List.of(Optional.of(Map.of("f", value)))));
    }
  }

  private final HeldReader reader = new HeldReader();
  private final ArrayDeque<Runnable> blockingTasks = new ArrayDeque<>();

  private EmbeddedChannel channel(int maxPending) {
    reader.define(VIEW, new ViewSchema(Map.of("k", "STRING", "f", "STRING"), List.of("k")));
    ServerState state = new ServerState(Clock.systemUTC(), "t", null);
    CommandDispatcher dispatcher = new CommandDispatcher(reader, state);
    return new EmbeddedChannel(new CommandHandler(dispatcher, state, blockingTasks::add, maxPending));
  }

  /** A request array as {@link RequestAssembler} passes it on. */
  private static Request request(String... args) {
    return Request.of(args);
  }

  /**
   * The replies written so far, as text: bulk strings as is, errors as -..., simple strings as +...; replies
   * arrive encoded (several in one buffer), or as messages the encoder does not write.
   */
  private static List<String> replies(EmbeddedChannel channel) {
    channel.runPendingTasks();
    List<String> out = new ArrayList<>();
    for (Object m; (m = channel.readOutbound()) != null; ) {
      if (m instanceof io.netty.buffer.ByteBuf bytes) {
        out.addAll(decode(bytes.toString(StandardCharsets.UTF_8)));
        bytes.release();
      } else if (m instanceof FullBulkStringRedisMessage bulk) {
        out.add(bulk.isNull() ? "(nil)" : bulk.content().toString(StandardCharsets.UTF_8));
        bulk.release();
      } else if (m instanceof ErrorRedisMessage error) {
        out.add("-" + error.content());
      } else if (m instanceof SimpleStringRedisMessage simple) {
        out.add("+" + simple.content());
      } else {
        out.add(String.valueOf(m));
      }
    }
    return out;
  }

  /** Split encoded bulk, simple, error and integer replies (the ones these tests get). */
  private static List<String> decode(String resp) {
    List<String> out = new ArrayList<>();
    int at = 0;
    while (at < resp.length()) {
      int eol = resp.indexOf("\r\n", at);
      char type = resp.charAt(at);
      String line = resp.substring(at + 1, eol);
      at = eol + 2;
      if (type == '$') {
        int length = Integer.parseInt(line);
        if (length < 0) {
          out.add("(nil)");
        } else {
          out.add(resp.substring(at, at + length));
          at += length + 2;
        }
      } else {
        out.add(type == '+' || type == '-' ? type + line : line);
      }
    }
    return out;
  }

  @Test
  void aBurstOfRepliesLeavesAsOneBuffer() {
    EmbeddedChannel channel = channel(64);
    List<Request> burst = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      burst.add(request("HGET", "v:k" + i, "f"));
    }
    channel.writeInbound(burst.toArray());
    for (int i = 0; i < 16; i++) {
      reader.reply("k" + i, "value " + i);
    }
    channel.runPendingTasks();
    List<Object> written = new ArrayList<>();
    for (Object m; (m = channel.readOutbound()) != null; ) {
      written.add(m);
    }
    assertThat(written).hasSize(1).first().isInstanceOf(io.netty.buffer.ByteBuf.class);
    io.netty.buffer.ByteBuf bytes = (io.netty.buffer.ByteBuf) written.get(0);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      expected.add("value " + i);
    }
    assertThat(decode(bytes.toString(StandardCharsets.UTF_8))).isEqualTo(expected);
    bytes.release();
    channel.finishAndReleaseAll();
  }

  @Test
  void repliesLeaveInRequestOrderWhenReadsCompleteOutOfOrder() {
    EmbeddedChannel channel = channel(16);
    channel.writeInbound(request("HGET", "v:a", "f"), request("HGET", "v:b", "f"), request("HGET", "v:c", "f"));
    assertThat(reader.reads).containsOnlyKeys("a", "b", "c"); // all three sent before any reply

    reader.reply("c", "3");
    reader.reply("b", "2");
    assertThat(replies(channel)).isEmpty();
    reader.reply("a", "1");
    assertThat(replies(channel)).containsExactly("1", "2", "3");
    channel.finishAndReleaseAll();
  }

  @Test
  void anErrorInTheMiddleKeepsItsPlace() {
    EmbeddedChannel channel = channel(16);
    channel.writeInbound(request("HGET", "v:a", "f"), request("HGET", "v:b", "f"), request("NOSUCH", "x"),
        request("HGET", "v:c", "f"));
    reader.reads.get("b").completeExceptionally(new IllegalStateException("redis went away"));
    reader.reply("c", "3");
    assertThat(replies(channel)).isEmpty(); // the unknown command's error is ready too, but waits for a
    reader.reply("a", "1");
    assertThat(replies(channel)).containsExactly("1", "-ERR redis went away",
        "-ERR unknown command 'NOSUCH', with args beginning with: 'x' ", "3");
    assertThat(channel.isOpen()).isTrue();
    channel.finishAndReleaseAll();
  }

  @Test
  void aFullQueueStopsReadingUntilHalfOfItHasReplied() {
    EmbeddedChannel channel = channel(4);
    channel.writeInbound(request("HGET", "v:a", "f"), request("HGET", "v:b", "f"), request("HGET", "v:c", "f"));
    assertThat(channel.config().isAutoRead()).isTrue();
    channel.writeInbound(request("HGET", "v:d", "f"));
    assertThat(channel.config().isAutoRead()).isFalse();

    reader.reply("a", "1");
    channel.runPendingTasks();
    assertThat(channel.config().isAutoRead()).as("3 pending of 4").isFalse();
    reader.reply("b", "2");
    channel.runPendingTasks();
    assertThat(channel.config().isAutoRead()).as("2 pending of 4").isTrue();
    reader.reply("c", "3");
    reader.reply("d", "4");
    assertThat(replies(channel)).containsExactly("1", "2", "3", "4");
    channel.finishAndReleaseAll();
  }

  @Test
  void aBlockingCommandRunsAloneBetweenTheReadsAroundIt() {
    EmbeddedChannel channel = channel(16);
    channel.writeInbound(request("HGET", "v:a", "f"), request("CLIENT", "SETNAME", "n1"), request("HGET", "v:b", "f"));
    assertThat(reader.reads).containsOnlyKeys("a");
    assertThat(blockingTasks).as("waits for the read before it").isEmpty();

    reader.reply("a", "1");
    channel.runPendingTasks();
    assertThat(blockingTasks).hasSize(1);
    assertThat(reader.reads).as("the read after it waits").containsOnlyKeys("a");
    blockingTasks.poll().run();
    channel.runPendingTasks();
    assertThat(reader.reads).containsOnlyKeys("a", "b");
    reader.reply("b", "2");
    assertThat(replies(channel)).containsExactly("1", "+OK", "2");
    channel.finishAndReleaseAll();
  }

  @Test
  void quitClosesAfterItsReplyAndDropsWhatFollows() {
    EmbeddedChannel channel = channel(16);
    channel.writeInbound(request("HGET", "v:a", "f"), request("QUIT"), request("HGET", "v:b", "f"));
    reader.reply("a", "1");
    channel.runPendingTasks();
    blockingTasks.poll().run();
    assertThat(replies(channel)).containsExactly("1", "+OK");
    assertThat(channel.isOpen()).isFalse();
    assertThat(reader.reads).containsOnlyKeys("a");
    channel.finishAndReleaseAll();
  }

  @Test
  void aProtocolErrorIsRepliedAfterThePendingRepliesThenTheConnectionCloses() {
    EmbeddedChannel channel = channel(16);
    channel.writeInbound(request("HGET", "v:a", "f"));
    channel.pipeline().fireExceptionCaught(new ProtocolException("invalid bulk length"));
    channel.writeInbound(request("HGET", "v:b", "f"));
    assertThat(channel.isOpen()).isTrue();
    reader.reply("a", "1");
    List<String> replies = replies(channel);
    assertThat(replies).hasSize(2);
    assertThat(replies.get(0)).isEqualTo("1");
    assertThat(replies.get(1)).startsWith("-ERR Protocol error");
    assertThat(channel.isOpen()).isFalse();
    assertThat(reader.reads).containsOnlyKeys("a");
    channel.finishAndReleaseAll();
  }

  @Test
  void repliesCompletedTogetherAreFlushedOnce() {
    EmbeddedChannel channel = channel(16);
    int[] flushes = {0};
    channel.pipeline().addFirst(new io.netty.channel.ChannelOutboundHandlerAdapter() {
      @Override
      public void flush(io.netty.channel.ChannelHandlerContext ctx) {
        flushes[0]++;
        ctx.flush();
      }
    });
    channel.writeInbound(request("HGET", "v:a", "f"), request("HGET", "v:b", "f"), request("HGET", "v:c", "f"));
    channel.runPendingTasks();
    flushes[0] = 0;
    for (String key : Arrays.asList("c", "b", "a")) {
      reader.reply(key, key);
    }
    assertThat(replies(channel)).containsExactly("a", "b", "c");
    assertThat(flushes[0]).isEqualTo(1);
    channel.finishAndReleaseAll();
  }

  @Test
  void readsStartedInOneTurnAreFlushedToRedisOnce() {
    EmbeddedChannel channel = channel(16);
    channel.writeInbound(request("HGET", "v:a", "f"), request("HGET", "v:b", "f"));
    channel.runPendingTasks();
    assertThat(reader.flushes).isEqualTo(1);
    channel.writeInbound(request("HGET", "v:c", "f"));
    channel.runPendingTasks();
    assertThat(reader.flushes).isEqualTo(2);
    channel.finishAndReleaseAll();
  }
}
