package dev.streamfold.cli;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads materialized views the way any Redis client does: through the query-service's RESP port, rows
 * as hashes {@code <view>:<key>}.
 */
final class RespViews implements AutoCloseable {
  /** Timeout of one RESP command. */
  static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;

  private RespViews(RedisClient client) {
    this.client = client;
    this.connection = client.connect();
    this.redis = connection.sync();
  }

  /**
   * Connect to the query-service.
   *
   * @param host host name or address
   * @param port RESP port
   * @param user the AUTH user: the tenant to read (the admin token reads the tenant named so; a tenant token
   *     only its own)
   * @param token API token (the AUTH password)
   * @return the reader; close it
   * @throws io.lettuce.core.RedisConnectionException if it cannot be reached or AUTH fails
   */
  static RespViews connect(String host, int port, String user, String token) {
    RedisURI uri = RedisURI.builder().withHost(host).withPort(port).withTimeout(DEFAULT_COMMAND_TIMEOUT)
        .withAuthentication(user, token.toCharArray()).build();
    RedisClient client = RedisClient.create(uri);
    try {
      return new RespViews(client);
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
  }

  /**
   * Read one row: {@code HGETALL <view>:<key>}.
   *
   * @param view view name
   * @param key row key
   * @return column to value text; empty when there is no such row
   */
  Map<String, String> row(String view, String key) {
    return redis.hgetall(view + ":" + key);
  }

  /**
   * List the row keys of a view: {@code SCAN 0 MATCH <view>:* COUNT 1000} until the cursor is 0.
   *
   * @param view view name
   * @return row keys (without the {@code <view>:} prefix), each once, in scan order
   */
  List<String> keys(String view) {
    Set<String> keys = new LinkedHashSet<>();
    String prefix = view + ":";
    ScanArgs args = ScanArgs.Builder.matches(prefix + "*").limit(1000);
    KeyScanCursor<String> page = redis.scan(ScanCursor.INITIAL, args);
    while (true) {
      for (String k : page.getKeys()) {
        if (k.startsWith(prefix)) {
          keys.add(k.substring(prefix.length()));
        }
      }
      if (page.isFinished()) {
        break;
      }
      page = redis.scan(page, args);
    }
    return new ArrayList<>(keys);
  }

  /**
   * Read a view's metadata: {@code VIEW.INFO <view>} (a Streamfold command of the query-service).
   *
   * @param view view name
   * @return field to value text in the server's order (position entries joined with ',')
   * @throws io.lettuce.core.RedisCommandExecutionException if the view does not exist (the server's
   *     error names it)
   */
  Map<String, String> info(String view) {
    io.lettuce.core.codec.StringCodec codec = io.lettuce.core.codec.StringCodec.UTF8;
    List<Object> flat = redis.dispatch(VIEW_INFO, new io.lettuce.core.output.NestedMultiOutput<>(codec),
        new io.lettuce.core.protocol.CommandArgs<>(codec).add(view));
    Map<String, String> info = new java.util.LinkedHashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      Object value = flat.get(i + 1);
      String text = value instanceof List<?> list
          ? String.join(",", list.stream().map(String::valueOf).toList())
          : value == null ? "" : String.valueOf(value);
      info.put(String.valueOf(flat.get(i)), text);
    }
    return info;
  }

  private static final io.lettuce.core.protocol.ProtocolKeyword VIEW_INFO = new io.lettuce.core.protocol.ProtocolKeyword() {
    private final byte[] name = "VIEW.INFO".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @Override
    public byte[] getBytes() {
      return name;
    }

    @Override
    public String name() {
      return "VIEW.INFO";
    }
  };

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
