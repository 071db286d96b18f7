package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewSchema;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Command parsing, arity, errors and reply shapes, without a socket (expected texts are Redis 7.0's). */
class CommandDispatcherTest {
  private final InMemoryViewReader reader = new InMemoryViewReader();
  private final ServerState server = new ServerState(Clock.systemUTC(), "acme");
  private final CommandDispatcher dispatcher = new CommandDispatcher(reader, server);
  private Session session;

  @BeforeEach
  void setUp() {
    ViewName delays = new ViewName("acme", "delays");
    Map<String, String> columns = new LinkedHashMap<>();
    columns.put("airport", "STRING");
    columns.put("flights", "BIGINT");
    columns.put("avg_delay", "DOUBLE");
    reader.define(delays, new ViewSchema(columns, List.of("airport")));
    Map<String, String> row = new LinkedHashMap<>();
    row.put("airport", "ATL");
    row.put("flights", "5");
    row.put("avg_delay", "1.5");
    reader.put(delays, "ATL", row);
    reader.put(delays, "ns:1", Map.of("airport", "ns:1"));
    ViewName otherTenant = new ViewName("other", "delays");
    reader.define(otherTenant, new ViewSchema(columns, List.of("airport")));
    reader.put(otherTenant, "SFO", Map.of("airport", "SFO"));
    session = new Session(server.nextClientId(), "acme", "127.0.0.1:1", "127.0.0.1:2");
  }

  /** Run a command and return its reply as RESP text. */
  private String run(String... args) {
    RedisMessage reply = dispatcher.execute(session, Request.of(args));
    ByteBuf out = Unpooled.buffer();
    try {
      Resp3Encoder.write(reply, out);
      return out.toString(StandardCharsets.UTF_8);
    } finally {
      out.release();
      ReferenceCountUtil.release(reply);
    }
  }

  @Test
  void tellsTheListenerEachCommandByBoundedNameAndErrorKind() {
    List<String> seen = new java.util.ArrayList<>();
    dispatcher.listener((command, latencyNanos, errorKind) -> {
      assertThat(latencyNanos).isNotNegative();
      seen.add(command + " " + errorKind);
    });
    run("hgetall", "delays:ATL");
    run("CLIENT", "SETNAME", "x");
    run("nosuch", "a");
    run("set", "k", "v");
    run("config|get", "x");
    assertThat(seen).containsExactly("HGETALL null", "CLIENT null", "OTHER ERR", "OTHER READONLY", "OTHER ERR");
  }

  @Test
  void errorKindIsTheUpperCaseFirstWordOrErr() {
    assertThat(CommandDispatcher.errorKind("NOAUTH Authentication required.")).isEqualTo("NOAUTH");
    assertThat(CommandDispatcher.errorKind("WRONGPASS invalid")).isEqualTo("WRONGPASS");
    assertThat(CommandDispatcher.errorKind("wrong lower case")).isEqualTo("ERR");
    assertThat(CommandDispatcher.errorKind("A".repeat(17) + " x")).isEqualTo("ERR");
  }

  @Test
  void checksArityWithRedisWording() {
    assertThat(run("hget", "delays:ATL")).isEqualTo("-ERR wrong number of arguments for 'hget' command\r\n");
    assertThat(run("HGET", "a", "b", "c")).isEqualTo("-ERR wrong number of arguments for 'hget' command\r\n");
    assertThat(run("HMGET", "a")).isEqualTo("-ERR wrong number of arguments for 'hmget' command\r\n");
    assertThat(run("ping", "a", "b")).isEqualTo("-ERR wrong number of arguments for 'ping' command\r\n");
    assertThat(run("echo")).isEqualTo("-ERR wrong number of arguments for 'echo' command\r\n");
    assertThat(run("CLIENT")).isEqualTo("-ERR wrong number of arguments for 'client' command\r\n");
    assertThat(run("CLIENT", "SETNAME")).isEqualTo("-ERR wrong number of arguments for 'client|setname' command\r\n");
    assertThat(run("scan")).isEqualTo("-ERR wrong number of arguments for 'scan' command\r\n");
  }

  @Test
  void reportsUnknownCommandsLikeRedis7() {
    assertThat(run("foo", "a", "b")).isEqualTo("-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n");
    assertThat(run("FOO")).isEqualTo("-ERR unknown command 'FOO', with args beginning with: \r\n");
    assertThat(run("CLIENT", "foo")).isEqualTo("-ERR unknown subcommand 'foo'. Try CLIENT HELP.\r\n");
    assertThat(run("command", "foo")).isEqualTo("-ERR unknown subcommand 'foo'. Try COMMAND HELP.\r\n");
    String longArg = "x".repeat(200);
    assertThat(run("nope", longArg, "y")).isEqualTo(
        "-ERR unknown command 'nope', with args beginning with: '" + "x".repeat(128) + "' \r\n");
    assertThat(run("nope", "a\r\nb")).isEqualTo("-ERR unknown command 'nope', with args beginning with: 'a  b' \r\n");
  }

  @Test
  void refusesWritesAsReadOnly() {
    for (String write : List.of("SET", "hset", "Del", "EXPIRE", "FLUSHALL", "flushdb", "INCR", "LPUSH", "HDEL")) {
      assertThat(run(write, "delays:ATL", "x", "1")).as(write).isEqualTo("-" + WriteCommands.READONLY + "\r\n");
    }
    assertThat(WriteCommands.READONLY).startsWith("READONLY views are read-only");
  }

  @Test
  void readsRowsAsHashes() {
    assertThat(run("HGETALL", "delays:ATL"))
        .isEqualTo("*6\r\n$7\r\nairport\r\n$3\r\nATL\r\n$7\r\nflights\r\n$1\r\n5\r\n$9\r\navg_delay\r\n$3\r\n1.5\r\n");
    assertThat(run("hget", "delays:ATL", "flights")).isEqualTo("$1\r\n5\r\n");
    assertThat(run("hget", "delays:ATL", "nope")).isEqualTo("$-1\r\n");
    assertThat(run("hget", "delays:NOPE", "flights")).isEqualTo("$-1\r\n");
    assertThat(run("hmget", "delays:ATL", "flights", "nope")).isEqualTo("*2\r\n$1\r\n5\r\n$-1\r\n");
    assertThat(run("hexists", "delays:ATL", "flights")).isEqualTo(":1\r\n");
    assertThat(run("hexists", "delays:ATL", "nope")).isEqualTo(":0\r\n");
    assertThat(run("hlen", "delays:ATL")).isEqualTo(":3\r\n");
    assertThat(run("hkeys", "delays:ATL")).isEqualTo("*3\r\n$7\r\nairport\r\n$7\r\nflights\r\n$9\r\navg_delay\r\n");
    assertThat(run("hvals", "delays:nope")).isEqualTo("*0\r\n");
    assertThat(run("exists", "delays:ATL", "delays:ATL", "delays:x", "nocolon")).isEqualTo(":2\r\n");
    assertThat(run("type", "delays:ATL")).isEqualTo("+hash\r\n");
    assertThat(run("type", "delays")).isEqualTo("+none\r\n");
    assertThat(run("hget", "delays:ns:1", "airport")).isEqualTo("$4\r\nns:1\r\n");
    assertThat(run("dbsize")).isEqualTo(":2\r\n");
    assertThat(run("exists", "delays:SFO")).as("another tenant's row").isEqualTo(":0\r\n");
  }

  @Test
  void keysOfInvalidViewNamesDoNotExist() {
    assertThat(run("hgetall", "no/such view:1")).isEqualTo("*0\r\n");
    assertThat(run("get", ":x")).isEqualTo("$-1\r\n");
  }

  @Test
  void readsRowsAsJson() {
    assertThat(run("GET", "delays:ATL")).isEqualTo("$45\r\n{\"airport\":\"ATL\",\"flights\":5,\"avg_delay\":1.5}\r\n");
    assertThat(run("MGET", "delays:ns:1", "delays:nope")).isEqualTo(
        "*2\r\n$50\r\n{\"airport\":\"ns:1\",\"flights\":null,\"avg_delay\":null}\r\n$-1\r\n");
  }

  @Test
  void usesResp3TypesAfterHello3() {
    String hello = run("HELLO", "3");
    assertThat(hello).startsWith("%7\r\n$6\r\nserver\r\n$24\r\nstreamfold-query-service\r\n")
        .contains("$5\r\nproto\r\n:3\r\n", "$2\r\nid\r\n:" + session.id() + "\r\n", "$7\r\nmodules\r\n*0\r\n");
    assertThat(run("HGETALL", "delays:ATL")).startsWith("%3\r\n$7\r\nairport\r\n$3\r\nATL\r\n");
    assertThat(run("HGETALL", "delays:none")).isEqualTo("%0\r\n");
    assertThat(run("HGET", "delays:ATL", "nope")).isEqualTo("_\r\n");
    assertThat(run("HMGET", "delays:ATL", "nope")).isEqualTo("*1\r\n_\r\n");
    assertThat(run("GET", "delays:nope")).isEqualTo("_\r\n");
    assertThat(run("INFO", "clients")).startsWith("=").contains("txt:# Clients\r\nconnected_clients:");
    assertThat(run("RESET")).isEqualTo("+RESET\r\n");
    assertThat(run("HGET", "delays:ATL", "nope")).isEqualTo("$-1\r\n");
  }

  @Test
  void answersHelloAndAuthLikeRedisWithoutPassword() {
    assertThat(run("HELLO")).startsWith("*14\r\n").contains("$5\r\nproto\r\n:2\r\n");
    assertThat(run("HELLO", "4")).isEqualTo("-NOPROTO unsupported protocol version\r\n");
    assertThat(run("HELLO", "abc")).isEqualTo("-ERR Protocol version is not an integer or out of range\r\n");
    assertThat(run("HELLO", "3", "AUTH", "other", "pw")).isEqualTo(
        "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    assertThat(session.protocol()).isEqualTo(2);
    assertThat(run("HELLO", "3", "FOO")).isEqualTo("-ERR Syntax error in HELLO option 'FOO'\r\n");
    assertThat(run("HELLO", "2", "AUTH", "default", "pw", "SETNAME", "app")).startsWith("*14\r\n");
    assertThat(run("CLIENT", "GETNAME")).isEqualTo("$3\r\napp\r\n");
    assertThat(run("AUTH", "pw")).isEqualTo("-ERR AUTH <password> called without any password configured for "
        + "the default user. Are you sure your configuration is correct?\r\n");
    assertThat(run("AUTH", "default", "pw")).isEqualTo("+OK\r\n");
    assertThat(run("AUTH", "a", "b", "c")).isEqualTo("-ERR syntax error\r\n");
  }

  @Test
  void handlesClientAndSelect() {
    assertThat(run("CLIENT", "GETNAME")).isEqualTo("$-1\r\n");
    assertThat(run("client", "setname", "a b")).isEqualTo(
        "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
    assertThat(run("client", "setname", "app-1")).isEqualTo("+OK\r\n");
    assertThat(run("client", "id")).isEqualTo(":" + session.id() + "\r\n");
    assertThat(run("client", "setinfo", "lib-name", "lettuce")).isEqualTo("+OK\r\n");
    assertThat(run("client", "setinfo", "foo", "x")).isEqualTo("-ERR Unrecognized option 'foo'\r\n");
    assertThat(run("client", "info")).contains("name=app-1", "lib-name=lettuce", "resp=2", "tenant=acme");
    assertThat(run("SELECT", "0")).isEqualTo("+OK\r\n");
    assertThat(run("SELECT", "1")).isEqualTo("-ERR DB index is out of range\r\n");
    assertThat(run("SELECT", "x")).isEqualTo("-ERR value is not an integer or out of range\r\n");
  }

  @Test
  void scansWithMatchTypeAndCount() {
    assertThat(run("SCAN", "0", "COUNT", "100")).isEqualTo("*2\r\n$1\r\n0\r\n*2\r\n$10\r\ndelays:ATL\r\n$11\r\ndelays:ns:1\r\n");
    assertThat(run("SCAN", "0", "MATCH", "*:ns:*")).isEqualTo("*2\r\n$1\r\n0\r\n*1\r\n$11\r\ndelays:ns:1\r\n");
    assertThat(run("SCAN", "0", "COUNT", "1")).isEqualTo("*2\r\n$1\r\n1\r\n*1\r\n$10\r\ndelays:ATL\r\n");
    assertThat(run("SCAN", "0", "TYPE", "string")).isEqualTo("*2\r\n$1\r\n0\r\n*0\r\n");
    assertThat(run("SCAN", "0", "type", "HASH", "count", "5")).contains("delays:ATL");
    assertThat(run("SCAN", "abc")).isEqualTo("-ERR invalid cursor\r\n");
    assertThat(run("SCAN", "0", "COUNT", "0")).isEqualTo("-ERR syntax error\r\n");
    assertThat(run("SCAN", "0", "COUNT", "x")).isEqualTo("-ERR value is not an integer or out of range\r\n");
    assertThat(run("SCAN", "0", "MATCH")).isEqualTo("-ERR syntax error\r\n");
    assertThat(run("SCAN", "0", "FOO", "x")).isEqualTo("-ERR syntax error\r\n");
    assertThat(ScanCommand.parseCursor("-1")).isEqualTo("18446744073709551615");
    assertThat(ScanCommand.parseCursor("+7")).isEqualTo("7");
  }

  @Test
  void mapsReaderFailuresToErr() {
    reader.failure = new IllegalStateException("Redis view store unreachable:\r\nconnection refused");

    assertThat(run("HGETALL", "delays:ATL")).isEqualTo("-ERR Redis view store unreachable:  connection refused\r\n");
    assertThat(run("PING")).isEqualTo("+PONG\r\n");
  }

  @Test
  void describesCommandsForClients() {
    assertThat(run("COMMAND", "COUNT")).isEqualTo(":" + dispatcher.table().all().size() + "\r\n");
    assertThat(run("COMMAND", "DOCS")).isEqualTo("*0\r\n");
    assertThat(run("COMMAND", "INFO", "hget", "nope")).startsWith("*2\r\n*10\r\n$4\r\nhget\r\n:3\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n")
        .endsWith("$-1\r\n");
    assertThat(run("COMMAND")).startsWith("*" + dispatcher.table().all().size() + "\r\n");
    assertThat(run("ECHO", "hi")).isEqualTo("$2\r\nhi\r\n");
    assertThat(run("PING", "hi")).isEqualTo("$2\r\nhi\r\n");
    assertThat(run("quit")).isEqualTo("+OK\r\n");
    assertThat(session.closing()).isTrue();
  }
  @Test
  void aSharedRowIsRenderedOncePerReplyShapeAndWrittenAsEncoded() {
    ViewName delays = new ViewName("acme", "delays");
    // a reader whose one-row reads share one Rows, as ViewStore's row cache does for a cached row
    Map<String, dev.streamfold.views.ViewReader.Rows> shared = new java.util.concurrent.ConcurrentHashMap<>();
    InMemoryViewReader cached = new InMemoryViewReader() {
      @Override
      public java.util.concurrent.CompletionStage<Rows> rowsWithSchemaAsync(ViewName name, List<String> rowKeys) {
        Rows read = rowsWithSchema(name, rowKeys);
        return java.util.concurrent.CompletableFuture.completedFuture(shared.computeIfAbsent(name + "/" + rowKeys,
            k -> new Rows(read.schema(), read.rows(), new dev.streamfold.views.ViewReader.Derived())));
      }
    };
    cached.define(delays, reader.schema(delays).orElseThrow());
    cached.put(delays, "ATL", reader.row(delays, "ATL").orElseThrow());
    CommandDispatcher sharing = new CommandDispatcher(cached, server);

    RedisMessage first = sharing.execute(session, Request.of("hgetall", "delays:ATL"));
    RedisMessage second = sharing.execute(session, Request.of("HGETALL", "delays:ATL"));
    assertThat(first).isInstanceOf(EncodedReply.class).isSameAs(second);
    // the bytes are what the reply built for this read alone is encoded to
    String plain = run("hgetall", "delays:ATL");
    assertThat(text(first)).isEqualTo(plain)
        .isEqualTo("*6\r\n$7\r\nairport\r\n$3\r\nATL\r\n$7\r\nflights\r\n$1\r\n5\r\n$9\r\navg_delay\r\n$3\r\n1.5\r\n");
    assertThat(text(sharing.execute(session, Request.of("get", "delays:ATL")))).isEqualTo(run("get", "delays:ATL"))
        .startsWith("$").contains("\"airport\":\"ATL\"");

    Session resp3 = new Session(server.nextClientId(), "acme", "127.0.0.1:3", "127.0.0.1:2");
    sharing.execute(resp3, Request.of("hello", "3"));
    RedisMessage map = sharing.execute(resp3, Request.of("hgetall", "delays:ATL"));
    assertThat(map).isNotSameAs(first).isSameAs(sharing.execute(resp3, Request.of("hgetall", "delays:ATL")));
    assertThat(text(map)).startsWith("%3\r\n$7\r\nairport\r\n$3\r\nATL\r\n");

    // rows of one read alone are rendered for that read
    assertThat(dispatcher.execute(session, Request.of("hgetall", "delays:ATL")))
        .isNotSameAs(dispatcher.execute(session, Request.of("hgetall", "delays:ATL")));
  }

  private static String text(RedisMessage reply) {
    ByteBuf out = Unpooled.buffer();
    try {
      Resp3Encoder.write(reply, out);
      return out.toString(StandardCharsets.UTF_8);
    } finally {
      out.release();
    }
  }
}
