package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RespConnection} against a scripted server on a local socket: the handshake lettuce sent, the reply types, and
 * every way a connection or a command fails.
 */
class RespConnectionTest {
  private static final String HELLO = "%2\r\n$6\r\nserver\r\n$10\r\nstreamfold\r\n$5\r\nproto\r\n:3\r\n";
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final List<List<String>> received = new CopyOnWriteArrayList<>();
  private final List<ServerSocket> listeners = new ArrayList<>();

  @AfterEach
  void stop() throws IOException {
    for (ServerSocket listener : listeners) {
      listener.close();
    }
  }

  /**
   * Serve one connection: every command is recorded in {@link #received} and answered with {@code replies}' raw RESP
   * for it; {@code null} answers nothing, {@code "CLOSE"} closes the connection.
   */
  private int serve(Function<List<String>, String> replies) throws IOException {
    ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    listeners.add(listener);
    Thread thread = new Thread(() -> {
      try (Socket socket = listener.accept()) {
        InputStream in = new BufferedInputStream(socket.getInputStream());
        OutputStream out = socket.getOutputStream();
        while (true) {
          List<String> command = readCommand(in);
          if (command == null) {
            return;
          }
          received.add(command);
          String reply = replies.apply(command);
          if ("CLOSE".equals(reply)) {
            return;
          }
          if (reply != null) {
            out.write(reply.getBytes(StandardCharsets.UTF_8));
            out.flush();
          }
        }
      } catch (IOException e) {
        // the test closed the listener
      }
    }, "scripted-resp-server");
    thread.setDaemon(true);
    thread.start();
    return listener.getLocalPort();
  }

  /** Read an array of bulk strings; null at the end of the stream. */
  private static List<String> readCommand(InputStream in) throws IOException {
    String header = line(in);
    if (header == null) {
      return null;
    }
    List<String> args = new ArrayList<>();
    for (int i = Integer.parseInt(header.substring(1)); i > 0; i--) {
      int length = Integer.parseInt(line(in).substring(1));
      args.add(new String(in.readNBytes(length), StandardCharsets.UTF_8));
      in.readNBytes(2);
    }
    return args;
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\r'; b = in.read()) {
      if (b < 0) {
        return null;
      }
      line.write(b);
    }
    in.read();
    return line.toString(StandardCharsets.UTF_8);
  }

  private static Function<List<String>, String> afterHello(Function<List<String>, String> replies) {
    return command -> command.get(0).equals("HELLO") ? HELLO : replies.apply(command);
  }

  @Test
  void authenticatesWithHello3ThenSendsArraysOfUtf8BulkStrings() throws IOException {
    int port = serve(afterHello(command -> "+OK\r\n"));
    try (RespConnection connection = RespConnection.open("127.0.0.1", port, "acme", "sf_tok", TIMEOUT)) {
      assertThat(connection.command("HGETALL", "delays:ü|x")).isEqualTo("OK");
    }
    assertThat(received).containsExactly(List.of("HELLO", "3", "AUTH", "acme", "sf_tok"), List.of("HGETALL", "delays:ü|x"));
    received.clear();
    // an empty user is the default user
    RespConnection.open("127.0.0.1", serve(afterHello(command -> "+OK\r\n")), "", "sf_tok", TIMEOUT).close();
    assertThat(received).containsExactly(List.of("HELLO", "3", "AUTH", "default", "sf_tok"));
  }

  @Test
  void readsEveryReplyTypeTheQueryServiceSends() throws IOException {
    int port = serve(afterHello(command -> switch (command.get(1)) {
      case "map" -> "%2\r\n$1\r\na\r\n*2\r\n$3\r\n1:2\r\n$0\r\n\r\n$1\r\nb\r\n_\r\n";
      case "nested" -> "*5\r\n:-7\r\n+PONG\r\n$-1\r\n*-1\r\n*3\r\n%0\r\n*0\r\n-ERR inner\r\n";
      default -> "$" + "ünï".getBytes(StandardCharsets.UTF_8).length + "\r\nünï\r\n";
    }));
    try (RespConnection connection = RespConnection.open("127.0.0.1", port, "acme", "sf_tok", TIMEOUT)) {
      assertThat(connection.command("X", "map")).isEqualTo(Arrays.asList("a", List.of("1:2", ""), "b", null));
      List<?> nested = (List<?>) connection.command("X", "nested");
      assertThat(nested.subList(0, 4)).isEqualTo(Arrays.asList(-7L, "PONG", null, null));
      List<?> inner = (List<?>) nested.get(4);
      assertThat(inner.subList(0, 2)).isEqualTo(List.of(List.of(), List.of()));
      assertThat(inner.get(2)).isInstanceOf(RespException.ErrorReply.class);
      assertThat(((RespException) inner.get(2)).getMessage()).isEqualTo("ERR inner");
      assertThat(connection.command("X", "bulk")).isEqualTo("ünï");
    }
  }

  @Test
  void anErrorReplyCarriesTheServersText() throws IOException {
    int port = serve(afterHello(command -> "-ERR no such view 'x' (VIEW.LIST lists the views and virtual states)\r\n"));
    try (RespConnection connection = RespConnection.open("127.0.0.1", port, "acme", "sf_tok", TIMEOUT)) {
      assertThatThrownBy(() -> connection.command("VIEW.INFO", "x")).isExactlyInstanceOf(RespException.ErrorReply.class)
          .hasMessage("ERR no such view 'x' (VIEW.LIST lists the views and virtual states)");
      // the connection goes on
      assertThatThrownBy(() -> connection.command("VIEW.INFO", "y")).isExactlyInstanceOf(RespException.ErrorReply.class);
    }
  }

  @Test
  void aServerWithoutHelloGetsAuth() throws IOException {
    int port = serve(command -> switch (command.get(0)) {
      case "HELLO" -> "-ERR unknown command 'HELLO', with args beginning with: '3'\r\n";
      case "AUTH" -> "+OK\r\n";
      default -> "*2\r\n$1\r\na\r\n$1\r\n1\r\n";
    });
    try (RespConnection connection = RespConnection.open("127.0.0.1", port, "acme", "sf_tok", TIMEOUT)) {
      assertThat(connection.command("HGETALL", "v:k")).isEqualTo(List.of("a", "1"));
    }
    assertThat(received).containsExactly(List.of("HELLO", "3", "AUTH", "acme", "sf_tok"), List.of("AUTH", "acme", "sf_tok"),
        List.of("HGETALL", "v:k"));
  }

  @Test
  void aRefusedHelloIsNotConnectedWithTheServersError() throws IOException {
    int port = serve(command -> "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    assertThatThrownBy(() -> RespConnection.open("127.0.0.1", port, "acme", "sf_bad", TIMEOUT))
        .isInstanceOf(RespException.NotConnected.class).hasMessage("cannot connect to 127.0.0.1:" + port)
        .cause().isExactlyInstanceOf(RespException.ErrorReply.class)
        .hasMessage("WRONGPASS invalid username-password pair or user is disabled.");
    assertThat(received).hasSize(1);
  }

  @Test
  void aSilentServerTimesOut() throws IOException {
    int port = serve(afterHello(command -> null));
    try (RespConnection connection = RespConnection.open("127.0.0.1", port, "acme", "sf_tok", Duration.ofMillis(1500))) {
      assertThatThrownBy(() -> connection.command("HGETALL", "v:k")).isExactlyInstanceOf(RespException.class)
          .hasMessage("Command timed out after 1500 millisecond(s)")
          .satisfies(e -> assertThat(ErrorHandler.describe(e))
              .isEqualTo("query-service: Command timed out after 1500 millisecond(s)"));
    }
  }

  @Test
  void aSilentHandshakeIsNotConnected() throws IOException {
    int port = serve(command -> null);
    assertThatThrownBy(() -> RespConnection.open("127.0.0.1", port, "acme", "sf_tok", Duration.ofSeconds(1)))
        .isInstanceOf(RespException.NotConnected.class)
        .hasRootCauseMessage("Connection initialization timed out after 1 second(s)")
        .satisfies(e -> assertThat(ErrorHandler.describe(e)).isEqualTo("cannot reach the query-service over RESP:"
            + " Connection initialization timed out after 1 second(s) (is the local stack running? `streamfold local status`)"));
  }

  @Test
  void aClosedConnectionFailsAtOnce() throws IOException {
    int port = serve(afterHello(command -> "CLOSE"));
    try (RespConnection connection = RespConnection.open("127.0.0.1", port, "acme", "sf_tok", Duration.ofMinutes(1))) {
      assertThatThrownBy(() -> connection.command("HGETALL", "v:k")).isExactlyInstanceOf(RespException.class)
          .hasMessage("Connection closed prematurely");
      assertThatThrownBy(() -> connection.command("HGETALL", "v:k")).hasMessage("Connection closed prematurely");
    }
    int closing = serve(command -> "CLOSE");
    assertThatThrownBy(() -> RespConnection.open("127.0.0.1", closing, "acme", "sf_tok", Duration.ofMinutes(1)))
        .isInstanceOf(RespException.NotConnected.class).hasRootCauseMessage("Connection closed prematurely");
  }

  @Test
  void bytesThatAreNotRespFail() throws IOException {
    int port = serve(afterHello(command -> "HTTP/1.1 400 Bad Request\r\n"));
    try (RespConnection connection = RespConnection.open("127.0.0.1", port, "acme", "sf_tok", TIMEOUT)) {
      assertThatThrownBy(() -> connection.command("HGETALL", "v:k")).isInstanceOf(RespException.class)
          .hasMessage("not a RESP reply: 'HTTP/1.1 400 Bad Request'");
    }
  }

  @Test
  void aRefusedConnectionIsNotConnected() throws IOException {
    int port;
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = closed.getLocalPort();
    }
    int refused = port;
    assertThatThrownBy(() -> RespConnection.open("127.0.0.1", refused, "acme", "sf_tok", TIMEOUT))
        .isInstanceOf(RespException.NotConnected.class).hasMessage("cannot connect to 127.0.0.1:" + refused)
        .rootCause().hasMessageContaining("Connection refused");
  }
}
