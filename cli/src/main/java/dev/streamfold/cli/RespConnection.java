package dev.streamfold.cli;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FixedRedisMessagePool;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One blocking RESP connection, on Netty's Redis codec: open it with {@code HELLO 3 AUTH <user> <password>}
 * ({@code AUTH <user> <password>} when the server knows no HELLO or no RESP3), send a command as an array
 * of bulk strings, wait for its reply. One command at a time; not thread-safe.
 *
 * <p>Replies as Java values: simple and bulk strings as {@code String} (UTF-8), integers as {@code Long}, the null
 * bulk string, null array and RESP3 null as {@code null}, arrays as {@code List<Object>}, a RESP3 map as the list of
 * its keys and values in reply order (as RESP2 sends it), an error inside an array as a {@link RespException.ErrorReply}
 * element. Netty's decoder knows the RESP2 types only; it hands the one-line RESP3 types over as inline lines, of which
 * this class reads the map header ({@code %<pairs>}) and the null ({@code _}); any other is a protocol error.
 *
 * <p>Each connection has one I/O thread (a daemon), on Netty's native epoll transport where it loads (Linux), Java NIO
 * elsewhere; a refused connection's error then reads as the query-service's own clients see it
 * ({@code finishConnect(..) failed with error(-111): Connection refused}).
 */
final class RespConnection implements AutoCloseable {
  /** Longest line of a reply other than a bulk string, in bytes (Netty's default). */
  private static final int MAX_LINE_BYTES = 64 * 1024;
  /** Stands for a null reply in {@link #replies}, which holds no nulls. */
  private static final Object NULL = new Object();
  /** Put in {@link #replies} when the connection closes. */
  private static final Object CLOSED = new Object();

  private final EventLoopGroup group;
  private final Channel channel;
  private final Duration timeout;
  /** Whole replies in arrival order, {@link Failure}s, then {@link #CLOSED}; filled on the event loop. */
  private final BlockingQueue<Object> replies = new LinkedBlockingQueue<>();

  private RespConnection(String host, int port, Duration timeout) {
    this.timeout = timeout;
    boolean epoll = Epoll.isAvailable();
    DefaultThreadFactory threads = new DefaultThreadFactory("resp-client", true);
    this.group = epoll ? new EpollEventLoopGroup(1, threads) : new NioEventLoopGroup(1, threads);
    ChannelFuture connected = new Bootstrap().group(group)
        .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new RedisEncoder(), new RedisDecoder(MAX_LINE_BYTES, FixedRedisMessagePool.INSTANCE, true),
                new RedisBulkStringAggregator(), new ReplyReader());
          }
        })
        .connect(host, port).awaitUninterruptibly();
    if (!connected.isSuccess()) {
      shutdown();
      throw new RespException.NotConnected(host, port, connected.cause());
    }
    this.channel = connected.channel();
  }

  /**
   * Connect and authenticate.
   *
   * @param host host name or address
   * @param port RESP port
   * @param user the AUTH user; empty for {@code default}
   * @param password the AUTH password
   * @param timeout longest wait for the connection, and for each reply (the handshake's and every command's)
   * @return the connection; close it
   * @throws RespException.NotConnected if the host does not resolve, the connection is refused, times out or closes,
   *     or the server refuses HELLO/AUTH (the cause is then its {@link RespException.ErrorReply}, e.g.
   *     {@code WRONGPASS ...})
   */
  static RespConnection open(String host, int port, String user, String password, Duration timeout) {
    RespConnection connection = new RespConnection(host, port, timeout);
    try {
      try {
        connection.send("Connection initialization", "HELLO", "3", "AUTH", user.isEmpty() ? "default" : user, password);
      } catch (RespException.ErrorReply e) {
        String text = e.getMessage();
        if (!text.startsWith("NOPROTO") && !(text.startsWith("ERR") && text.toLowerCase(Locale.ROOT).contains("unknown"))) {
          throw e;
        }
        if (user.isEmpty()) {
          connection.send("Connection initialization", "AUTH", password);
        } else {
          connection.send("Connection initialization", "AUTH", user, password);
        }
      }
      return connection;
    } catch (RespException e) {
      connection.close();
      throw new RespException.NotConnected(host, port, e);
    }
  }

  /**
   * Send a command and wait for its reply.
   *
   * @param args the command name and its arguments, each sent as a UTF-8 bulk string
   * @return the reply, as in the class comment
   * @throws RespException.ErrorReply if the server answers with an error (its text as sent)
   * @throws RespException if no reply comes within the timeout (the connection is then closed), the connection
   *     closed, or the reply is not RESP
   */
  Object command(String... args) {
    return send("Command", args);
  }

  private Object send(String what, String... args) {
    List<RedisMessage> request = new ArrayList<>(args.length);
    for (String arg : args) {
      request.add(new FullBulkStringRedisMessage(Unpooled.copiedBuffer(arg, StandardCharsets.UTF_8)));
    }
    channel.writeAndFlush(new ArrayRedisMessage(request));
    Object reply;
    try {
      reply = replies.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RespException(what + " interrupted", e);
    }
    if (reply == null) {
      channel.close();
      throw new RespException(what + " timed out after " + text(timeout));
    }
    if (reply == CLOSED) {
      replies.add(CLOSED);
      throw new RespException("Connection closed prematurely");
    }
    if (reply instanceof Failure failure) {
      throw new RespException(failure.cause().getMessage(), failure.cause());
    }
    if (reply instanceof RespException.ErrorReply error) {
      throw new RespException.ErrorReply(error.getMessage());
    }
    return reply == NULL ? null : reply;
  }

  /** A timeout in words, as errors give it: {@code 10 second(s)}, {@code 500 millisecond(s)}. */
  private static String text(Duration timeout) {
    return timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + " second(s)" : timeout.toMillis() + " millisecond(s)";
  }

  /** Close the connection and stop its thread; waits at most about 2 s. */
  @Override
  public void close() {
    channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    shutdown();
  }

  private void shutdown() {
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
  }

  /** An exception of the pipeline (a reply that is not RESP), in {@link #replies}. */
  private record Failure(Throwable cause) {}

  /** An array or map being read: its elements so far, and how many it has (a map: twice its pairs). */
  private record Open(List<Object> elements, long size) {}

  /** Assembles the decoder's messages (array headers, then their elements) into whole replies. */
  private final class ReplyReader extends SimpleChannelInboundHandler<RedisMessage> {
    /** Arrays and maps being filled, innermost first. */
    private final Deque<Open> open = new ArrayDeque<>();

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, RedisMessage msg) {
      if (msg instanceof ArrayHeaderRedisMessage header) {
        if (header.isNull() || header.length() == 0) {
          add(header.isNull() ? null : new ArrayList<>());
        } else {
          start(header.length());
        }
      } else if (msg instanceof InlineCommandRedisMessage line && line.content().equals("_")) {
        add(null);
      } else if (msg instanceof InlineCommandRedisMessage line && line.content().matches("%[0-9]{1,9}")) {
        long pairs = Long.parseLong(line.content().substring(1));
        if (pairs == 0) {
          add(new ArrayList<>());
        } else {
          start(2 * pairs);
        }
      } else if (msg instanceof FullBulkStringRedisMessage bulk) {
        add(bulk.isNull() ? null : bulk.content().toString(StandardCharsets.UTF_8));
      } else if (msg instanceof SimpleStringRedisMessage simple) {
        add(simple.content());
      } else if (msg instanceof IntegerRedisMessage integer) {
        add(integer.value());
      } else if (msg instanceof ErrorRedisMessage error) {
        add(new RespException.ErrorReply(error.content()));
      } else {
        String text = msg instanceof InlineCommandRedisMessage line ? line.content() : msg.toString();
        throw new RespException("not a RESP reply: '" + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + "'");
      }
    }

    private void start(long size) {
      open.push(new Open(new ArrayList<>((int) Math.min(size, 1024)), size));
    }

    private void add(Object value) {
      Object done = value;
      while (!open.isEmpty()) {
        Open top = open.peek();
        top.elements().add(done);
        if (top.elements().size() < top.size()) {
          return;
        }
        open.pop();
        done = top.elements();
      }
      replies.add(done == null ? NULL : done);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      replies.add(new Failure(cause));
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      replies.add(CLOSED);
    }
  }
}
