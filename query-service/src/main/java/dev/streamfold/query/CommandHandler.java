package dev.streamfold.query;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a connection: runs each request and writes its reply. It is added to the
 * pipeline with an ordered executor group off the event loop, so commands may block on Redis while
 * requests of one connection still run one at a time and replies leave in request order (pipelining).
 * Replies are flushed once per batch of reads.
 */
final class CommandHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(CommandHandler.class);
  /** Netty's RedisDecoder message for a bulk length over its 512 MiB cap. */
  private static final java.util.regex.Pattern NETTY_BULK_LENGTH =
      java.util.regex.Pattern.compile("length: (\\d+) \\(expected: <= \\d+\\)");

  private final CommandDispatcher dispatcher;
  private final ServerState server;
  private Session session;

  CommandHandler(CommandDispatcher dispatcher, ServerState server) {
    this.dispatcher = dispatcher;
    this.server = server;
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
    if (session != null) {
      server.clientDisconnected();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (session == null || session.closing() || !(msg instanceof RedisMessage message)) {
        return;
      }
      List<Request> requests;
      try {
        requests = RequestParser.parse(message);
      } catch (ProtocolException e) {
        closeWith(ctx, ErrorMapper.toReply(e));
        return;
      }
      for (Request request : requests) {
        RedisMessage reply = dispatcher.execute(session, request);
        if (session.closing()) {
          closeWith(ctx, reply);
          return;
        }
        ctx.write(reply);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.flush();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    // Stop reading requests while the client does not read its replies.
    ctx.channel().config().setAutoRead(ctx.channel().isWritable());
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof ProtocolException protocol) {
      // a request over a limit (RequestLimits), in order behind the replies to earlier requests
      if (session != null && !session.closing()) {
        closeWith(ctx, ErrorMapper.toReply(protocol));
      }
    } else if (cause instanceof DecoderException) {
      if (session != null && !session.closing()) {
        closeWith(ctx, ErrorMapper.toReply(new ProtocolException(decoderDetail(cause))));
      }
    } else if (cause instanceof IOException || cause instanceof PrematureChannelClosureException) {
      LOG.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    } else {
      LOG.warn("connection {} failed", ctx.channel().remoteAddress(), cause);
      ctx.close();
    }
  }

  private void closeWith(ChannelHandlerContext ctx, RedisMessage lastReply) {
    if (session != null) {
      session.closeAfterReply();
    }
    ctx.writeAndFlush(lastReply).addListener(ChannelFutureListener.CLOSE);
  }

  /** Describe a decoding failure; Netty's messages are kept, Redis's own wording is not recoverable. */
  private static String decoderDetail(Throwable cause) {
    Throwable root = cause.getCause() != null ? cause.getCause() : cause;
    String message = root.getMessage();
    java.util.regex.Matcher tooLong = NETTY_BULK_LENGTH.matcher(message == null ? "" : message);
    if (tooLong.matches()) {
      // Netty's own cap (512 MiB, Redis's proto-max-bulk-len) on a declared bulk length, worded as Redis does
      return "invalid bulk length (" + tooLong.group(1) + " bytes; at most " + RequestLimits.MAX_BULK_BYTES + ")";
    }
    return "invalid request" + (message == null || message.isBlank() ? "" : " (" + message + ")");
  }

  private static String address(SocketAddress address) {
    if (address instanceof InetSocketAddress inet) {
      return inet.getAddress().getHostAddress() + ":" + inet.getPort();
    }
    return String.valueOf(address);
  }
}
