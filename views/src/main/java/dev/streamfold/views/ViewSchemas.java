package dev.streamfold.views;

import io.lettuce.core.KeyValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shapes of views ({@code columns}, {@code key_columns} of the view hash) and of their versions (of the
 * version metadata), read from Redis once and then cached: a version's shape never changes once defined,
 * and the catalog updates the view's shape here when it changes it. Thread-safe.
 */
final class ViewSchemas {
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final Map<ViewName, ViewSchema> schemas = new ConcurrentHashMap<>();
  /** Per-version shapes; a version's shape never changes once defined. */
  private final Map<VersionKey, ViewSchema> versionSchemas = new ConcurrentHashMap<>();

  /** Key of {@link #versionSchemas}: one version of a view. */
  private record VersionKey(ViewName name, int version) {}

  /**
   * Read shapes on a shared connection.
   *
   * @param connection the store's shared connection (auto-flush on)
   * @param redis its blocking commands, failures translated ({@link RedisFailures#translating})
   */
  ViewSchemas(StatefulRedisConnection<String, String> connection, RedisCommands<String, String> redis) {
    this.connection = connection;
    this.redis = redis;
  }

  /**
   * The shape of one version, as {@link ViewCatalog#defineVersion} recorded it; the view's registered shape
   * for a version recorded without one.
   *
   * @param name the view
   * @param version the version
   * @return the shape, or empty when neither exists
   */
  Optional<ViewSchema> schema(ViewName name, int version) {
    VersionKey cacheKey = new VersionKey(name, version);
    ViewSchema cached = versionSchemas.get(cacheKey);
    if (cached != null) {
      return Optional.of(cached);
    }
    List<KeyValue<String, String>> fields = redis.hmget(RedisKeys.meta(name, version), "columns", "key_columns");
    if (fields.get(0).hasValue() && fields.get(1).hasValue()) {
      ViewSchema schema = ViewSchema.decode(fields.get(0).getValue(), fields.get(1).getValue());
      versionSchemas.put(cacheKey, schema);
      return Optional.of(schema);
    }
    return viewSchema(name);
  }

  /** The view's registered shape: cached, or one HMGET; empty when the view has none. */
  Optional<ViewSchema> viewSchema(ViewName name) {
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

  /** {@link #schema(ViewName, int)} without blocking: cached, or one asynchronous HMGET. */
  CompletionStage<Optional<ViewSchema>> schemaAsync(ViewName name, int version) {
    VersionKey cacheKey = new VersionKey(name, version);
    ViewSchema cached = versionSchemas.get(cacheKey);
    if (cached != null) {
      return CompletableFuture.completedFuture(Optional.of(cached));
    }
    return connection.async().hmget(RedisKeys.meta(name, version), "columns", "key_columns").thenCompose(fields -> {
      if (fields.get(0).hasValue() && fields.get(1).hasValue()) {
        ViewSchema schema = ViewSchema.decode(fields.get(0).getValue(), fields.get(1).getValue());
        versionSchemas.put(cacheKey, schema);
        return CompletableFuture.completedFuture(Optional.of(schema));
      }
      return viewSchemaAsync(name);
    });
  }

  /** The view's registered shape without blocking: cached, or one asynchronous HMGET. */
  CompletionStage<Optional<ViewSchema>> viewSchemaAsync(ViewName name) {
    ViewSchema cached = schemas.get(name);
    if (cached != null) {
      return CompletableFuture.completedFuture(Optional.of(cached));
    }
    return connection.async().hmget(RedisKeys.view(name), "columns", "key_columns").thenApply(fields -> {
      if (!fields.get(0).hasValue() || !fields.get(1).hasValue()) {
        return Optional.<ViewSchema>empty();
      }
      ViewSchema schema = ViewSchema.decode(fields.get(0).getValue(), fields.get(1).getValue());
      schemas.put(name, schema);
      return Optional.of(schema);
    });
  }

  /** The cached shape of one version, or null: never reads Redis. */
  ViewSchema cached(ViewName name, int version) {
    return versionSchemas.get(new VersionKey(name, version));
  }

  /** Remember the shape the view hash now records. */
  void put(ViewName name, ViewSchema schema) {
    schemas.put(name, schema);
  }

  /** Remember the shape a version's metadata now records. */
  void put(ViewName name, int version, ViewSchema schema) {
    versionSchemas.put(new VersionKey(name, version), schema);
  }

  /** Forget one version's shape (the version was dropped). */
  void forget(ViewName name, int version) {
    versionSchemas.remove(new VersionKey(name, version));
  }

  /** Forget the shapes of a view and of all its versions (the view was dropped). */
  void forget(ViewName name) {
    schemas.remove(name);
    versionSchemas.keySet().removeIf(k -> k.name().equals(name));
  }
}
