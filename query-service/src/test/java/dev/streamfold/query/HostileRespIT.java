package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.PositionVector;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.testkit.resp.RawRespClient;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewSchema;
import dev.streamfold.views.ViewStore;
import dev.streamfold.views.ViewWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile RESP input against query-service over views in a real redis-server: each case asserts a clear
 * error (or the exact answer), that the server still serves other connections, and that no stored
 * data changed (a row and the view's position, read before and after).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class HostileRespIT {
  private static final String BIG_KEY = "big";
  private static final int BIG_VALUE_BYTES = 20 * 1024 * 1024;
  /** Row keys that are not plain text: CRLF, NUL, non-ASCII UTF-8 (BMP and beyond). */
  private static final List<String> ODD_KEYS = List.of("a\r\nb", "nul\0inside", "Zürich", "emoji\uD83D\uDE00", "ns:1:2",
      "*3\r\n$3\r\nSET");

  private ViewStore store;
  private RespServer server;
  private String tenant;
  private String before;

  @BeforeAll
  void start() {
    tenant = Testkit.uniqueName("t");
    store = ViewStore.connect(Testkit.redis().uri());
    ViewName name = new ViewName(tenant, "delays");
    store.define(name, new ViewSchema(Map.of("airport", "STRING", "n", "BIGINT", "note", "STRING"), List.of("airport")));
    Map<String, Map<String, String>> rows = new LinkedHashMap<>();
    rows.put("ATL", Map.of("airport", "ATL", "n", "5"));
    for (String key : ODD_KEYS) {
      rows.put(key, Map.of("airport", key, "n", "7"));
    }
    rows.put(BIG_KEY, Map.of("airport", BIG_KEY, "n", "1", "note", "x".repeat(BIG_VALUE_BYTES)));
    try (ViewWriter writer = store.writer(name, 1)) {
      writer.commit(rows, List.of(), new ViewWriter.Progress(ViewPhase.LIVE, 9, PositionVector.parse("3:9:-1:-1"), 9,
          PositionVector.parse("3:9:-1:-1")),
          System.currentTimeMillis());
    }
    store.serve(name, 1);
    server = new RespServer(store, RespServerOptions.defaults().withDefaultTenant(tenant)).start();
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
    if (store != null) {
      store.close();
    }
  }

  /** What a well-behaved client reads: one row and the view's position. */
  private String snapshot() {
    try (RawRespClient client = new RawRespClient(server.port())) {
      String row = client.call("HGETALL", "delays:ATL");
      String info = client.call("VIEW.INFO", "delays");
      int at = info.indexOf("position");
      return row + "|" + info.substring(at, info.indexOf("events_applied", at));
    }
  }

  @BeforeEach
  void recordState() {
    before = snapshot();
    assertThat(before).contains("ATL").contains("3:9:-1:-1");
  }

  @AfterEach
  void serverStillServesAndNothingChanged() {
    try (RawRespClient client = new RawRespClient(server.port())) {
      assertThat(client.call("PING")).isEqualTo("+PONG\r\n");
    }
    assertThat(snapshot()).isEqualTo(before);
  }

  /** A socket for raw bytes: write, then read what the server says until it closes or goes quiet. */
  private static final class Raw implements AutoCloseable {
    final Socket socket;
    final InputStream in;
    final OutputStream out;

    Raw(int port) throws IOException {
      socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setSoTimeout(10_000);
      in = socket.getInputStream();
      out = socket.getOutputStream();
    }

    /** Read until the server closes the connection (fails after 10 s of silence). */
    String readUntilClosed() throws IOException {
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      try {
        for (int n; (n = in.read(buf)) >= 0; ) {
          all.write(buf, 0, n);
        }
      } catch (java.net.SocketException reset) {
        // closed with unread input: reset by peer after the reply
      }
      return all.toString(StandardCharsets.UTF_8);
    }

    /** Read until the server ends the stream; a reset fails (the client may have lost what was sent). */
    String readUntilEndOfStream() throws IOException {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  /**
   * Requests over a limit, and QUIT with more behind it, each with the exact reply that must arrive before the
   * server ends the stream. Found by a hostile-input trial: a 2 MB MGET (over 65,536 keys) was reset and the
   * client received nothing, because the server closed the connection with the rest of the request unread.
   */
  static Stream<Arguments> requestsTheServerRefusesWhileTheClientStillSends() {
    String[] keys = new String[70_001];
    keys[0] = "MGET";
    for (int i = 1; i < keys.length; i++) {
      keys[i] = String.format("delays:%016d", i);
    }
    String[] fields = new String[34];
    fields[0] = "HMGET";
    fields[1] = "delays:ATL";
    for (int i = 2; i < fields.length; i++) {
      fields[i] = "f".repeat(RequestAssembler.MAX_BULK_BYTES);
    }
    ByteArrayOutputStream quit = new ByteArrayOutputStream();
    quit.writeBytes(RawRespClient.encode("QUIT"));
    for (int i = 0; i < 100_000; i++) {
      quit.writeBytes(RawRespClient.encode("HGET", "delays:ATL", "n"));
    }
    return Stream.of(
        Arguments.of("MGET of 70,000 keys (2.2 MB)", RawRespClient.encode(keys),
            "-ERR Protocol error: invalid multibulk length (70001 arguments; at most 65536)\r\n"),
        Arguments.of("MGET of a 3 MiB key", RawRespClient.encode("MGET", "delays:" + "k".repeat(3 << 20)),
            "-ERR Protocol error: invalid bulk length (3145735 bytes; at most 2097152)\r\n"),
        Arguments.of("HMGET of 32 fields of 2 MiB", RawRespClient.encode(fields),
            "-ERR Protocol error: request too large (more than 67108864 bytes of arguments)\r\n"),
        Arguments.of("an argument count of 100,000 digits", ascii("*" + "9".repeat(100_000)),
            "-ERR Protocol error: too big mbulk count string\r\n"),
        Arguments.of("a bulk length of 100,000 digits", ascii("*2\r\n$4\r\nECHO\r\n$" + "9".repeat(100_000)),
            "-ERR Protocol error: too big bulk count string\r\n"),
        Arguments.of("an argument count that is not a number", ascii("*1x\r\n" + "x".repeat(2 << 20)),
            "-ERR Protocol error: invalid multibulk length\r\n"),
        Arguments.of("a bulk length that is not a number", ascii("*2\r\n$4\r\nECHO\r\n$x\r\n" + "x".repeat(2 << 20)),
            "-ERR Protocol error: invalid bulk length\r\n"),
        Arguments.of("a 2 MiB inline line", ascii("PING " + "a".repeat(2 << 20) + "\r\n"),
            "-ERR Protocol error: too big inline request\r\n"),
        Arguments.of("QUIT then 100,000 pipelined HGETs (2.9 MB)", quit.toByteArray(), "+OK\r\n"));
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("requestsTheServerRefusesWhileTheClientStillSends")
  void aRefusedRequestGetsItsReplyBeforeTheEndOfStreamWhileTheClientStillSends(String name, byte[] request,
      String reply) throws Exception {
    try (Raw raw = new Raw(server.port())) {
      // as redis-cli does: the whole request first (a reset fails this write), then the reply
      raw.out.write(request);
      raw.out.flush();
      assertThat(raw.readUntilEndOfStream()).as(name).isEqualTo(reply);
    }
  }

  @Test
  void anInlineLineOverItsLimitGetsRedissError() throws Exception {
    // found by a tryout: it was reported as "invalid bulk length (70000 bytes; at most 2097152)"
    try (Raw raw = new Raw(server.port())) {
      raw.out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      raw.out.write("a".repeat(RespServer.MAX_INLINE_BYTES + 4_464).getBytes(StandardCharsets.US_ASCII));
      assertThat(raw.readUntilClosed()).isEqualTo("+PONG\r\n-ERR Protocol error: too big inline request\r\n");
    }
  }

  @Test
  void garbageBytesGetAnErrorAndTheConnectionStaysUsable() throws Exception {
    byte[] garbage = new byte[4096];
    new Random(7).nextBytes(garbage);
    for (int i = 0; i < garbage.length; i++) {
      // no type byte at a line start and no line ends: one long inline line of junk, then a real command
      if (garbage[i] == '\r' || garbage[i] == '\n' || garbage[i] == '*' || garbage[i] == '$' || garbage[i] == '"'
          || garbage[i] == '\'') {
        garbage[i] = 'g';
      }
    }
    garbage[0] = 'g';
    try (RawRespClient client = new RawRespClient(server.port())) {
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      request.writeBytes(garbage);
      request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
      request.writeBytes(RawRespClient.encode("PING"));
      client.send(request.toByteArray());
      assertThat(client.readReply()).startsWith("-ERR unknown command");
      assertThat(client.readReply()).isEqualTo("+PONG\r\n");
    }
    // binary junk after a '*': a protocol error, and the connection is closed, as Redis does
    try (Raw raw = new Raw(server.port())) {
      raw.out.write(new byte[] {'*', (byte) 0xff, 0, 1, '\r', '\n'});
      assertThat(raw.readUntilClosed()).startsWith("-ERR Protocol error");
    }
  }

  @Test
  void anUnterminatedBulkStringWaitsAndABadTerminatorIsAProtocolError() throws Exception {
    try (Raw raw = new Raw(server.port())) {
      raw.out.write("*2\r\n$4\r\nECHO\r\n$10\r\nabc".getBytes(StandardCharsets.US_ASCII));
      raw.socket.setSoTimeout(500);
      assertThat(CompletableFuture.supplyAsync(() -> {
        try {
          return raw.in.read();
        } catch (IOException timeout) {
          return -2;
        }
      }).get()).as("no reply while the bulk string is incomplete, like Redis").isEqualTo(-2);
      raw.socket.setSoTimeout(10_000);
      raw.out.write("defghij\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] reply = raw.in.readNBytes("$10\r\nabcdefghij\r\n".length());
      assertThat(new String(reply, StandardCharsets.US_ASCII)).isEqualTo("$10\r\nabcdefghij\r\n");
    }
    try (Raw raw = new Raw(server.port())) {
      raw.out.write("*1\r\n$4\r\nPINGxx\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(raw.readUntilClosed()).startsWith("-ERR Protocol error");
    }
  }

  @Test
  void aHugeDeclaredBulkLengthIsRefusedAtOnceWithoutWaitingForTheBytes() throws Exception {
    for (long length : new long[] {1L << 40, 512L * 1024 * 1024, RequestAssembler.MAX_BULK_BYTES + 1L}) {
      try (Raw raw = new Raw(server.port())) {
        raw.out.write(("*2\r\n$4\r\nECHO\r\n$" + length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(raw.readUntilClosed()).as("$" + length).startsWith("-ERR Protocol error: invalid bulk length");
      }
    }
  }

  @Test
  void aHugeDeclaredArgumentCountIsRefusedAtOnce() throws Exception {
    // Netty's RedisArrayAggregator would allocate a list of that many slots (8 GB): OutOfMemoryError.
    try (Raw raw = new Raw(server.port())) {
      raw.out.write("*2000000000\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(raw.readUntilClosed()).startsWith("-ERR Protocol error: invalid multibulk length (2000000000 arguments; at most 65536)");
    }
  }

  @Test
  void aMillionArgumentsAreRefusedAndNestedArraysToo() throws Exception {
    try (Raw raw = new Raw(server.port())) {
      int n = 1_000_000;
      ByteArrayOutputStream request = new ByteArrayOutputStream(12 * n);
      request.writeBytes(("*" + n + "\r\n$6\r\nEXISTS\r\n").getBytes(StandardCharsets.US_ASCII));
      byte[] arg = "$3\r\nk:1\r\n".getBytes(StandardCharsets.US_ASCII);
      for (int i = 1; i < n; i++) {
        request.writeBytes(arg);
      }
      CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
        try {
          raw.out.write(request.toByteArray());
        } catch (IOException closedByServer) {
          // expected: the server closes after its error
        }
      });
      assertThat(raw.readUntilClosed()).startsWith("-ERR Protocol error: invalid multibulk length (1000000 arguments");
      writing.join();
    }
    try (Raw raw = new Raw(server.port())) {
      raw.out.write("*1\r\n*1\r\n*1\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(raw.readUntilClosed()).isEqualTo("-ERR Protocol error: expected '$', got '*'\r\n");
    }
  }

  @Test
  void pipelinedCommandsAfterErrorsStayInSync() {
    try (RawRespClient client = new RawRespClient(server.port())) {
      ByteArrayOutputStream batch = new ByteArrayOutputStream();
      batch.writeBytes(RawRespClient.encode("HGET", "delays:ATL"));
      batch.writeBytes(RawRespClient.encode("NOSUCHCOMMAND", "x"));
      batch.writeBytes(RawRespClient.encode("SET", "delays:ATL", "hacked"));
      batch.writeBytes(RawRespClient.encode("VIEW.WAIT", "delays", "not-an-id", "10"));
      batch.writeBytes(RawRespClient.encode("HGET", "delays:ATL", "n"));
      batch.writeBytes(RawRespClient.encode("ECHO", "still in sync"));
      client.send(batch.toByteArray());
      assertThat(client.readReply()).startsWith("-ERR wrong number of arguments for 'hget' command");
      assertThat(client.readReply()).startsWith("-ERR unknown command 'NOSUCHCOMMAND'");
      assertThat(client.readReply()).startsWith("-READONLY");
      assertThat(client.readReply()).startsWith("-ERR");
      assertThat(client.readReply()).isEqualTo("$1\r\n5\r\n");
      assertThat(client.readReply()).isEqualTo("$13\r\nstill in sync\r\n");
    }
  }

  @Test
  void binarySafeKeysRoundTripExactly() {
    RedisClient lettuce = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + server.port()));
    try (StatefulRedisConnection<byte[], byte[]> connection = lettuce.connect(ByteArrayCodec.INSTANCE)) {
      for (String key : ODD_KEYS) {
        byte[] clientKey = ("delays:" + key).getBytes(StandardCharsets.UTF_8);
        Map<byte[], byte[]> row = connection.sync().hgetall(clientKey);
        Map<String, String> text = new LinkedHashMap<>();
        row.forEach((k, v) -> text.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8)));
        assertThat(text).as(key).containsEntry("airport", key).containsEntry("n", "7");
        assertThat(connection.sync().exists(clientKey)).isEqualTo(1);
      }
      List<String> scanned = connection.sync().scan(io.lettuce.core.ScanArgs.Builder.limit(1000)).getKeys().stream()
          .map(k -> new String(k, StandardCharsets.UTF_8)).toList();
      for (String key : ODD_KEYS) {
        assertThat(scanned).contains("delays:" + key);
      }
    } finally {
      lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void aTwentyMegabyteRowIsReadAndThePingAfterItIsAnswered() throws Exception {
    try (RawRespClient client = new RawRespClient(server.port())) {
      client.send(RawRespClient.encode("HGET", "delays:" + BIG_KEY, "note"));
      client.send(RawRespClient.encode("PING"));
      String value = client.readReply();
      assertThat(value).startsWith("$" + BIG_VALUE_BYTES + "\r\nxxxx").hasSize(BIG_VALUE_BYTES + 13);
      assertThat(client.readReply()).isEqualTo("+PONG\r\n");
      String row = client.call("HGETALL", "delays:" + BIG_KEY);
      assertThat(row.length()).isGreaterThan(BIG_VALUE_BYTES);
      assertThat(client.call("PING")).isEqualTo("+PONG\r\n");
    }
  }
}
