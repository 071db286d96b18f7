package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.core.PositionVector;
import dev.streamfold.deploy.process.RedisServerProcess;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.testkit.resp.RawRespClient;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewSchema;
import dev.streamfold.views.ViewStore;
import dev.streamfold.views.ViewWriter;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.ProtocolVersion;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The RESP contract: the same read commands against real Redis (the reference, holding the same
 * logical rows as plain hashes in database 1) and against query-service (serving them from views
 * committed through {@link ViewStore}), with a real client (lettuce, RESP2 and RESP3), raw bytes, and
 * redis-cli. Every expected reply comes from the reference server or from the typed fixture, never
 * from query-service itself.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RespContractIT {
  /** Database of the reference hashes; nothing else in this test JVM uses it. */
  private static final int REFERENCE_DB = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One row of the delays view, typed as the view's schema says. */
  record Delay(String airport, Long flights, Double avgDelay, Boolean cancelled, BigDecimal ratio, String note) {
    Map<String, Object> columns() {
      Map<String, Object> columns = new LinkedHashMap<>();
      columns.put("airport", airport);
      columns.put("flights", flights);
      columns.put("avg_delay", avgDelay);
      columns.put("cancelled", cancelled);
      columns.put("ratio", ratio);
      columns.put("note", note);
      return columns;
    }
  }

  private static final List<Delay> DELAYS = List.of(
      new Delay("ATL", 5L, 1.5, false, new BigDecimal("0.25"), "hub"),
      new Delay("AUS", 12L, 0.0, true, new BigDecimal("1.00"), null),
      new Delay("BOS", 7L, 12.75, false, null, "snow"),
      new Delay("LAX", 9_000_000_000L, -3.5, false, new BigDecimal("0.10"), "west coast"),
      new Delay("SFO", 0L, 2.0E-3, true, new BigDecimal("0.05"), "fog"),
      new Delay("JFK", 44L, 8.125, null, new BigDecimal("0.33"), ""),
      new Delay("b[1]", 1L, 1.0, false, new BigDecimal("0.01"), "brackets"),
      new Delay("star*key", 2L, 2.0, false, new BigDecimal("0.02"), "star"),
      new Delay("q?mark", 3L, 3.0, true, new BigDecimal("0.03"), "question"),
      new Delay("ns:1", 4L, 4.0, false, new BigDecimal("0.04"), "colon in key"),
      new Delay("Zürich", 6L, 6.5, false, new BigDecimal("0.06"), "ünïcode"));

  private static final Map<String, String> DELAY_TYPES = types(
      "airport", "STRING", "flights", "BIGINT", "avg_delay", "DOUBLE", "cancelled", "BOOLEAN",
      "ratio", "DECIMAL(5, 2)", "note", "STRING");
  private static final Map<String, String> ROUTE_TYPES = types(
      "route", "STRING", "carrier", "STRING", "flights", "BIGINT");
  private static final List<List<String>> ROUTES = List.of(
      List.of("ATL-LAX", "DL", "31"), List.of("ATL-LAX", "AA", "4"), List.of("BOS-SFO", "UA", "12"));

  private RedisServerProcess redis;
  private ViewStore store;
  private RespServer server;
  private String tenant;
  private final Map<ProtocolVersion, RedisClient> clients = new EnumMap<>(ProtocolVersion.class);
  private final Map<String, StatefulRedisConnection<String, String>> connections = new HashMap<>();
  /** Client-visible key to the reference hash, in column order. */
  private final Map<String, Map<String, String>> expectedRows = new LinkedHashMap<>();

  @BeforeAll
  void startServers() {
    redis = Testkit.redis();
    tenant = Testkit.uniqueName("t");
    store = ViewStore.connect(redis.uri());
    commitView("delays", DELAY_TYPES, List.of("airport"), rowsOfDelays());
    commitView("routes", ROUTE_TYPES, List.of("route", "carrier"), rowsOfRoutes());

    RedisCommands<String, String> reference = connection(ProtocolVersion.RESP2, redisUri()).sync();
    reference.flushdb();
    expectedRows.forEach(reference::hset);

    server = new RespServer(store, RespServerOptions.defaults().withDefaultTenant(tenant)).start();
  }

  @AfterAll
  void stopServers() {
    connections.values().forEach(StatefulRedisConnection::close);
    clients.values().forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    if (server != null) {
      server.close();
    }
    if (store != null) {
      store.close();
    }
  }

  private static Map<String, String> types(String... nameType) {
    Map<String, String> types = new LinkedHashMap<>();
    for (int i = 0; i < nameType.length; i += 2) {
      types.put(nameType[i], nameType[i + 1]);
    }
    return types;
  }

  private Map<String, Map<String, String>> rowsOfDelays() {
    Map<String, Map<String, String>> rows = new LinkedHashMap<>();
    for (Delay delay : DELAYS) {
      Map<String, String> row = new LinkedHashMap<>();
      delay.columns().forEach((column, value) -> {
        if (value != null) {
          row.put(column, value instanceof BigDecimal d ? d.toPlainString() : value.toString());
        }
      });
      rows.put(delay.airport(), row);
    }
    return rows;
  }

  private Map<String, Map<String, String>> rowsOfRoutes() {
    Map<String, Map<String, String>> rows = new LinkedHashMap<>();
    for (List<String> route : ROUTES) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("route", route.get(0));
      row.put("carrier", route.get(1));
      row.put("flights", route.get(2));
      rows.put(route.get(0) + ViewSchema.KEY_SEPARATOR + route.get(1), row);
    }
    return rows;
  }

  private void commitView(String view, Map<String, String> types, List<String> keyColumns,
      Map<String, Map<String, String>> rows) {
    ViewName name = new ViewName(tenant, view);
    store.define(name, new ViewSchema(types, keyColumns));
    try (ViewWriter writer = store.writer(name, 1)) {
      writer.commit(rows, List.of(), new ViewWriter.Progress(ViewPhase.LIVE, rows.size(),
          PositionVector.parse("1:" + rows.size() + ":-1:-1"), rows.size(),
          PositionVector.parse("1:" + rows.size() + ":-1:-1")), System.currentTimeMillis());
    }
    store.serve(name, 1);
    rows.forEach((rowKey, row) -> expectedRows.put(view + ":" + rowKey, row));
  }

  private RedisURI redisUri() {
    RedisURI uri = RedisURI.create(redis.uri());
    uri.setDatabase(REFERENCE_DB);
    uri.setTimeout(Duration.ofSeconds(10));
    return uri;
  }

  private RedisURI ourUri() {
    RedisURI uri = RedisURI.create("redis://127.0.0.1:" + server.port());
    uri.setTimeout(Duration.ofSeconds(10));
    return uri;
  }

  private StatefulRedisConnection<String, String> connection(ProtocolVersion protocol, RedisURI uri) {
    RedisClient client = clients.computeIfAbsent(protocol, p -> {
      RedisClient c = RedisClient.create();
      c.setOptions(ClientOptions.builder().protocolVersion(p).build());
      return c;
    });
    return connections.computeIfAbsent(protocol + " " + uri, k -> client.connect(uri));
  }

  /** The reference (real Redis) and query-service, through lettuce with one protocol version. */
  private record Pair(RedisCommands<String, String> redis, RedisCommands<String, String> ours) {
    <T> void same(String what, Function<RedisCommands<String, String>, T> command) {
      T expected = command.apply(redis);
      assertThat(command.apply(ours)).as(what).isEqualTo(expected);
    }
  }

  private Pair pair(ProtocolVersion protocol) {
    return new Pair(connection(protocol, redisUri()).sync(), connection(protocol, ourUri()).sync());
  }

  private List<String> keysToRead() {
    List<String> keys = new ArrayList<>(expectedRows.keySet());
    keys.addAll(List.of("delays:NOPE", "routes:ATL-LAX", "nocolon", "nosuchview:ATL", ":ATL", "delays:"));
    return keys;
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void hashCommandsAnswerLikeRedis(ProtocolVersion protocol) {
    Pair pair = pair(protocol);
    for (String key : keysToRead()) {
      pair.same("HGETALL " + key, c -> new ArrayList<>(c.hgetall(key).entrySet()));
      pair.same("HLEN " + key, c -> c.hlen(key));
      pair.same("HKEYS " + key, c -> c.hkeys(key));
      pair.same("HVALS " + key, c -> c.hvals(key));
      pair.same("TYPE " + key, c -> c.type(key));
      pair.same("EXISTS " + key, c -> c.exists(key));
      List<String> fields = new ArrayList<>(DELAY_TYPES.keySet());
      fields.addAll(List.of("route", "nope", ""));
      for (String field : fields) {
        pair.same("HGET " + key + " " + field, c -> c.hget(key, field));
        pair.same("HEXISTS " + key + " " + field, c -> c.hexists(key, field));
      }
      pair.same("HMGET " + key, c -> c.hmget(key, fields.toArray(new String[0])).stream()
          .map(kv -> kv.getKey() + "=" + kv.getValueOrElse(null)).toList());
    }
    String[] all = keysToRead().toArray(new String[0]);
    pair.same("EXISTS all", c -> c.exists(all));
    pair.same("EXISTS duplicates", c -> c.exists("delays:ATL", "delays:ATL", "delays:NOPE"));
    pair.same("DBSIZE", RedisCommands::dbsize);
    pair.same("PING", RedisCommands::ping);
    pair.same("ECHO", c -> c.echo("héllo"));
    assertThat(pair.ours().hgetall("delays:ATL")).containsEntry("flights", "5").containsEntry("note", "hub");
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void scanMatchFindsTheKeysRedisFinds(ProtocolVersion protocol) {
    Pair pair = pair(protocol);
    List<String> patterns = List.of("*", "delays:*", "delays:?TL", "delays:[AB]*", "delays:[^A-L]*",
        "delays:b\\[1\\]", "delays:b[[]1]", "*:ns:*", "routes:*|DL", "*\\**", "*\\?*", "delays:Z*", "nomatch*", "");
    for (String pattern : patterns) {
      for (String type : new String[] {null, "hash", "string"}) {
        Set<String> expected = scanAll(pair.redis(), pattern, type);
        Set<String> actual = scanAll(pair.ours(), pattern, type);
        assertThat(actual).as("SCAN MATCH '%s' TYPE %s", pattern, type).isEqualTo(expected);
      }
    }
    assertThat(scanAll(pair.ours(), "delays:*", null)).hasSize(DELAYS.size());
  }

  private static Set<String> scanAll(RedisCommands<String, String> redis, String pattern, String type) {
    Set<String> keys = new TreeSet<>();
    ScanCursor cursor = ScanCursor.INITIAL;
    int pages = 0;
    do {
      KeyScanArgs args = new KeyScanArgs().match(pattern).limit(3);
      if (type != null) {
        args.type(type);
      }
      KeyScanCursor<String> page = redis.scan(cursor, args);
      keys.addAll(page.getKeys());
      cursor = page;
      assertThat(++pages).as("pages of SCAN MATCH %s", pattern).isLessThan(10_000);
    } while (!cursor.isFinished());
    return keys;
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void errorsHaveRedisWording(ProtocolVersion protocol) {
    Pair pair = pair(protocol);
    List<Function<RedisCommands<String, String>, String>> failing = List.of(
        c -> c.dispatch(CommandType.HGET, new StatusOutput<>(StringCodec.UTF8), args("delays:ATL")),
        c -> c.dispatch(CommandType.HGETALL, new StatusOutput<>(StringCodec.UTF8), args()),
        c -> c.dispatch(CommandType.HMGET, new StatusOutput<>(StringCodec.UTF8), args("delays:ATL")),
        c -> c.dispatch(CommandType.EXISTS, new StatusOutput<>(StringCodec.UTF8), args()),
        c -> c.dispatch(CommandType.PING, new StatusOutput<>(StringCodec.UTF8), args("a", "b")),
        c -> c.dispatch(keyword("FOO"), new StatusOutput<>(StringCodec.UTF8), args("a", "b")),
        c -> c.dispatch(keyword("nosuchcommand"), new StatusOutput<>(StringCodec.UTF8), args()),
        c -> c.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8), args("NOSUCHSUB")),
        c -> c.dispatch(CommandType.SCAN, new StatusOutput<>(StringCodec.UTF8), args("notacursor")),
        c -> c.dispatch(CommandType.SCAN, new StatusOutput<>(StringCodec.UTF8), args("0", "COUNT", "0")),
        c -> c.dispatch(CommandType.SELECT, new StatusOutput<>(StringCodec.UTF8), args("16")),
        c -> c.dispatch(keyword("AUTH"), new StatusOutput<>(StringCodec.UTF8), args("secret")));
    for (Function<RedisCommands<String, String>, String> command : failing) {
      String expected = errorOf(() -> command.apply(pair.redis()));
      String actual = errorOf(() -> command.apply(pair.ours()));
      assertThat(actual).isEqualTo(expected);
    }
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void refusesWritesAsReadOnly(ProtocolVersion protocol) {
    RedisCommands<String, String> ours = pair(protocol).ours();

    assertThatThrownBy(() -> ours.set("delays:ATL", "x")).isInstanceOf(RedisCommandExecutionException.class)
        .hasMessage(WriteCommands.READONLY);
    assertThatThrownBy(() -> ours.hset("delays:ATL", "flights", "6")).hasMessage(WriteCommands.READONLY);
    assertThatThrownBy(() -> ours.del("delays:ATL")).hasMessage(WriteCommands.READONLY);
    assertThatThrownBy(ours::flushall).hasMessage(WriteCommands.READONLY);
    assertThat(ours.hget("delays:ATL", "flights")).isEqualTo("5");
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void getAndMgetReturnRowsAsTypedJson(ProtocolVersion protocol) throws IOException {
    RedisCommands<String, String> ours = pair(protocol).ours();
    List<String> keys = new ArrayList<>();
    for (Delay delay : DELAYS) {
      String key = "delays:" + delay.airport();
      keys.add(key);
      JsonNode expected = JSON.readTree(JSON.writeValueAsString(delay.columns()));
      assertThat(JSON.readTree(ours.get(key))).as(key).isEqualTo(expected);
    }
    keys.add("delays:NOPE");
    keys.add("nocolon");

    List<KeyValue<String, String>> values = ours.mget(keys.toArray(new String[0]));

    assertThat(values).hasSize(DELAYS.size() + 2);
    for (int i = 0; i < DELAYS.size(); i++) {
      assertThat(JSON.readTree(values.get(i).getValue())).isEqualTo(JSON.readTree(JSON.writeValueAsString(DELAYS.get(i).columns())));
    }
    assertThat(values.get(DELAYS.size()).hasValue()).isFalse();
    assertThat(values.get(DELAYS.size() + 1).hasValue()).isFalse();
    assertThat(ours.get("delays:NOPE")).isNull();
    assertThat(JSON.readTree(ours.get("routes:ATL-LAX|DL")))
        .isEqualTo(JSON.readTree("{\"route\":\"ATL-LAX\",\"carrier\":\"DL\",\"flights\":31}"));
  }

  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void pipelinedRepliesKeepTheirOrder(ProtocolVersion protocol) throws Exception {
    StatefulRedisConnection<String, String> ours = connection(protocol, ourUri());
    List<String> keys = new ArrayList<>(expectedRows.keySet());
    List<RedisFuture<String>> futures = new ArrayList<>();
    ours.setAutoFlushCommands(false);
    try {
      for (int i = 0; i < 500; i++) {
        String key = keys.get(i % keys.size());
        futures.add(ours.async().hget(key, key.startsWith("delays:") ? "airport" : "route"));
      }
      ours.flushCommands();
      for (int i = 0; i < futures.size(); i++) {
        String key = keys.get(i % keys.size());
        String field = key.startsWith("delays:") ? "airport" : "route";
        assertThat(futures.get(i).get(10, TimeUnit.SECONDS)).as("reply %d", i).isEqualTo(expectedRows.get(key).get(field));
      }
    } finally {
      ours.setAutoFlushCommands(true);
    }
  }

  /**
   * DBSIZE reads view metadata, which ViewStore reads in a MULTI/EXEC on its shared connection, while
   * other connections read rows through that same connection: no reply may be mixed up.
   */
  @Test
  void onLinuxTheServerRunsOnNativeEpollAndReadsRowsOnItsOwnEventLoops() {
    String arch = System.getProperty("os.arch");
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux")
        && (arch.equals("amd64") || arch.equals("aarch64")), "Netty's native epoll ships for Linux x86-64 and aarch64");
    assertThat(RespServer.nativeEpoll()).as("native epoll transport available").isTrue();
    // lettuce picked the same transport, so the reader's connections share the server's loops
    assertThat(server.readsOnEventLoops()).isTrue();
  }

  @Test
  void concurrentDbsizeAndRowReadsStayCorrect() throws Exception {
    long expectedSize = connection(ProtocolVersion.RESP2, redisUri()).sync().dbsize();
    List<String> keys = new ArrayList<>(expectedRows.keySet());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> jobs = new ArrayList<>();
      jobs.add(pool.submit(() -> {
        try (RawRespClient client = new RawRespClient(server.port())) {
          for (int i = 0; i < 300; i++) {
            assertThat(client.call("DBSIZE")).isEqualTo(":" + expectedSize + "\r\n");
          }
        }
      }));
      for (int t = 0; t < 3; t++) {
        int offset = t;
        jobs.add(pool.submit(() -> {
          RedisClient client = RedisClient.create(ourUri());
          try (StatefulRedisConnection<String, String> connection = client.connect()) {
            for (int i = 0; i < 300; i++) {
              String key = keys.get((i + offset) % keys.size());
              assertThat(connection.sync().hgetall(key)).as(key).isEqualTo(expectedRows.get(key));
            }
          } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
          }
        }));
      }
      for (Future<?> job : jobs) {
        job.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Byte-for-byte: the same raw requests to both servers, after HELLO 2 or 3 on each. */
  @ParameterizedTest
  @EnumSource(ProtocolVersion.class)
  void rawRepliesAreByteForByteRedis(ProtocolVersion protocol) {
    String hello = protocol == ProtocolVersion.RESP3 ? "3" : "2";
    List<List<String>> requests = new ArrayList<>();
    for (String key : List.of("delays:ATL", "delays:AUS", "routes:ATL-LAX|DL", "delays:NOPE", "nocolon")) {
      requests.add(List.of("HGETALL", key));
      requests.add(List.of("HGET", key, "flights"));
      requests.add(List.of("HGET", key, "nope"));
      requests.add(List.of("HMGET", key, "note", "nope", "airport"));
      requests.add(List.of("HEXISTS", key, "note"));
      requests.add(List.of("HLEN", key));
      requests.add(List.of("HKEYS", key));
      requests.add(List.of("HVALS", key));
      requests.add(List.of("TYPE", key));
      requests.add(List.of("EXISTS", key, key));
      requests.add(List.of("TTL", key));
      requests.add(List.of("PTTL", key));
      requests.add(List.of("HSTRLEN", key, "note"));
      requests.add(List.of("HSTRLEN", key, "nope"));
    }
    requests.addAll(List.of(List.of("PING"), List.of("ping", "hi"), List.of("ECHO", ""), List.of("hget", "x"),
        List.of("Foo", "a", "b"), List.of("CLIENT", "nope"), List.of("CLIENT", "SETNAME"),
        List.of("CLIENT", "SETNAME", "bad name"), List.of("CLIENT", "SETNAME", "good"), List.of("CLIENT", "GETNAME"),
        List.of("HELLO", "4"), List.of("HELLO", "x"), List.of("HELLO", hello, "AUTH", "bob", "pw"),
        List.of("AUTH", "pw"), List.of("AUTH", "default", "pw"), List.of("AUTH", "a", "b", "c"),
        List.of("SELECT", "x"), List.of("SELECT", "99"), List.of("SCAN", "x"), List.of("SCAN", "0", "COUNT", "x"),
        List.of("SCAN", "0", "MATCH"), List.of("SCAN", "0", "FOO", "1"), List.of("DBSIZE"), List.of("RESET"),
        List.of("HGET", "delays:NOPE", "f")));
    try (RawRespClient reference = new RawRespClient(redis.port());
         RawRespClient ours = new RawRespClient(server.port())) {
      assertThat(reference.call("SELECT", Integer.toString(REFERENCE_DB))).isEqualTo("+OK\r\n");
      reference.call("HELLO", hello);
      assertThat(ours.call("HELLO", hello)).contains("proto");
      for (List<String> request : requests) {
        String[] args = request.toArray(new String[0]);
        assertThat(ours.call(args)).as(String.join(" ", request)).isEqualTo(reference.call(args));
      }
      // Protocol errors close the connection, on both.
      byte[] garbage = "*1\r\nfoo\r\n".getBytes(StandardCharsets.US_ASCII);
      reference.send(garbage);
      ours.send(garbage);
      assertThat(ours.readReply()).isEqualTo(reference.readReply()).isEqualTo("-ERR Protocol error: expected '$', got 'f'\r\n");
      assertThat(ours.closedByServer()).isTrue();
    }
    // Length lines that are not lengths: Netty's decoder refuses them, worded as Redis words them.
    for (String garbage : List.of("*zz\r\n", "*" + "9".repeat(25) + "\r\n", "*2\r\n$4\r\nECHO\r\n$x\r\n",
        "*2\r\n$4\r\nECHO\r\n$-7\r\n", "*1\r\n*1\r\n")) {
      try (RawRespClient reference = new RawRespClient(redis.port());
           RawRespClient ours = new RawRespClient(server.port())) {
        byte[] bytes = garbage.getBytes(StandardCharsets.US_ASCII);
        reference.send(bytes);
        ours.send(bytes);
        assertThat(ours.readReply()).as(garbage).isEqualTo(reference.readReply()).startsWith("-ERR Protocol error: ");
        assertThat(ours.closedByServer()).as(garbage).isTrue();
      }
    }
  }

  @Test
  void survivesGarbageAndServesNewConnections() {
    List<byte[]> garbage = List.of(
        "*zz\r\n".getBytes(StandardCharsets.US_ASCII),
        new byte[] {'*', '3', '\r', '\n', '$', '-', '7', '\r', '\n', 0, 1, 2},
        "$99999999999999999999\r\n".getBytes(StandardCharsets.US_ASCII),
        "GET \"unterminated\r\n".getBytes(StandardCharsets.US_ASCII));
    for (byte[] bytes : garbage) {
      try (RawRespClient client = new RawRespClient(server.port())) {
        client.send(bytes);
        assertThat(client.readReply()).startsWith("-ERR Protocol error");
        assertThat(client.closedByServer()).isTrue();
      }
    }
    byte[] noise = new byte[4096];
    new Random(42).nextBytes(noise);
    try (RawRespClient client = new RawRespClient(server.port())) {
      client.send(noise);
      client.send("\r\n".getBytes(StandardCharsets.US_ASCII));
    } catch (java.io.UncheckedIOException closedAfterTheNoise) {
      // the server closes a connection at its first protocol error, possibly before the second send
    }
    try (RawRespClient fresh = new RawRespClient(server.port())) {
      assertThat(fresh.call("HGET", "delays:ATL", "flights")).isEqualTo("$1\r\n5\r\n");
    }
  }

  @Test
  void redisCliReadsRowsLikeFromRedis() throws Exception {
    Path cli = Path.of("/usr/bin/redis-cli");
    assumeTrue(Files.isExecutable(cli), "redis-cli is not installed");
    for (List<String> command : List.of(List.of("HGETALL", "delays:ATL"), List.of("HGET", "delays:Zürich", "note"),
        List.of("HMGET", "delays:AUS", "note", "flights"), List.of("EXISTS", "delays:BOS", "delays:NOPE"))) {
      for (String protocol : List.of("-2", "-3")) {
        String expected = run(cli, protocol, "-p", Integer.toString(redis.port()), "-n", Integer.toString(REFERENCE_DB), command);
        String actual = run(cli, protocol, "-p", Integer.toString(server.port()), null, null, command);
        assertThat(actual).as("redis-cli %s %s", protocol, command).isEqualTo(expected).isNotBlank();
      }
    }
    assertThat(run(cli, "-2", "-p", Integer.toString(server.port()), null, null, List.of("HGETALL", "delays:ATL")))
        .isEqualTo("airport\nATL\nflights\n5\navg_delay\n1.5\ncancelled\nfalse\nratio\n0.25\nnote\nhub\n");
  }

  private static String run(Path cli, String protocol, String portFlag, String port, String dbFlag, String db,
      List<String> command) throws Exception {
    List<String> argv = new ArrayList<>(List.of(cli.toString(), protocol, portFlag, port));
    if (dbFlag != null) {
      argv.addAll(List.of(dbFlag, db));
    }
    argv.addAll(command);
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    process.getOutputStream().close();
    assertThat(process.waitFor(20, TimeUnit.SECONDS)).as("redis-cli finished").isTrue();
    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  private static CommandArgs<String, String> args(String... args) {
    CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8);
    for (String arg : args) {
      commandArgs.add(arg);
    }
    return commandArgs;
  }

  private static ProtocolKeyword keyword(String name) {
    byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
    return new ProtocolKeyword() {
      @Override
      public byte[] getBytes() {
        return bytes;
      }

      @Override
      public String toString() {
        return "raw-" + name;
      }
    };
  }

  private static String errorOf(Runnable command) {
    try {
      command.run();
    } catch (RedisCommandExecutionException e) {
      return e.getMessage();
    }
    throw new AssertionError("expected an error reply");
  }
}
