package dev.streamfold.query;

import dev.streamfold.views.ViewReader;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs requests against the command table; every failure becomes an error reply. View reads start without
 * blocking ({@link #executeAsync}); other commands run on a command thread ({@link #execute}). Thread-safe.
 */
final class CommandDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(CommandDispatcher.class);

  /** Commands a connection may run before AUTH when the server requires it (like Redis with requirepass). */
  static final java.util.Set<String> BEFORE_AUTH = java.util.Set.of("ping", "hello", "auth", "quit");
  /** Redis's reply to a command before AUTH. */
  static final String NOAUTH = "NOAUTH Authentication required.";

  private final CommandTable table = new CommandTable();
  private final RespAuthenticator authenticator;
  private final ViewReader reader;
  /** Per event-loop thread: a flush of held-back reads is already queued on it. */
  private final io.netty.util.concurrent.FastThreadLocal<boolean[]> flushQueued =
      new io.netty.util.concurrent.FastThreadLocal<>() {
        @Override
        protected boolean[] initialValue() {
          return new boolean[1];
        }
      };
  private volatile RespListener listener = RespListener.NONE;
  /** Upper-case metric names of the table's commands by lower-case name, filled as they are first used. */
  private final java.util.Map<String, String> metricNames = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Create a dispatcher with all supported commands.
   *
   * @param reader where rows are read
   * @param server server identity and counters
   */
  CommandDispatcher(ViewReader reader, ServerState server) {
    this(reader, server, ViewSources.UNKNOWN, java.time.Clock.systemUTC());
  }

  /**
   * Create a dispatcher with all supported commands.
   *
   * @param reader where rows are read
   * @param server server identity and counters
   * @param sources what the server knows of the views' source streams (VIEW.INFO's lag, VIEW.WAIT on views over
   *     several streams)
   * @param clock time source of VIEW.INFO and VIEW.WAIT
   */
  CommandDispatcher(ViewReader reader, ServerState server, ViewSources sources, java.time.Clock clock) {
    this.authenticator = server.authenticator();
    this.reader = reader;
    ViewCommands views = new ViewCommands(reader);
    table.addAll(new ConnectionCommands(server.authenticator()).commands());
    table.addAll(views.commands());
    table.addAll(new ViewInfoCommands(reader, sources, clock).commands());
    table.addAll(new IntrospectionCommands(table, server, views::keyCount).commands());
  }

  /** Set who is told of each command's outcome (metrics). */
  void listener(RespListener listener) {
    this.listener = java.util.Objects.requireNonNull(listener, "listener");
  }

  CommandTable table() {
    return table;
  }

  /**
   * Run one request, blocking until its reply is ready.
   *
   * @param session the connection
   * @param request the request
   * @return the reply, an error reply when the command failed
   */
  RedisMessage execute(Session session, Request request) {
    long startNanos = System.nanoTime();
    RedisMessage reply = run(session, request);
    done(request, startNanos, reply);
    return reply;
  }

  /**
   * Tell whether a request must run on a command thread ({@link #execute}): true unless its command reads
   * views without blocking, or the request fails before any command runs (unknown command, wrong arity,
   * a write).
   *
   * @param request the request
   * @return true when {@link #executeAsync} would block or could change the connection's state
   */
  boolean blocking(Request request) {
    try {
      return table.resolve(request).async() == null;
    } catch (RuntimeException refused) {
      return false;
    }
  }

  /**
   * Start one request without blocking: the name is resolved, the credentials re-checked and the view read
   * sent at once; the session is not read again after this returns. Meant for requests where
   * {@link #blocking} is false (a blocking command would run in the calling thread).
   *
   * @param session the connection
   * @param request the request
   * @return the reply, an error reply when the command failed; the stage never completes exceptionally and
   *     may complete on a Redis client thread
   */
  CompletionStage<RedisMessage> executeAsync(Session session, Request request) {
    long startNanos = System.nanoTime();
    CompletionStage<RedisMessage> started;
    try {
      Command command = admit(session, request);
      started = command.async() != null ? command.async().run(session, request)
          : CompletableFuture.completedFuture(command.action().run(session, request));
    } catch (RuntimeException failure) {
      started = CompletableFuture.failedFuture(failure);
    }
    long clientId = session.id();
    return started.handle((reply, error) -> {
      RedisMessage message = error == null ? reply : errorReply(request, clientId, unwrap(error));
      done(request, startNanos, message);
      return message;
    });
  }

  /**
   * Make sure the reads started by {@link #executeAsync} on this event loop reach Redis: queue one
   * {@link ViewReader#flushReads} on the loop, after the I/O of its current turn, unless one is queued
   * already. The reads of every connection served by the loop in one turn then go out in one write.
   *
   * @param loop the calling thread's event loop
   */
  void flushReadsSoon(io.netty.util.concurrent.EventExecutor loop) {
    boolean[] queued = flushQueued.get();
    if (!queued[0]) {
      queued[0] = true;
      loop.execute(() -> {
        queued[0] = false;
        reader.flushReads();
      });
    }
  }

  private void done(Request request, long startNanos, RedisMessage reply) {
    String errorKind = reply instanceof io.netty.handler.codec.redis.ErrorRedisMessage error
        ? errorKind(error.content()) : null;
    listener.commandDone(metricName(request.name()), System.nanoTime() - startNanos, errorKind);
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
  }

  private static RedisMessage errorReply(Request request, long clientId, Throwable error) {
    if (!(error instanceof RespException)) {
      LOG.warn("command {} of client {} failed", request.name(), clientId, error);
    }
    return ErrorMapper.toReply(error);
  }

  /**
   * The command's upper-case name when the table serves it, else {@link RespListener#OTHER}. Names are kept
   * once upper-cased (at most one per command of the table).
   */
  private String metricName(String lowerName) {
    String known = metricNames.get(lowerName);
    if (known != null) {
      return known;
    }
    if (lowerName.indexOf('|') < 0 && table.find(lowerName) != null) {
      String upper = lowerName.toUpperCase(java.util.Locale.ROOT);
      metricNames.put(lowerName, upper);
      return upper;
    }
    return RespListener.OTHER;
  }

  /** The first word of an error line if it is an upper-case code of at most 16 letters, else ERR. */
  static String errorKind(String line) {
    int space = line.indexOf(' ');
    String word = space < 0 ? line : line.substring(0, space);
    return word.length() <= 16 && !word.isEmpty() && word.chars().allMatch(c -> c >= 'A' && c <= 'Z') ? word : "ERR";
  }

  private RedisMessage run(Session session, Request request) {
    try {
      return admit(session, request).action().run(session, request);
    } catch (RuntimeException failure) {
      return errorReply(request, session.id(), failure);
    }
  }

  /**
   * Resolve the command and check that the connection may run it: its credentials still hold (a token
   * revoked since AUTH logs the connection out) and it has authenticated unless the command runs before AUTH.
   *
   * @throws RespException for an unknown or refused command, a wrong arity, or NOAUTH
   */
  private Command admit(Session session, Request request) {
    Command command = table.resolve(request);
    if (authenticator != null && session.authToken() != null) {
      long generation = authenticator.generation(); // read before the check: a change meanwhile re-checks
      if (generation == RespAuthenticator.UNVERSIONED || generation != session.authGeneration()) {
        if (authenticator.tenant(session.authUser(), session.authToken()).isEmpty()) {
          session.tenant(null); // its token was revoked since AUTH
        } else {
          session.authVerifiedAt(generation);
        }
      }
    }
    if (session.tenant() == null && !BEFORE_AUTH.contains(request.name())) {
      throw new RespException(NOAUTH);
    }
    return command;
  }
}
