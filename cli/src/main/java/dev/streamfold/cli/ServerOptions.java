package dev.streamfold.cli;

import dev.streamfold.deploy.local.stack.LocalStack;
import dev.streamfold.deploy.local.stack.StackState;
import dev.streamfold.deploy.local.stack.StackStatus;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where the Streamfold server is ({@code --server HOST:PORT}, else the local stack's) and the credentials:
 * {@code --token}, else {@code $STREAMFOLD_TOKEN}, else the local stack's admin token
 * ({@code <data dir>/server/admin-token}). The admin token acts for the {@code --tenant} named; a tenant token
 * only for its own tenant.
 */
final class ServerOptions {
  @Mixin
  DataDirOption dataDir = new DataDirOption();

  @Option(names = "--server", paramLabel = "HOST:PORT",
      description = "gRPC address of the Streamfold server (default: the local stack's, from <data dir>/stack.json).")
  String server;

  @Option(names = "--tenant", paramLabel = "NAME", defaultValue = "${env:STREAMFOLD_TENANT:-demo}",
      description = "Tenant (default: $STREAMFOLD_TENANT, else demo).")
  String tenant;

  @Option(names = "--token", paramLabel = "TOKEN",
      description = "API token (default: $STREAMFOLD_TOKEN, else the local stack's admin token from"
          + " <data dir>/server/admin-token). Prefer the environment variable: options show in `ps`.")
  String token;

  /**
   * Return the API token.
   *
   * @return {@code --token}, else {@code $STREAMFOLD_TOKEN}, else the local stack's admin token; null with
   *     {@code --server} and no token (the server then answers UNAUTHENTICATED, naming the option)
   * @throws CliException if none is given and the local stack has no admin token
   */
  String token() {
    return token(System.getenv("STREAMFOLD_TOKEN"));
  }

  /**
   * Return the API token given {@code $STREAMFOLD_TOKEN}'s value. A token given empty is refused: an unset
   * variable in a script ({@code --token "$TOK"}) must not fall back to the local admin token.
   *
   * @param env the variable's value, null when unset
   * @throws CliException if {@code --token} or a set {@code $STREAMFOLD_TOKEN} is empty, or holds a character that
   *     is not printable ASCII
   */
  String token(String env) {
    if (token != null) {
      if (token.isBlank()) {
        throw new CliException("--token is empty: give a token, or leave the option out (then $STREAMFOLD_TOKEN,"
            + " else the local stack's admin token is used)");
      }
      return printable(token.trim(), "--token");
    }
    if (env != null) {
      if (env.isBlank()) {
        throw new CliException("STREAMFOLD_TOKEN is set but empty: set it to a token, or unset it (then the local"
            + " stack's admin token is used)");
      }
      return printable(env.trim(), "STREAMFOLD_TOKEN");
    }
    if (server != null) {
      return null;
    }
    try {
      return dataDir.stack().adminToken();
    } catch (RuntimeException e) {
      throw new CliException("no API token: pass --token TOKEN or set STREAMFOLD_TOKEN (" + e.getMessage() + ")");
    }
  }

  /**
   * Refuse a token that is not printable ASCII: an API token never is, and gRPC cannot send a line break or a
   * non-ASCII character in a header (it logged a warning and sent a mangled token).
   *
   * @param token the token, trimmed
   * @param source where it came from, for the message
   * @return the token
   * @throws CliException if it holds a character outside U+0021..U+007E (the message names the character and its
   *     place, never the token)
   */
  static String printable(String token, String source) {
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c < 0x21 || c > 0x7E) {
        throw new CliException(source + " holds " + String.format("U+%04X", (int) c) + " at character " + (i + 1)
            + ": an API token is one word of printable ASCII (as `tenant create` printed it)");
      }
    }
    return token;
  }

  /**
   * Check a command's {@code --timeout} before it does anything: 0 or less ended the wait at once (a replay said
   * "it goes on" when its call may never have reached the server).
   *
   * @param option the option's name, for the message
   * @param seconds the option's value, seconds
   * @throws CliException if it is less than 1
   */
  static void checkTimeout(String option, long seconds) {
    if (seconds < 1) {
      throw new CliException(option + " must be at least 1 (seconds), got " + seconds);
    }
  }

  /**
   * Open a gRPC client to the server with the token.
   *
   * @return the client; close it
   * @throws CliException if the server or the token cannot be found
   */
  StreamfoldClient connect() {
    return StreamfoldClient.connect(grpcTarget(), token());
  }

  /**
   * Connect to the query-service and AUTH as {@code --tenant} with the token.
   *
   * @param resp the {@code --resp HOST:PORT} option, or null for the local stack's
   * @return the reader; close it
   * @throws CliException if the address or the token cannot be found
   */
  RespViews respViews(String resp) {
    String[] address = respAddress(resp);
    String token = token();
    if (token == null) {
      throw new CliException("reading views needs a token: pass --token TOKEN or set STREAMFOLD_TOKEN");
    }
    return RespViews.connect(address[0], Integer.parseInt(address[1]), tenant, token);
  }

  /**
   * Return the gRPC target.
   *
   * @return {@code host:port}
   * @throws CliException if no --server is given and the local stack's server does not run
   */
  String grpcTarget() {
    if (server != null) {
      return checkAddress(server, "--server");
    }
    return "127.0.0.1:" + runningStack("--server HOST:PORT").grpcPort();
  }

  /**
   * Return the query-service's RESP address.
   *
   * @param resp the {@code --resp HOST:PORT} option, or null for the local stack's
   * @return {host, port}
   * @throws CliException if no --resp is given and the local stack's server does not run
   */
  String[] respAddress(String resp) {
    if (resp != null) {
      String address = checkAddress(resp, "--resp");
      int colon = address.lastIndexOf(':');
      return new String[] {address.substring(0, colon), address.substring(colon + 1)};
    }
    // reads over RESP go to the query-service, which --server (gRPC) does not name
    return new String[] {"127.0.0.1", Integer.toString(runningStack("--resp HOST:PORT, the query-service's RESP address").respPort())};
  }

  /** The local stack's state; else an error naming {@code option}, the way to reach a server elsewhere. */
  private StackState runningStack(String option) {
    LocalStack stack = dataDir.stack();
    StackStatus status = stack.status();
    if (status.state().isEmpty()) {
      throw new CliException("the local stack was never started in " + stack.dataDir()
          + ": start it with `streamfold local up` (or pass " + option + ")");
    }
    if (!status.processes().get(2).running()) {
      throw new CliException("the Streamfold server of the local stack in " + stack.dataDir()
          + " is not running: start it with `streamfold local up` (or pass " + option + ")");
    }
    return status.state().get();
  }

  static String checkAddress(String address, String option) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new CliException(option + " must be HOST:PORT, got '" + address + "'");
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      if (port < 1 || port > 65535) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      throw new CliException(option + " must be HOST:PORT with a port 1..65535, got '" + address + "'");
    }
    return address;
  }
}
