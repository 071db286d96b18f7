package dev.streamfold.query;

import dev.streamfold.views.ViewReader;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.redis.FixedRedisMessagePool;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.UnorderedThreadPoolEventExecutor;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A read-only Redis-protocol (RESP2, and RESP3 after {@code HELLO 3}) server over materialized views.
 * Clients read rows as {@code <view>:<rowKey>} with hash commands, GET/MGET (rows as JSON), EXISTS,
 * TYPE, SCAN and DBSIZE; write commands get a READONLY error.
 *
 * <p>Tenants: a server created with a {@link RespAuthenticator} (as the Streamfold server is) works like
 * Redis with {@code requirepass}: a connection runs only PING, HELLO, AUTH and QUIT until
 * {@code AUTH <token>}, {@code AUTH <user> <token>} or {@code HELLO 3 AUTH <user> <token>} selects its tenant
 * ({@code -NOAUTH Authentication required.} otherwise, {@code -WRONGPASS} for a bad token), and then sees only
 * that tenant's views: SCAN, DBSIZE and VIEW.LIST list them alone, and another tenant's view names read as
 * missing. A server created without one (for embedding and tests only) serves
 * {@link RespServerOptions#defaultTenant()} to every connection without AUTH.
 *
 * <p>Netty's Redis codec decodes requests and encodes RESP2 replies; {@link Resp3Encoder} encodes the
 * RESP3 types. View reads (GET, MGET, HGET, HGETALL, HMGET, HEXISTS, HLEN, HKEYS, HVALS, EXISTS, TYPE) run
 * on the connection's event loop without blocking: each sends its one Redis script asynchronously, so the
 * pipelined reads of a connection reach Redis without waiting for each other's replies. The other commands
 * run on a pool of {@link RespServerOptions#commandThreads()} threads, one at a time per connection. Replies
 * always leave in request order; a connection has at most 1,024
 * requests pending before the server stops reading from it until half of them have replied.
 * The event loops use Netty's native epoll transport on Linux and Java NIO elsewhere ({@link #nativeEpoll}).
 *
 * <pre>{@code
 * try (ViewStore views = ViewStore.connect("redis://127.0.0.1:6379");
 *      RespServer server = new RespServer(views, RespServerOptions.defaults().withPort(6380))) {
 *   server.start();
 *   // redis-cli -p 6380 HGETALL delays:ATL
 * }
 * }</pre>
 */
public final class RespServer implements AutoCloseable {
  /** Longest inline command line, in bytes (Redis: 64 KiB). */
  static final int MAX_INLINE_BYTES = 64 * 1024;

  private final RespServerOptions options;
  private final ServerState state;
  private final CommandDispatcher dispatcher;
  private final Resp3Encoder resp3Encoder = new Resp3Encoder();
  private EventLoopGroup bossGroup;
  private EventLoopGroup workerGroup;
  private final ViewReader reader;
  /** The reader's connections on {@link #workerGroup} ({@link ViewReader#readOnEventLoops}); null when stopped. */
  private AutoCloseable readsOnLoops;
  private EventExecutorGroup commandGroup;
  private ChannelGroup channels;
  private Channel serverChannel;
  private boolean started;

  /**
   * Create a server without authentication, serving {@link RespServerOptions#defaultTenant()} to every
   * connection (for embedding and tests; the Streamfold server requires AUTH); nothing is bound until
   * {@link #start()}.
   *
   * @param reader where rows are read; the caller keeps ownership (closing the server does not close it)
   * @param options bind address, port, tenant and thread counts
   * @throws NullPointerException if an argument is null
   */
  public RespServer(ViewReader reader, RespServerOptions options) {
    this(reader, options, ViewSources.UNKNOWN, Clock.systemUTC());
  }

  /**
   * Create a server without authentication, serving {@link RespServerOptions#defaultTenant()} to every
   * connection (for embedding and tests), that also knows how many events each view's source stream holds
   * (for the lag that {@code VIEW.INFO} reports); nothing is bound until {@link #start()}.
   *
   * @param reader where rows are read; the caller keeps ownership
   * @param options bind address, port, tenant and thread counts
   * @param sources what the server knows of the views' source streams (events held, the stream of a message ID)
   * @throws NullPointerException if an argument is null
   */
  public RespServer(ViewReader reader, RespServerOptions options, ViewSources sources) {
    this(reader, options, sources, Clock.systemUTC());
  }

  /**
   * Create a server that requires AUTH: each connection reads the views of the tenant its token maps to;
   * nothing is bound until {@link #start()}.
   *
   * @param reader where rows are read; the caller keeps ownership
   * @param options bind address, port and thread counts ({@code defaultTenant} is not used)
   * @param sources what the server knows of the views' source streams (events held, the stream of a message ID)
   * @param authenticator maps AUTH credentials to tenants
   * @throws NullPointerException if an argument is null
   */
  public RespServer(ViewReader reader, RespServerOptions options, ViewSources sources,
      RespAuthenticator authenticator) {
    this(reader, options, sources, Clock.systemUTC(), Objects.requireNonNull(authenticator, "authenticator"));
  }

  RespServer(ViewReader reader, RespServerOptions options, Clock clock) {
    this(reader, options, ViewSources.UNKNOWN, clock);
  }

  RespServer(ViewReader reader, RespServerOptions options, ViewSources sources, Clock clock) {
    this(reader, options, sources, clock, null);
  }

  RespServer(ViewReader reader, RespServerOptions options, ViewSources sources, Clock clock,
      RespAuthenticator authenticator) {
    this.reader = Objects.requireNonNull(reader, "reader");
    this.options = Objects.requireNonNull(options, "options");
    this.state = new ServerState(clock, options.defaultTenant(), authenticator);
    this.dispatcher = new CommandDispatcher(reader, state, Objects.requireNonNull(sources, "sources"), clock);
  }

  /**
   * Tell a listener the outcome and latency of every command from now on (metrics).
   *
   * @param listener the listener; {@link RespListener#NONE} to stop
   * @return this server
   * @throws NullPointerException if {@code listener} is null
   */
  public RespServer listener(RespListener listener) {
    dispatcher.listener(listener);
    return this;
  }

  /**
   * Whether the event loops use Netty's native epoll transport: on Linux (x86-64 and aarch64, whose native
   * libraries the query-service ships) unless {@code -Dio.netty.transport.noNative=true}; Java NIO elsewhere.
   * Lettuce makes the same choice for its connections (its {@code EpollProvider}), so the reader's
   * connections can share these loops ({@link ViewReader#readOnEventLoops}). Measured in docs/performance.md
   * ("Session 12"): less CPU per request without pipelining than NIO, the same with it.
   */
  static boolean nativeEpoll() {
    return Epoll.isAvailable();
  }

  /**
   * Whether the reader took this server's event loops for its reads ({@link ViewReader#readOnEventLoops} did not
   * fail); false when stopped.
   */
  synchronized boolean readsOnEventLoops() {
    return readsOnLoops != null;
  }

  /**
   * Bind the port and start serving.
   *
   * @return this server
   * @throws IllegalStateException if {@code start()} was called before (a server starts once), or the
   *     address cannot be bound
   *     (the message names host and port, e.g. because the port is in use)
   */
  public synchronized RespServer start() {
    if (started) {
      throw new IllegalStateException("RESP server for " + options.host() + ":" + options.port()
          + " was already started; create a new one");
    }
    started = true;
    boolean epoll = nativeEpoll();
    bossGroup = epoll ? new EpollEventLoopGroup(1, new DefaultThreadFactory("resp-accept"))
        : new NioEventLoopGroup(1, new DefaultThreadFactory("resp-accept"));
    workerGroup = epoll ? new EpollEventLoopGroup(options.workerThreads(), new DefaultThreadFactory("resp-io"))
        : new NioEventLoopGroup(options.workerThreads(), new DefaultThreadFactory("resp-io"));
    org.slf4j.LoggerFactory.getLogger(RespServer.class).debug("RESP server transport: {}", epoll ? "epoll" : "nio");
    // a row read is then sent, answered and completed on the loop of the client connection that asked for it
    try {
      readsOnLoops = reader.readOnEventLoops(workerGroup);
    } catch (RuntimeException e) {
      // reads then go through the reader's own connections (one more thread hand-over per read)
      org.slf4j.LoggerFactory.getLogger(RespServer.class).warn(
          "row reads stay on the view reader's own connections: {}", e.toString());
    }
    commandGroup = new UnorderedThreadPoolEventExecutor(options.commandThreads(),
        new DefaultThreadFactory("resp-command"));
    channels = new DefaultChannelGroup("resp-clients", GlobalEventExecutor.INSTANCE);
    ServerBootstrap bootstrap = new ServerBootstrap()
        .group(bossGroup, workerGroup)
        .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            channels.add(ch);
            ch.pipeline()
                .addLast("decoder", new RedisDecoder(MAX_INLINE_BYTES, FixedRedisMessagePool.INSTANCE, true))
                .addLast("requests", new RequestAssembler())
                .addLast("encoder", new RedisEncoder())
                .addLast("resp3-encoder", resp3Encoder)
                .addLast("commands", new CommandHandler(dispatcher, state, commandGroup));
          }
        });
    ChannelFuture bound = bootstrap.bind(options.host(), options.port()).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      Throwable cause = bound.cause();
      String reason = cause instanceof BindException ? "address in use or not available (" + cause.getMessage() + ")"
          : String.valueOf(cause);
      shutdown();
      throw new IllegalStateException("cannot bind RESP server to " + options.host() + ":" + options.port()
          + ": " + reason, cause);
    }
    serverChannel = bound.channel();
    state.port(((InetSocketAddress) serverChannel.localAddress()).getPort());
    return this;
  }

  /**
   * Return the bound port.
   *
   * @return the TCP port, the chosen one when the options asked for port 0
   * @throws IllegalStateException if the server is not started
   */
  public int port() {
    int port = state.port();
    if (port == 0) {
      throw new IllegalStateException("RESP server is not started");
    }
    return port;
  }

  /** Stop accepting, close all connections and stop the threads; waits at most a few seconds. */
  @Override
  public synchronized void close() {
    if (serverChannel != null) {
      serverChannel.close().syncUninterruptibly();
      serverChannel = null;
    }
    if (channels != null) {
      channels.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    shutdown();
  }

  private void shutdown() {
    if (readsOnLoops != null) {
      try {
        readsOnLoops.close();
      } catch (Exception e) {
        // closing Redis connections: nothing a caller could do about it
      }
      readsOnLoops = null;
    }
    // Commands first: their last tasks (replies, channelInactive) still need the I/O event loops.
    for (EventExecutorGroup group : new EventExecutorGroup[] {commandGroup, workerGroup, bossGroup}) {
      if (group != null) {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
      }
    }
    bossGroup = null;
    workerGroup = null;
    commandGroup = null;
  }
}
