package dev.streamfold.query;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The end of a connection that the server closes while the client may still be sending: after a protocol
 * error (a request over a limit, such as an MGET of more than {@value RequestAssembler#MAX_ARGUMENTS} keys)
 * or QUIT. The last reply is written and flushed, then the server's side is shut down (FIN: the client reads
 * the reply, then end of stream), and whatever the client still sends is read and dropped until it closes
 * its side, at most {@link #MAX_DRAIN_BYTES} bytes or {@link #TIMEOUT_MS} ms; then the connection closes.
 *
 * <p>Why: closing a socket whose receive buffer holds unread bytes makes the kernel send a reset (RST)
 * instead of FIN, and a client still writing its request (redis-cli writes all of it before reading) then
 * fails its write with "Connection reset by peer" and never reads the error that was already sent; the
 * reset may also discard reply bytes not yet sent. Redis 7 itself closes at once (a 3 MB request refused
 * before AUTH is reset the same way).
 *
 * <p>Sits first in the pipeline once added: the bytes it drops never reach the decoder.
 */
final class LingeringClose extends ChannelInboundHandlerAdapter {
  /**
   * Most bytes read and dropped after the last reply before the connection is closed anyway (a reset):
   * {@link RequestAssembler#MAX_REQUEST_BYTES}, the most one request may hold. It bounds the event loop's
   * time spent on a client that keeps sending (on loopback about 30 ms).
   */
  static final long MAX_DRAIN_BYTES = RequestAssembler.MAX_REQUEST_BYTES;
  /** Longest time after the last reply that the server waits for the client to close its side, ms. */
  static final long TIMEOUT_MS = 10_000;

  private final long maxDrainBytes;
  private final long timeoutMs;
  private long drainedBytes;
  private ScheduledFuture<?> timeout;

  private LingeringClose(long maxDrainBytes, long timeoutMs) {
    this.maxDrainBytes = maxDrainBytes;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Write and flush a connection's last reply, then close it as this class says; a channel that cannot shut
   * down its output alone (not a socket, e.g. in tests) closes once the reply is written.
   *
   * @param ctx the context of the handler that writes the reply (the reply passes the handlers before it)
   * @param lastReply the reply to write before closing
   */
  static void closeAfter(ChannelHandlerContext ctx, Object lastReply) {
    closeAfter(ctx, lastReply, MAX_DRAIN_BYTES, TIMEOUT_MS);
  }

  /**
   * @param maxDrainBytes most bytes dropped before closing anyway
   * @param timeoutMs longest wait for the client to close its side, ms
   */
  static void closeAfter(ChannelHandlerContext ctx, Object lastReply, long maxDrainBytes, long timeoutMs) {
    Channel channel = ctx.channel();
    if (!(channel instanceof DuplexChannel duplex)) {
      ctx.writeAndFlush(lastReply).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    // Drop the client's input from now on: it keeps its write going while ours is sent.
    channel.pipeline().addFirst("lingering-close", new LingeringClose(maxDrainBytes, timeoutMs));
    ctx.writeAndFlush(lastReply).addListener(written -> {
      if (written.isSuccess() && channel.isActive()) {
        // after the reply, in order: the client reads it, then end of stream
        duplex.shutdownOutput();
      } else {
        channel.close();
      }
    });
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    timeout = ctx.executor().schedule(() -> ctx.close(), timeoutMs, TimeUnit.MILLISECONDS);
    ctx.channel().config().setAutoRead(true); // reading was paused at the protocol error
    ctx.read();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf bytes) {
      drainedBytes += bytes.readableBytes();
    }
    ReferenceCountUtil.release(msg);
    if (drainedBytes > maxDrainBytes) {
      ctx.close(); // a reset if more is unread: the client had its reply and end of stream before
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!ctx.channel().config().isAutoRead()) {
      ctx.read();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (timeout != null) {
      timeout.cancel(false);
    }
    super.channelInactive(ctx);
  }
}
