package dev.streamfold.query;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringRedisContent;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.LastBulkStringRedisContent;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;

/**
 * Enforces the request limits between Netty's Redis decoder and its aggregators, on the headers, before
 * any argument is buffered: a request array may hold at most {@value #MAX_ARGUMENTS} arguments, each a
 * bulk string of at most {@value #MAX_BULK_BYTES} bytes and {@value #MAX_REQUEST_BYTES} bytes in all,
 * and never a nested array or another type (Redis: {@code expected '$', got '*'}).
 *
 * <p>Without it, Netty's {@code RedisArrayAggregator} sizes a list by the declared length
 * ({@code *2000000000} allocates an 8 GB array: OutOfMemoryError on the event loop) and its bulk
 * aggregator buffers up to 512 MiB per argument. A request over a limit gets
 * {@code -ERR Protocol error: <what>} in order after the replies to the requests before it, and the
 * connection is closed, as Redis does; every other connection keeps being served. Nothing after the
 * offending header is buffered: the rest of the connection's input is dropped.
 *
 * <p>One instance per connection (it keeps the state of the request being decoded).
 */
final class RequestLimits extends ChannelInboundHandlerAdapter {
  /**
   * Most arguments in one request (command name included). Our own: Redis 7.0 accepts up to 2^31 - 1
   * ({@code networking.c}, {@code ll > INT_MAX}) because it keeps a request as bytes in its query buffer;
   * we hold each argument as an object (about 150 bytes of heap with its buffer slice), so 2^16 arguments
   * cost about 10 MB per connection. Plenty for MGET/EXISTS/HMGET, our only variadic commands.
   */
  static final int MAX_ARGUMENTS = 65_536;
  /**
   * Longest argument, bytes. Our own, far below Redis's default {@code proto-max-bulk-len} of 512 MiB
   * (which Netty's decoder also enforces): an argument here is a row key, a field, a pattern or a
   * message ID; the longest row key is one event payload (1 MiB, the ledger's {@code
   * EventValidator.MAX_PAYLOAD_BYTES}, e.g. a view grouped by a long text column) plus the view name.
   */
  static final int MAX_BULK_BYTES = 2 * 1024 * 1024;
  /**
   * Most bytes of all arguments of one request. Our own: 1/16 of Redis's default
   * {@code client-query-buffer-limit} (1 GiB), the most one connection makes the server buffer.
   */
  static final long MAX_REQUEST_BYTES = 64L * 1024 * 1024;
  /**
   * Longest time a request may take to arrive once it has started (its array header read), ms. Ours:
   * Redis has no such limit (its {@code timeout} is for idle clients and off by default), but it keeps a
   * partial request as bytes; here a client that sends a header and then stalls would hold up to
   * {@link #MAX_REQUEST_BYTES} per connection forever. A connection idle between requests is not limited.
   */
  static final long INCOMPLETE_REQUEST_TIMEOUT_MS = 30_000;

  private final long incompleteRequestTimeoutMs;
  private io.netty.util.concurrent.ScheduledFuture<?> deadline;

  RequestLimits() {
    this(INCOMPLETE_REQUEST_TIMEOUT_MS);
  }

  RequestLimits(long incompleteRequestTimeoutMs) {
    this.incompleteRequestTimeoutMs = incompleteRequestTimeoutMs;
  }

  /** Arguments still to come in the current request array; 0 outside an array. */
  private long remainingArguments;
  private long requestBytes;
  private boolean failed;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (failed) {
      ReferenceCountUtil.release(msg);
      return;
    }
    boolean idle = remainingArguments == 0;
    String problem = check(msg);
    if (problem != null) {
      fail(ctx, problem);
      ReferenceCountUtil.release(msg);
      return;
    }
    if (idle && remainingArguments > 0) {
      deadline = ctx.executor().schedule(() -> fail(ctx, "request not complete " + incompleteRequestTimeoutMs
          + " ms after it started (at most " + incompleteRequestTimeoutMs + " ms)"), incompleteRequestTimeoutMs,
          java.util.concurrent.TimeUnit.MILLISECONDS);
    } else if (!idle && remainingArguments == 0 && deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
    ctx.fireChannelRead(msg);
  }

  private void fail(ChannelHandlerContext ctx, String problem) {
    if (failed) {
      return;
    }
    failed = true;
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
    ctx.channel().config().setAutoRead(false);
    // In order behind the requests already passed on: the command handler replies and closes.
    ctx.fireExceptionCaught(new ProtocolException(problem));
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (deadline != null) {
      deadline.cancel(false);
    }
    super.channelInactive(ctx);
  }

  /** Update the state with one decoded piece; return what is wrong with it, or null. */
  String check(Object msg) {
    if (msg instanceof ArrayHeaderRedisMessage header) {
      if (remainingArguments > 0) {
        return "expected '$', got '*'";
      }
      if (header.length() > MAX_ARGUMENTS) {
        return "invalid multibulk length (" + header.length() + " arguments; at most " + MAX_ARGUMENTS + ")";
      }
      remainingArguments = Math.max(0, header.length());
      requestBytes = 0;
      return null;
    }
    if (msg instanceof BulkStringHeaderRedisMessage header) {
      if (header.bulkStringLength() > MAX_BULK_BYTES) {
        return "invalid bulk length (" + header.bulkStringLength() + " bytes; at most " + MAX_BULK_BYTES + ")";
      }
      requestBytes += header.bulkStringLength();
      if (requestBytes > MAX_REQUEST_BYTES) {
        return "request too large (more than " + MAX_REQUEST_BYTES + " bytes of arguments)";
      }
      return null;
    }
    if (msg instanceof LastBulkStringRedisContent || msg instanceof FullBulkStringRedisMessage) {
      argumentDone();
      return null;
    }
    if (msg instanceof BulkStringRedisContent) {
      return null;
    }
    if (remainingArguments > 0 && msg instanceof RedisMessage message) {
      return "expected '$', got '" + RequestParser.typeByte(message) + "'";
    }
    return null;
  }

  private void argumentDone() {
    if (remainingArguments > 0) {
      remainingArguments--;
    }
  }
}
