package dev.streamfold.query;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringRedisContent;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.LastBulkStringRedisContent;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds requests from the pieces that Netty's {@code RedisDecoder} reads, and enforces the request limits on
 * their headers before any argument is buffered: a request array may hold at most {@value #MAX_ARGUMENTS}
 * arguments, each a bulk string of at most {@value #MAX_BULK_BYTES} bytes and {@value #MAX_REQUEST_BYTES}
 * bytes in all, and never a nested array or another type (Redis: {@code expected '$', got '*'}), and it must
 * arrive within {@value #INCOMPLETE_REQUEST_TIMEOUT_MS} ms.
 *
 * <p>It takes the place of Netty's {@code RedisBulkStringAggregator} and {@code RedisArrayAggregator}
 * between the decoder and {@link CommandHandler}: a request array becomes one {@link Request} whose
 * arguments are copied once, straight from the decoder's buffer slices into their byte arrays. The
 * aggregators built a composite buffer and a message per argument and an array message per request, and
 * passed every piece through two more handlers: about a fifth of the RESP threads' CPU in a pipelined
 * serving profile (docs/performance.md, session 9). The aggregators also had no limits of their own: {@code
 * *2000000000} made {@code RedisArrayAggregator} allocate an 8 GB list (OutOfMemoryError on the event
 * loop), and the bulk aggregator buffered up to 512 MiB per argument.
 *
 * <p>What it passes on: a {@link Request} per non-empty request array (an empty or null array, which Redis
 * ignores, passes nothing); any other top-level message as it came (inline commands, and a bulk string
 * outside an array, aggregated into one {@link FullBulkStringRedisMessage}), which {@link RequestParser}
 * reads as Redis reads such lines. A request over a limit, or a null bulk string in a request ({@code
 * invalid bulk length}), or a line the decoder refuses (worded as Redis words it, {@link #decoderDetail}), is an
 * exception event with a {@link ProtocolException}: {@link CommandHandler} replies {@code -ERR Protocol error:
 * <what>} in order after the replies to the requests before it and closes the connection, as Redis does
 * ({@link LingeringClose}: the client reads the reply even while it is still sending); every other connection
 * keeps being served. Nothing after the offending header is buffered: the rest of the connection's input is
 * dropped.
 *
 * <p>One instance per connection (it keeps the request being read); confined to the connection's event loop.
 */
final class RequestAssembler extends ChannelInboundHandlerAdapter {
  /**
   * Most arguments in one request (command name included). Our own: Redis 7.0 accepts up to 2^31 - 1
   * ({@code networking.c}, {@code ll > INT_MAX}) because it keeps a request as bytes in its query buffer;
   * we hold each argument as a byte array (about 16 bytes of heap besides its bytes), so 2^16 arguments
   * cost about 1 MB per connection. Plenty for MGET/EXISTS/HMGET, our only variadic commands.
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
   * Longest time a request may take to arrive once it has started, ms: counted from the end of the socket
   * read after which its header line ({@code *N} or {@code $N}) was complete but not the request (a request
   * that arrives whole in one read starts no timer), and started again in full whenever it runs out while
   * the server is not reading the connection (back-pressure: the client does not read its replies). Ours:
   * Redis has no such limit (its {@code timeout} is for idle clients and off by default), but it keeps a
   * partial request as bytes; here a client that sends a header and then stalls would hold up to
   * {@link #MAX_REQUEST_BYTES} per connection forever. A connection idle between requests is not limited.
   */
  static final long INCOMPLETE_REQUEST_TIMEOUT_MS = 30_000;

  /**
   * Netty's RedisDecoder message for a length over one of its caps: a declared bulk length over 512 MiB, or
   * an inline line longer than {@link RespServer#MAX_INLINE_BYTES} (the cap is the second number).
   */
  private static final Pattern NETTY_TOO_LONG = Pattern.compile("length: (\\d+) \\(expected: <= (\\d+)\\)");
  /** Netty's RedisDecoder message for a length line with more than 20 bytes and no line end yet (their count). */
  private static final Pattern NETTY_LONG_UNTERMINATED =
      Pattern.compile("too many characters to be a valid RESP Integer: \\d{1,10}");
  /** Netty's RedisDecoder messages for a complete length line that is not a length of -1 or more. */
  private static final Pattern NETTY_BAD_LENGTH = Pattern.compile(
      "too many characters to be a valid RESP Integer: |bad byte in number: |no number to parse: |length: -\\d+ \\(expected: >=");

  private final long incompleteRequestTimeoutMs;
  private io.netty.util.concurrent.ScheduledFuture<?> deadline;
  private boolean failed;

  /** The arguments of the request array being read; null outside an array. */
  private byte[][] args;
  /** Arguments of {@link #args} complete so far. */
  private int argCount;
  /** Bytes declared by the bulk string headers of the current request so far. */
  private long requestBytes;
  /** The bulk string being read (inside or outside an array); null between bulk strings. */
  private byte[] bulk;
  /** Bytes of {@link #bulk} read so far. */
  private int bulkFilled;

  RequestAssembler() {
    this(INCOMPLETE_REQUEST_TIMEOUT_MS);
  }

  /**
   * @param incompleteRequestTimeoutMs how long a started request may take to arrive, ms
   */
  RequestAssembler(long incompleteRequestTimeoutMs) {
    this.incompleteRequestTimeoutMs = incompleteRequestTimeoutMs;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (failed) {
      ReferenceCountUtil.release(msg);
      return;
    }
    Object out;
    try {
      out = accept(msg);
    } catch (ProtocolException problem) {
      fail(ctx, problem);
      return;
    } finally {
      ReferenceCountUtil.release(msg);
    }
    if (out != null) {
      ctx.fireChannelRead(out);
    }
  }

  /**
   * Turn a decoding failure of Netty's {@code RedisDecoder} into a protocol error in Redis's words, in order
   * behind the requests passed on before it.
   */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!(cause instanceof DecoderException)) {
      ctx.fireExceptionCaught(cause);
      return;
    }
    if (!failed) { // after the first failure the decoder reads what follows as junk: nothing more to say
      fail(ctx, new ProtocolException(decoderDetail(cause, args != null)));
    }
  }

  /**
   * Describe a failure of Netty's {@code RedisDecoder} in Redis's words ({@code networking.c}) where the
   * case is the same; other messages of the decoder are kept after {@code invalid request}.
   *
   * @param cause what the decoder threw
   * @param inArray whether a request array was being read, so that a bad length line was a bulk string's
   *     ({@code $N}) rather than an array's ({@code *N})
   * @return the detail after {@code Protocol error: }
   */
  static String decoderDetail(Throwable cause, boolean inArray) {
    Throwable root = cause.getCause() != null ? cause.getCause() : cause;
    String message = root.getMessage() == null ? "" : root.getMessage();
    Matcher tooLong = NETTY_TOO_LONG.matcher(message);
    if (tooLong.matches() && tooLong.group(2).equals(Integer.toString(RespServer.MAX_INLINE_BYTES))) {
      return "too big inline request"; // PROTO_INLINE_MAX_SIZE
    }
    if (tooLong.matches()) {
      // Netty's own cap (512 MiB, Redis's proto-max-bulk-len) on a declared bulk length
      return "invalid bulk length (" + tooLong.group(1) + " bytes; at most " + MAX_BULK_BYTES + ")";
    }
    if (NETTY_LONG_UNTERMINATED.matcher(message).matches()) {
      // Redis: a length line without its line end past 64 KiB; Netty gives up after 20 bytes
      return inArray ? "too big bulk count string" : "too big mbulk count string";
    }
    if (NETTY_BAD_LENGTH.matcher(message).lookingAt()) {
      // not a number, too many digits, or below -1 (Redis ignores "*-5" and refuses "$-5"; Netty refuses both)
      return inArray ? "invalid bulk length" : "invalid multibulk length";
    }
    return "invalid request" + (message.isBlank() ? "" : " (" + message + ")");
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!failed && (args != null || bulk != null) && deadline == null) {
      armDeadline(ctx);
    }
    ctx.fireChannelReadComplete();
  }

  /**
   * Fail the incomplete request {@link #incompleteRequestTimeoutMs} from now, unless the server has stopped
   * reading the connection meanwhile (auto-read off: {@link CommandHandler}'s back-pressure while the client
   * does not read its replies, or its queue is full): the rest of the request cannot arrive then, so the
   * timer starts again in full instead.
   */
  private void armDeadline(ChannelHandlerContext ctx) {
    deadline = ctx.executor().schedule(() -> {
      deadline = null;
      if (failed || (args == null && bulk == null)) {
        return;
      }
      if (!ctx.channel().config().isAutoRead()) {
        armDeadline(ctx); // not the client's delay: we are not reading
        return;
      }
      fail(ctx, new ProtocolException("request not complete " + incompleteRequestTimeoutMs
          + " ms after it started (at most " + incompleteRequestTimeoutMs + " ms)"));
    }, incompleteRequestTimeoutMs, TimeUnit.MILLISECONDS);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancelDeadline();
    super.channelInactive(ctx);
  }

  /**
   * Take one piece from the decoder (the caller releases it).
   *
   * @param msg what the decoder passed on
   * @return what to pass on now (a {@link Request} or a top-level message), or null while a request is incomplete
   * @throws ProtocolException if the piece breaks a limit or the request format; the message is Redis's wording
   */
  Object accept(Object msg) {
    if (msg instanceof ArrayHeaderRedisMessage header) {
      if (args != null) {
        throw new ProtocolException("expected '$', got '*'");
      }
      if (header.length() > MAX_ARGUMENTS) {
        throw new ProtocolException("invalid multibulk length (" + header.length() + " arguments; at most "
            + MAX_ARGUMENTS + ")");
      }
      if (header.length() > 0) {
        args = new byte[(int) header.length()][];
        argCount = 0;
        requestBytes = 0;
      }
      return null; // an empty or null array is ignored, as Redis ignores "*0" and "*-1"
    }
    if (msg instanceof BulkStringHeaderRedisMessage header) {
      int length = header.bulkStringLength();
      if (length > MAX_BULK_BYTES) {
        throw new ProtocolException("invalid bulk length (" + length + " bytes; at most " + MAX_BULK_BYTES + ")");
      }
      requestBytes = (args == null ? 0 : requestBytes) + length; // a bulk string outside an array is its own request
      if (requestBytes > MAX_REQUEST_BYTES) {
        throw new ProtocolException("request too large (more than " + MAX_REQUEST_BYTES + " bytes of arguments)");
      }
      bulk = new byte[length];
      bulkFilled = 0;
      return null;
    }
    if (msg instanceof FullBulkStringRedisMessage full) { // "$0" (empty) and "$-1" (null) come whole
      if (full.isNull()) {
        if (args != null) {
          throw new ProtocolException("invalid bulk length");
        }
        return full;
      }
      byte[] whole = new byte[full.content().readableBytes()];
      full.content().getBytes(full.content().readerIndex(), whole);
      return argument(whole);
    }
    if (msg instanceof BulkStringRedisContent content && bulk != null) {
      ByteBuf bytes = content.content();
      int n = Math.min(bytes.readableBytes(), bulk.length - bulkFilled);
      bytes.getBytes(bytes.readerIndex(), bulk, bulkFilled, n);
      bulkFilled += n;
      if (!(msg instanceof LastBulkStringRedisContent)) {
        return null;
      }
      byte[] done = bulk;
      bulk = null;
      return argument(done);
    }
    if (args != null && msg instanceof RedisMessage message) {
      throw new ProtocolException("expected '$', got '" + RequestParser.typeByte(message) + "'");
    }
    return ReferenceCountUtil.retain(msg); // inline and other top-level messages, for RequestParser
  }

  /** One bulk string complete: the next argument, or a top-level bulk string when outside an array. */
  private Object argument(byte[] value) {
    if (args == null) {
      cancelDeadline(); // a top-level bulk string is a request of its own: complete
      return new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(value));
    }
    args[argCount++] = value;
    if (argCount < args.length) {
      return null;
    }
    Request request = Request.owning(args); // the array is not used again: args is cleared below
    args = null;
    cancelDeadline();
    return request;
  }

  private void cancelDeadline() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }

  private void fail(ChannelHandlerContext ctx, ProtocolException problem) {
    if (failed) {
      return;
    }
    failed = true;
    args = null;
    bulk = null;
    cancelDeadline();
    ctx.channel().config().setAutoRead(false);
    // In order behind the requests already passed on: the command handler replies and closes.
    ctx.fireExceptionCaught(problem);
  }
}
