package dev.streamfold.query;

import dev.streamfold.views.ViewReader;
import io.netty.handler.codec.redis.RedisMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs requests against the command table; every failure becomes an error reply. Thread-safe. */
final class CommandDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(CommandDispatcher.class);

  /** Commands a connection may run before AUTH when the server requires it (like Redis with requirepass). */
  static final java.util.Set<String> BEFORE_AUTH = java.util.Set.of("ping", "hello", "auth", "quit");
  /** Redis's reply to a command before AUTH. */
  static final String NOAUTH = "NOAUTH Authentication required.";

  private final CommandTable table = new CommandTable();
  private final RespAuthenticator authenticator;
  private volatile RespListener listener = RespListener.NONE;

  /**
   * Create a dispatcher with all supported commands.
   *
   * @param reader where rows are read
   * @param server server identity and counters
   */
  CommandDispatcher(ViewReader reader, ServerState server) {
    this(reader, server, SourceEvents.UNKNOWN, java.time.Clock.systemUTC());
  }

  /**
   * Create a dispatcher with all supported commands.
   *
   * @param reader where rows are read
   * @param server server identity and counters
   * @param sourceEvents events in each view's source stream, for VIEW.INFO's lag
   * @param clock time source of VIEW.INFO and VIEW.WAIT
   */
  CommandDispatcher(ViewReader reader, ServerState server, SourceEvents sourceEvents, java.time.Clock clock) {
    this.authenticator = server.authenticator();
    ViewCommands views = new ViewCommands(reader);
    table.addAll(new ConnectionCommands(server.authenticator()).commands());
    table.addAll(views.commands());
    table.addAll(new ViewInfoCommands(reader, sourceEvents, clock).commands());
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
   * Run one request.
   *
   * @param session the connection
   * @param request the request
   * @return the reply, an error reply when the command failed
   */
  RedisMessage execute(Session session, Request request) {
    long startNanos = System.nanoTime();
    RedisMessage reply = run(session, request);
    String errorKind = reply instanceof io.netty.handler.codec.redis.ErrorRedisMessage error
        ? errorKind(error.content()) : null;
    listener.commandDone(metricName(request.name()), System.nanoTime() - startNanos, errorKind);
    return reply;
  }

  /** The command's upper-case name when the table serves it, else {@link RespListener#OTHER}. */
  private String metricName(String lowerName) {
    return lowerName.indexOf('|') < 0 && table.find(lowerName) != null
        ? lowerName.toUpperCase(java.util.Locale.ROOT) : RespListener.OTHER;
  }

  /** The first word of an error line if it is an upper-case code of at most 16 letters, else ERR. */
  static String errorKind(String line) {
    int space = line.indexOf(' ');
    String word = space < 0 ? line : line.substring(0, space);
    return word.length() <= 16 && !word.isEmpty() && word.chars().allMatch(c -> c >= 'A' && c <= 'Z') ? word : "ERR";
  }

  private RedisMessage run(Session session, Request request) {
    try {
      Command command = table.resolve(request);
      if (authenticator != null && session.authToken() != null
          && authenticator.tenant(session.authUser(), session.authToken()).isEmpty()) {
        session.tenant(null); // its token was revoked since AUTH
      }
      if (session.tenant() == null && !BEFORE_AUTH.contains(request.name())) {
        throw new RespException(NOAUTH);
      }
      return command.action().run(session, request);
    } catch (RespException expected) {
      return ErrorMapper.toReply(expected);
    } catch (RuntimeException failure) {
      LOG.warn("command {} of client {} failed", request.name(), session.id(), failure);
      return ErrorMapper.toReply(failure);
    }
  }
}
