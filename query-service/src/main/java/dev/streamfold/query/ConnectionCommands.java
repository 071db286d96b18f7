package dev.streamfold.query;

import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Commands about the connection itself: PING, ECHO, HELLO, AUTH, CLIENT, SELECT, QUIT, RESET.
 *
 * <p>With a {@link RespAuthenticator}, replies and errors follow Redis 7 with {@code requirepass}: the
 * password is an API token and selects the connection's tenant ({@code AUTH <token>},
 * {@code AUTH <user> <token>}, {@code HELLO 3 AUTH <user> <token>}); a wrong pair gets {@code WRONGPASS}
 * and leaves the connection as it was; RESET forgets the tenant. Without one (embedding only), they follow
 * Redis 7 with no password configured (the default user accepts any password).
 */
final class ConnectionCommands {
  private static final List<String> FAST = List.of("fast");
  private static final String NO_PASSWORD = "AUTH <password> called without any password configured for "
      + "the default user. Are you sure your configuration is correct?";
  private static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";

  private final RespAuthenticator authenticator;

  /**
   * Create the connection commands.
   *
   * @param authenticator maps AUTH credentials to tenants; null when no AUTH is required
   */
  ConnectionCommands(RespAuthenticator authenticator) {
    this.authenticator = authenticator;
  }

  /** Return the commands. */
  List<Command> commands() {
    return List.of(
        Command.of("ping", -1, FAST, this::ping),
        Command.of("echo", 2, FAST, (s, r) -> Replies.bulk(r.args().get(1))),
        Command.of("hello", -1, FAST, this::hello),
        Command.of("auth", -2, FAST, this::auth),
        Command.of("select", 2, FAST, this::select),
        Command.of("quit", -1, FAST, (s, r) -> {
          s.closeAfterReply();
          return Replies.ok();
        }),
        Command.of("reset", 1, FAST, (s, r) -> {
          s.reset();
          if (authenticator != null) {
            s.tenant(null);
          }
          return Replies.simple("RESET");
        }),
        Command.container("client", -2, null, List.of(
            Command.of("client|setname", 3, FAST, this::clientSetName),
            Command.of("client|getname", 2, FAST, (s, r) -> s.replies().bulkOrNil(s.clientName())),
            Command.of("client|id", 2, FAST, (s, r) -> Replies.integer(s.id())),
            Command.of("client|setinfo", 4, FAST, this::clientSetInfo),
            Command.of("client|info", 2, List.of(), this::clientInfo),
            Command.of("client|help", 2, List.of(), (s, r) -> help("CLIENT",
                "GETNAME", "    Return the name of the current connection.",
                "ID", "    Return the ID of the current connection.",
                "INFO", "    Return information about the current client connection.",
                "SETINFO <option> <value>", "    Set client meta attr. Options are:",
                "    * LIB-NAME: the client lib name.", "    * LIB-VER: the client lib version.",
                "SETNAME <name>", "    Assign the name <name> to the current connection.")))));
  }

  private RedisMessage ping(Session session, Request request) {
    if (request.size() > 2) {
      throw RespException.arity("ping");
    }
    return request.size() == 2 ? Replies.bulk(request.args().get(1)) : Replies.simple("PONG");
  }

  private RedisMessage hello(Session session, Request request) {
    int protocol = session.protocol();
    if (request.size() >= 2) {
      long version = request.integer(1, RespException.err("Protocol version is not an integer or out of range"));
      if (version < 2 || version > 3) {
        throw new RespException("NOPROTO unsupported protocol version");
      }
      protocol = (int) version;
    }
    String user = null;
    String password = null;
    String name = null;
    for (int i = 2; i < request.size(); i++) {
      int more = request.size() - 1 - i;
      String option = request.lower(i);
      if (option.equals("auth") && more >= 2) {
        user = request.string(i + 1);
        password = request.string(i + 2);
        i += 2;
      } else if (option.equals("setname") && more >= 1) {
        name = checkClientName(request.args().get(i + 1));
        i++;
      } else {
        throw RespException.err("Syntax error in HELLO option '" + ErrorMapper.cString(request.string(i), 128) + "'");
      }
    }
    if (user != null) {
      authenticate(session, user, password);
    } else if (authenticator != null && session.tenant() == null) {
      // Redis with requirepass: no server map (nor protocol switch) for a connection that has not authenticated
      throw new RespException("NOAUTH HELLO must be called with the client already authenticated, otherwise the"
          + " HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP"
          + " protocol version at the same time");
    }
    if (name != null) {
      session.clientName(name);
    }
    session.protocol(protocol);
    Replies replies = session.replies();
    return replies.map(List.of(
        Replies.bulk("server"), Replies.bulk(ServerState.SERVER_NAME),
        Replies.bulk("version"), Replies.bulk(ServerState.REDIS_COMPATIBLE_VERSION),
        Replies.bulk("proto"), Replies.integer(protocol),
        Replies.bulk("id"), Replies.integer(session.id()),
        Replies.bulk("mode"), Replies.bulk("standalone"),
        Replies.bulk("role"), Replies.bulk("master"),
        Replies.bulk("modules"), Replies.array(List.of())));
  }

  private RedisMessage auth(Session session, Request request) {
    if (request.size() > 3) {
      throw RespException.syntax();
    }
    if (request.size() == 2) {
      if (authenticator == null) {
        throw RespException.err(NO_PASSWORD);
      }
      authenticate(session, "default", request.string(1));
    } else {
      authenticate(session, request.string(1), request.string(2));
    }
    return Replies.ok();
  }

  /**
   * Check credentials and select the tenant they map to. Without an authenticator, accept the default user
   * with any password, as Redis does when no password is configured.
   *
   * @throws RespException WRONGPASS for a wrong user/token pair (the session keeps its tenant)
   */
  private void authenticate(Session session, String user, String password) {
    if (authenticator == null) {
      if (!user.equals("default")) {
        throw new RespException(WRONGPASS);
      }
      return;
    }
    String tenant = authenticator.tenant(user, password).orElseThrow(() -> new RespException(WRONGPASS));
    session.authenticated(tenant, user, password);
  }

  private RedisMessage select(Session session, Request request) {
    long db = request.integer(1, RespException.notAnInteger());
    if (db != 0) {
      throw RespException.err("DB index is out of range");
    }
    return Replies.ok();
  }

  private RedisMessage clientSetName(Session session, Request request) {
    session.clientName(checkClientName(request.args().get(2)));
    return Replies.ok();
  }

  private RedisMessage clientSetInfo(Session session, Request request) {
    String option = request.lower(2);
    if (!option.equals("lib-name") && !option.equals("lib-ver")) {
      throw RespException.err("Unrecognized option '" + ErrorMapper.cString(request.string(2), 128) + "'");
    }
    if (!isPrintable(request.args().get(3))) {
      throw RespException.err(option + " cannot contain spaces, newlines or special characters.");
    }
    if (option.equals("lib-name")) {
      session.libName(request.string(3));
    } else {
      session.libVersion(request.string(3));
    }
    return Replies.ok();
  }

  private RedisMessage clientInfo(Session session, Request request) {
    String line = "id=" + session.id() + " addr=" + session.remoteAddress() + " laddr=" + session.localAddress()
        + " name=" + nullToEmpty(session.clientName()) + " db=0 cmd=client|info user="
        + (session.authUser() == null ? "default" : session.authUser())
        + " lib-name=" + nullToEmpty(session.libName()) + " lib-ver=" + nullToEmpty(session.libVersion())
        + " resp=" + session.protocol() + " tenant=" + session.tenant() + "\n";
    return session.replies().verbatim(line);
  }

  /**
   * Check a client name as Redis does: printable ASCII without spaces.
   *
   * @param name the name as sent
   * @return the name as text
   * @throws RespException if it contains spaces, newlines or other special characters
   */
  static String checkClientName(byte[] name) {
    if (!isPrintable(name)) {
      throw RespException.err("Client names cannot contain spaces, newlines or special characters.");
    }
    return new String(name, StandardCharsets.US_ASCII);
  }

  private static boolean isPrintable(byte[] bytes) {
    for (byte b : bytes) {
      if (b < '!' || b > '~') {
        return false;
      }
    }
    return true;
  }

  private static String nullToEmpty(String text) {
    return text == null ? "" : text;
  }

  /**
   * Return a HELP reply like Redis's: a title line, the given lines, then HELP itself.
   *
   * @param command the container name, upper-case
   * @param lines subcommand and description lines
   * @return an array of status replies
   */
  static RedisMessage help(String command, String... lines) {
    List<RedisMessage> out = new ArrayList<>();
    out.add(Replies.simple(command + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
    for (String line : lines) {
      out.add(Replies.simple(line));
    }
    out.add(Replies.simple("HELP"));
    out.add(Replies.simple("    Prints this help."));
    return Replies.array(out);
  }
}
