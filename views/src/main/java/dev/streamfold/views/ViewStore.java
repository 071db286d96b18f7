package dev.streamfold.views;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Materialized views in one Redis server (layout in {@link RedisKeys}): reads for the query-service
 * and catalog operations for the transform manager. Owns one lettuce client and a shared connection;
 * thread-safe. Commits of rows go through {@link ViewWriter}, which has its own connection.
 */
public final class ViewStore implements ViewReader, AutoCloseable {
  /** Timeout of one Redis command. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final Map<ViewName, ViewSchema> schemas = new ConcurrentHashMap<>();

  private ViewStore(RedisClient client) {
    this.client = client;
    this.connection = client.connect();
    this.redis = connection.sync();
  }

  /**
   * Connect to Redis.
   *
   * @param redisUri e.g. {@code redis://127.0.0.1:6379}
   * @return the store
   * @throws io.lettuce.core.RedisConnectionException if Redis cannot be reached
   */
  public static ViewStore connect(String redisUri) {
    RedisURI uri = RedisURI.create(redisUri);
    uri.setTimeout(DEFAULT_COMMAND_TIMEOUT);
    return new ViewStore(RedisClient.create(uri));
  }

  /**
   * Open a writer for one version of a view, on its own connection.
   *
   * @param name the view
   * @param version the version the writer fills
   * @return the writer; close it when done
   */
  public ViewWriter writer(ViewName name, int version) {
    return new ViewWriter(client.connect(), name, version);
  }

  /**
   * Register a view (or update its schema) without serving any version yet.
   *
   * @param name the view
   * @param schema its shape
   */
  public void define(ViewName name, ViewSchema schema) {
    redis.sadd(RedisKeys.tenantViews(name.tenant()), name.view());
    redis.hset(RedisKeys.view(name), Map.of(
        "columns", schema.encodeColumns(), "key_columns", String.join(",", schema.keyColumns())));
    schemas.put(name, schema);
  }

  /**
   * Make readers see {@code version} of a view: one HSET, atomic for readers.
   *
   * @param name the view
   * @param version the version to serve
   */
  public void serve(ViewName name, int version) {
    redis.hset(RedisKeys.view(name), "served_version", Integer.toString(version));
  }

  /**
   * Serve {@code version} and remove every older version's rows and metadata (a version that caught
   * up replaces the one readers saw; the switch is one HSET, atomic for readers).
   *
   * @param name the view
   * @param version the version that caught up
   */
  public void promote(ViewName name, int version) {
    serve(name, version);
    for (int older = 1; older < version; older++) {
      dropVersion(name, older);
    }
  }

  /**
   * Remove one version's rows and metadata, in batches of 500 keys.
   *
   * @param name the view
   * @param version the version
   */
  public void dropVersion(ViewName name, int version) {
    unlinkMatching(RedisKeys.versionPrefix(name, version) + "}:*");
  }

  private void unlinkMatching(String pattern) {
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      var page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(500));
      if (!page.getKeys().isEmpty()) {
        redis.unlink(page.getKeys().toArray(new String[0]));
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  /**
   * Return the served version.
   *
   * @param name the view
   * @return the version, or 0 when none is served or the view does not exist
   */
  public int servedVersion(ViewName name) {
    String v = redis.hget(RedisKeys.view(name), "served_version");
    return v == null ? 0 : Integer.parseInt(v);
  }

  /**
   * Mark a version as failed.
   *
   * @param name the view
   * @param version the version
   * @param error the cause, shown in the view status
   */
  public void fail(ViewName name, int version, String error) {
    redis.hset(RedisKeys.meta(name, version), Map.of("phase", ViewPhase.FAILED.name(), "error", error,
        "updated_at_ms", Long.toString(System.currentTimeMillis())));
  }

  /**
   * Remove a view: its rows of every version, its metadata and its registration. Rows are deleted in
   * batches of 500 keys.
   *
   * @param name the view
   */
  public void drop(ViewName name) {
    unlinkMatching("sf:{" + name.tenant() + ":" + name.view() + ":*");
    redis.unlink(RedisKeys.view(name));
    redis.srem(RedisKeys.tenantViews(name.tenant()), name.view());
    schemas.remove(name);
  }

  @Override
  public Optional<Map<String, String>> row(ViewName name, String rowKey) {
    int version = servedVersion(name);
    if (version == 0) {
      return Optional.empty();
    }
    Map<String, String> hash = redis.hgetall(RedisKeys.row(name, version, rowKey));
    if (hash == null || hash.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(inSchemaOrder(name, hash));
  }

  /**
   * Read one row of a given version (served or still building), e.g. to check a view at a crash point.
   *
   * @param name the view
   * @param version the version
   * @param rowKey the row key
   * @return the row in schema order, or empty when absent
   */
  public Optional<Map<String, String>> row(ViewName name, int version, String rowKey) {
    Map<String, String> hash = redis.hgetall(RedisKeys.row(name, version, rowKey));
    return hash == null || hash.isEmpty() ? Optional.empty() : Optional.of(inSchemaOrder(name, hash));
  }

  /**
   * Return the newest version that has metadata (the one the current job fills).
   *
   * @param name the view
   * @return the version, or 0 when none exists
   */
  public int latestVersion(ViewName name) {
    int latest = 0;
    for (int v = Math.max(1, servedVersion(name)); v < Math.max(1, servedVersion(name)) + 100; v++) {
      if (redis.exists(RedisKeys.meta(name, v)) == 0) {
        break;
      }
      latest = v;
    }
    return latest;
  }

  /**
   * KEYS[1] the view key; ARGV[1] the row-key prefix up to the version, ARGV[2..] row keys. Returns the
   * rows as flat field/value arrays of the served version, or an empty array when none is served.
   */
  private static final String ROWS_SCRIPT = String.join("\n",
      "local v = redis.call('HGET', KEYS[1], 'served_version')",
      "if not v then return {} end",
      "local out = {}",
      "for i = 2, #ARGV do out[i - 1] = redis.call('HGETALL', ARGV[1] .. v .. '" + RedisKeys.ROW_INFIX + "' .. ARGV[i]) end",
      "return out");

  private volatile String rowsScriptSha;

  @Override
  @SuppressWarnings("unchecked")
  public List<Optional<Map<String, String>>> rows(ViewName name, List<String> rowKeys) {
    String[] args = new String[rowKeys.size() + 1];
    args[0] = "sf:{" + name.tenant() + ":" + name.view() + ":";
    for (int i = 0; i < rowKeys.size(); i++) {
      args[i + 1] = rowKeys.get(i);
    }
    String[] keys = {RedisKeys.view(name)};
    if (rowsScriptSha == null) {
      rowsScriptSha = redis.scriptLoad(ROWS_SCRIPT);
    }
    List<Object> replies;
    try {
      replies = redis.evalsha(rowsScriptSha, io.lettuce.core.ScriptOutputType.MULTI, keys, args);
    } catch (io.lettuce.core.RedisNoScriptException flushed) {
      rowsScriptSha = redis.scriptLoad(ROWS_SCRIPT);
      replies = redis.evalsha(rowsScriptSha, io.lettuce.core.ScriptOutputType.MULTI, keys, args);
    }
    List<Optional<Map<String, String>>> result = new ArrayList<>(rowKeys.size());
    for (int i = 0; i < rowKeys.size(); i++) {
      List<Object> flat = i < replies.size() ? (List<Object>) replies.get(i) : List.of();
      if (flat == null || flat.isEmpty()) {
        result.add(Optional.empty());
        continue;
      }
      Map<String, String> hash = new LinkedHashMap<>();
      for (int j = 0; j + 1 < flat.size(); j += 2) {
        hash.put(String.valueOf(flat.get(j)), String.valueOf(flat.get(j + 1)));
      }
      result.add(Optional.of(inSchemaOrder(name, hash)));
    }
    return result;
  }

  private Map<String, String> inSchemaOrder(ViewName name, Map<String, String> hash) {
    Optional<ViewSchema> schema = schema(name);
    if (schema.isEmpty()) {
      return hash;
    }
    Map<String, String> ordered = new LinkedHashMap<>();
    for (String column : schema.get().columns().keySet()) {
      String value = hash.get(column);
      if (value != null) {
        ordered.put(column, value);
      }
    }
    return ordered;
  }

  @Override
  public Optional<ViewSchema> schema(ViewName name) {
    ViewSchema cached = schemas.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    List<KeyValue<String, String>> fields = redis.hmget(RedisKeys.view(name), "columns", "key_columns");
    if (!fields.get(0).hasValue() || !fields.get(1).hasValue()) {
      return Optional.empty();
    }
    ViewSchema schema = ViewSchema.decode(fields.get(0).getValue(), fields.get(1).getValue());
    schemas.put(name, schema);
    return Optional.of(schema);
  }

  @Override
  public Optional<ViewMetadata> metadata(ViewName name) {
    int version = servedVersion(name);
    return version == 0 ? Optional.empty() : metadata(name, version);
  }

  @Override
  public Optional<ViewMetadata> metadata(ViewName name, int version) {
    // No MULTI here: the connection is shared by every reader thread, and a transaction on a shared
    // connection would take in other threads' commands. The row count may lag the metadata by a commit.
    Map<String, String> hash = redis.hgetall(RedisKeys.meta(name, version));
    if (hash == null || hash.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(ViewMetadata.fromHash(version, hash, redis.scard(RedisKeys.keys(name, version))));
  }

  @Override
  public List<String> views(String tenant) {
    List<String> names = new ArrayList<>(redis.smembers(RedisKeys.tenantViews(ViewName.checkTenant(tenant))));
    names.sort(null);
    return names;
  }

  @Override
  public ScanPage scan(String tenant, String cursor, long count) {
    if (!cursor.matches("[0-9]+")) {
      throw new IllegalArgumentException("invalid cursor '" + cursor + "'");
    }
    var page = redis.scan(ScanCursor.of(cursor),
        ScanArgs.Builder.matches(RedisKeys.allRowsPattern(ViewName.checkTenant(tenant))).limit(Math.max(1, count)));
    Map<String, Integer> served = new HashMap<>();
    List<String> keys = new ArrayList<>();
    for (String redisKey : page.getKeys()) {
      String[] parts = RedisKeys.parseRow(tenant, redisKey);
      if (parts == null) {
        continue;
      }
      int version = served.computeIfAbsent(parts[0], v -> {
        try {
          return servedVersion(new ViewName(tenant, v));
        } catch (IllegalArgumentException malformed) {
          return 0;
        }
      });
      if (Integer.toString(version).equals(parts[1])) {
        keys.add(parts[0] + ":" + parts[2]);
      }
    }
    return new ScanPage(page.getCursor(), keys);
  }

  /**
   * Tell whether an error comes from Redis (unreachable, timed out, or refused a command).
   *
   * @param error any error
   * @return true for lettuce's {@link io.lettuce.core.RedisException} and its subclasses
   */
  public static boolean isRedisFailure(Throwable error) {
    return error instanceof io.lettuce.core.RedisException;
  }

  /** Close the connection and the client. */
  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
