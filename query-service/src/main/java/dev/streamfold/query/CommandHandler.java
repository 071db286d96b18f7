package dev.streamfold.query;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a connection: runs each request and writes the replies in the order the requests came
 * (pipelining), on the connection's event loop.
 *
 * <p>View reads ({@link CommandDispatcher#blocking} false) start on the event loop at once and do not wait
 * for each other; their Redis calls are held back and sent together once per event-loop turn
 * ({@link CommandDispatcher#flushReadsSoon}), so the reads of all connections read in one turn reach Redis
 * in one write. Other
 * commands (AUTH, HELLO, CLIENT, VIEW.WAIT, SCAN, ...) may block or change the session: each runs on the
 * command executor alone, after every earlier request of the connection has replied and before any later
 * one starts, so it sees and leaves the session exactly as one-at-a-time execution would.
 *
 * <p>Every request gets a slot in a queue of pending replies; a reply that completes early waits for those
 * ahead of it, and completed heads are encoded together into one buffer ({@link Resp3Encoder#write}, at most
 * {@value #MAX_ENCODED_BYTES} bytes each), written and flushed once per event-loop turn: a pipelined burst
 * of replies is one buffer and one entry of the socket's outbound queue, not one per reply. The queue
 * holds at most {@code maxPending} requests per connection: when it is full, the handler stops reading
 * from the socket (auto-read off) until it has drained to half, so a client pipelining without reading
 * its replies holds at most {@code maxPending} requests plus one socket read of them (Netty reads at most
 * 64 KiB at a time by default). Reading also stops while the socket's outbound buffer is over its high
 * water mark (the client does not read its replies).
 *
 * <p>A request that breaks the protocol or a limit ({@link RequestAssembler}) gets its error reply in order
 * after those of the requests before it, then the connection closes; so does QUIT after its {@code +OK}. The
 * close lets the client read that last reply even while it is still sending ({@link LingeringClose}).
 * One instance per connection; all state is confined to the event loop.
 */
final class CommandHandler extends ChannelInboundHandlerAdapter {
  /** Most requests of one connection in flight or waiting for their turn, before reading pauses. */
  static final int DEFAULT_MAX_PENDING = 1024;

  private static final Logger LOG = LoggerFactory.getLogger(CommandHandler.class);
  private final CommandDispatcher dispatcher;
  private final ServerState server;
  private final Executor blockingExecutor;
  private final int maxPending;
  private Session session;
  private ChannelHandlerContext ctx;

  /** Started requests in arrival order; a head whose reply is set is written next. */
  private final ArrayDeque<Pending> started = new ArrayDeque<>();
  /** Requests not started yet, in arrival order, behind {@link #started}. */
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  /** A blocking command is running: nothing else starts until it completes. */
  private boolean blockingRunning;
  /** After QUIT or a protocol error: no more requests are read or started. */
  private boolean inputClosed;
  /** The connection is closing or closed: replies are dropped. */
  private boolean closed;
  /** Reading paused because the queue is full. */
  private boolean queueFull;
  private boolean pumping;
  private boolean unflushed;
  private boolean flushScheduled;
  private final Runnable flushTask = this::flushNow;
  /** Bytes of encoded replies after which the buffer is written and a new one started. */
  static final int MAX_ENCODED_BYTES = 64 * 1024;
  /** Replies encoded since the last write to the channel, in order; null when none. */
  private ByteBuf encoded;

  /** One request's slot in the reply queue. */
  private static final class Pending {
    /** The request; null for a protocol error whose reply is known at once. */
    final Request request;
    final boolean blocking;
    RedisMessage reply;
    boolean closeAfter;

    Pending(Request request, boolean blocking) {
      this.request = request;
      this.blocking = blocking;
    }
  }

  CommandHandler(CommandDispatcher dispatcher, ServerState server, Executor blockingExecutor) {
    this(dispatcher, server, blockingExecutor, DEFAULT_MAX_PENDING);
  }

  /**
   * Create the handler of one connection.
   *
   * @param dispatcher runs the commands
   * @param server server identity and counters
   * @param blockingExecutor where blocking commands run
   * @param maxPending most requests in the reply queue before reading pauses, at least 1
   * @throws IllegalArgumentException if {@code maxPending} is less than 1
   */
  CommandHandler(CommandDispatcher dispatcher, ServerState server, Executor blockingExecutor, int maxPending) {
    if (maxPending < 1) {
      throw new IllegalArgumentException("maxPending must be at least 1, was " + maxPending);
    }
    this.dispatcher = dispatcher;
    this.server = server;
    this.blockingExecutor = blockingExecutor;
    this.maxPending = maxPending;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    session = new Session(server.nextClientId(), server.tenant(), address(ctx.channel().remoteAddress()),
        address(ctx.channel().localAddress()));
    server.clientConnected();
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    closed = true;
    started.clear();
    waiting.clear();
    if (session != null) {
      server.clientDisconnected();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (session == null || inputClosed || closed) {
        return;
      }
      if (msg instanceof Request request) { // a request array, from RequestAssembler
        waiting.add(new Pending(request, dispatcher.blocking(request)));
      } else if (msg instanceof RedisMessage message) { // an inline command line
        List<Request> requests;
        try {
          requests = RequestParser.parse(message);
        } catch (ProtocolException e) {
          failInput(ErrorMapper.toReply(e));
          return;
        }
        for (Request request : requests) {
          waiting.add(new Pending(request, dispatcher.blocking(request)));
        }
      } else {
        return;
      }
      pump();
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (unflushed) {
      flushNow();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    // Stop reading requests while the client does not read its replies.
    updateAutoRead();
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof ProtocolException protocol) {
      // a request over a limit (RequestAssembler), in order behind the replies to earlier requests
      failInput(ErrorMapper.toReply(protocol));
    } else if (cause instanceof DecoderException) { // RequestAssembler words these; without it, outside a request
      failInput(ErrorMapper.toReply(new ProtocolException(RequestAssembler.decoderDetail(cause, false))));
    } else if (cause instanceof IOException || cause instanceof PrematureChannelClosureException) {
      LOG.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    } else {
      LOG.warn("connection {} failed", ctx.channel().remoteAddress(), cause);
      ctx.close();
    }
  }

  /** Requests in the queue: started (replied or not) and waiting. */
  int pending() {
    return started.size() + waiting.size();
  }

  /** Queue a last error reply behind the pending ones; stop reading; close once it is written. */
  private void failInput(RedisMessage lastReply) {
    if (session == null || inputClosed || closed) {
      return;
    }
    inputClosed = true;
    Pending last = new Pending(null, false);
    last.reply = lastReply;
    last.closeAfter = true;
    waiting.add(last);
    pump();
  }

  /** Write the replied heads in order, start what may start, and repeat until nothing moves. */
  private void pump() {
    if (pumping) {
      return; // a reply completed synchronously inside start(): the running loop picks it up
    }
    pumping = true;
    try {
      boolean moved = true;
      while (moved && !closed) {
        moved = false;
        while (!started.isEmpty() && started.peek().reply != null) {
          Pending head = started.poll();
          if (head.closeAfter) {
            closeWith(head.reply);
            return;
          }
          emit(head.reply);
          unflushed = true;
          moved = true;
        }
        Pending next = waiting.peek();
        if (next != null && !blockingRunning && (!next.blocking || started.isEmpty())) {
          waiting.poll();
          start(next);
          moved = true;
        }
      }
      if (unflushed && !flushScheduled && !closed) {
        flushScheduled = true;
        ctx.executor().execute(flushTask); // after the replies that complete in this turn: one flush for all
      }
      updateAutoRead();
    } finally {
      pumping = false;
    }
  }

  private void start(Pending p) {
    started.add(p);
    if (p.request == null) {
      return; // its reply is known
    }
    if (p.blocking) {
      blockingRunning = true;
      Session s = session;
      try {
        blockingExecutor.execute(() -> {
          RedisMessage reply = dispatcher.execute(s, p.request);
          boolean quit = s.closing();
          ctx.executor().execute(() -> complete(p, reply, quit));
        });
      } catch (RejectedExecutionException shuttingDown) {
        LOG.debug("connection {}: command executor stopped", ctx.channel().remoteAddress());
        closed = true;
        ctx.close();
      }
      return;
    }
    CompletionStage<RedisMessage> reply = dispatcher.executeAsync(session, p.request);
    dispatcher.flushReadsSoon(ctx.executor());
    reply.whenComplete((message, never) -> {
      if (ctx.executor().inEventLoop()) {
        complete(p, message, false);
      } else {
        ctx.executor().execute(() -> complete(p, message, false));
      }
    });
  }

  private void complete(Pending p, RedisMessage reply, boolean quit) {
    p.reply = reply;
    p.closeAfter = quit;
    if (p.blocking) {
      blockingRunning = false;
    }
    if (quit) {
      inputClosed = true;
    }
    if (!closed) {
      pump();
    }
  }

  private void flushNow() {
    flushScheduled = false;
    if (unflushed) {
      unflushed = false;
      writeEncoded();
      ctx.flush();
    }
  }

  /** Queue one reply behind the earlier ones: encoded into {@link #encoded} when the encoder knows its type. */
  private void emit(RedisMessage reply) {
    if (!Resp3Encoder.writes(reply)) {
      writeEncoded();
      ctx.write(reply, ctx.voidPromise());
      return;
    }
    try {
      if (encoded == null) {
        encoded = ctx.alloc().ioBuffer(1024);
      }
      Resp3Encoder.write(reply, encoded);
    } finally {
      ReferenceCountUtil.release(reply); // as the encoder does once it has written a message
    }
    if (encoded.readableBytes() >= MAX_ENCODED_BYTES) {
      writeEncoded();
    }
  }

  /** Hand the encoded replies to the channel (written at the next flush). */
  private void writeEncoded() {
    if (encoded != null) {
      ByteBuf out = encoded;
      encoded = null;
      ctx.write(out, ctx.voidPromise());
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (encoded != null) {
      encoded.release();
      encoded = null;
    }
  }

  /** Read while the queue has room and the client reads its replies; resume at half the queue. */
  private void updateAutoRead() {
    if (closed) {
      return; // closing: LingeringClose reads and drops the rest of the input
    }
    int pending = pending();
    if (!queueFull && pending >= maxPending) {
      queueFull = true;
    } else if (queueFull && pending <= maxPending / 2) {
      queueFull = false;
    }
    boolean read = !queueFull && !inputClosed && !closed && ctx.channel().isWritable();
    if (ctx.channel().config().isAutoRead() != read) {
      ctx.channel().config().setAutoRead(read);
    }
  }

  private void closeWith(RedisMessage lastReply) {
    closed = true;
    inputClosed = true;
    started.clear();
    waiting.clear();
    unflushed = false;
    writeEncoded();
    LingeringClose.closeAfter(ctx, lastReply);
  }

  private static String address(SocketAddress address) {
    if (address instanceof InetSocketAddress inet) {
      return inet.getAddress().getHostAddress() + ":" + inet.getPort();
    }
    return String.valueOf(address);
  }
}
