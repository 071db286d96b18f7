package dev.streamfold.query;

import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewReader;
import dev.streamfold.views.ViewSchema;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The read commands over view rows. A row is addressed as {@code <view>:<rowKey>} and looks like a
 * Redis hash of column to value text; GET and MGET return it as a JSON object instead (where Redis
 * would reply WRONGTYPE). Keys that name no row behave like missing Redis keys.
 */
final class ViewCommands {
  private static final List<String> READ_FAST = List.of("readonly", "fast");
  private static final List<String> READ = List.of("readonly");

  private final ViewReader reader;

  ViewCommands(ViewReader reader) {
    this.reader = reader;
  }

  /** Return the commands. */
  List<Command> commands() {
    return List.of(
        read("hgetall", 2, READ, 1, 1, this::hgetall),
        read("hget", 3, READ_FAST, 1, 1, this::hget),
        read("hmget", -3, READ_FAST, 1, 1, this::hmget),
        read("hexists", 3, READ_FAST, 1, 1, (s, r) -> {
          String field = r.string(2);
          return row(s, r.string(1)).thenApply(row -> Replies.integer(row.map(x -> x.containsKey(field) ? 1 : 0).orElse(0)));
        }),
        read("hlen", 2, READ_FAST, 1, 1,
            (s, r) -> row(s, r.string(1)).thenApply(row -> Replies.integer(row.map(Map::size).orElse(0)))),
        read("hkeys", 2, READ, 1, 1, (s, r) -> row(s, r.string(1))
            .thenApply(row -> Replies.bulkArray(row.map(x -> List.copyOf(x.keySet())).orElse(List.of())))),
        read("hvals", 2, READ, 1, 1, (s, r) -> row(s, r.string(1))
            .thenApply(row -> Replies.bulkArray(row.map(x -> List.copyOf(x.values())).orElse(List.of())))),
        read("get", 2, READ_FAST, 1, 1, this::get),
        read("mget", -2, READ_FAST, 1, -1, this::mget),
        read("exists", -2, READ_FAST, 1, -1, this::exists),
        read("type", 2, READ_FAST, 1, 1,
            (s, r) -> row(s, r.string(1)).thenApply(row -> Replies.simple(row.isPresent() ? "hash" : "none"))),
        // rows never expire: -1 for a row, -2 for no row (Redis's answers; GUIs such as RedisInsight ask)
        read("ttl", 2, READ_FAST, 1, 1,
            (s, r) -> row(s, r.string(1)).thenApply(row -> Replies.integer(row.isPresent() ? -1 : -2))),
        read("pttl", 2, READ_FAST, 1, 1,
            (s, r) -> row(s, r.string(1)).thenApply(row -> Replies.integer(row.isPresent() ? -1 : -2))),
        read("hstrlen", 3, READ_FAST, 1, 1, (s, r) -> {
          String field = r.string(2);
          return row(s, r.string(1)).thenApply(row -> Replies.integer(row.map(x -> x.get(field))
              .map(v -> (long) v.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).orElse(0L)));
        }),
        Command.of("scan", -2, READ, new ScanCommand(reader)::run),
        Command.of("dbsize", 1, READ_FAST, (s, r) -> Replies.integer(keyCount(s))));
  }

  /** A row read: non-blocking, its held-back Redis reads flushed by {@link ViewReader#flushReads}. */
  private Command read(String name, int arity, List<String> flags, int firstKey, int lastKey,
      Command.AsyncAction async) {
    return Command.asyncWithKeys(name, arity, flags, firstKey, lastKey, reader::flushReads, async);
  }

  /**
   * Count the rows a connection can read: the row counts of the served versions of its tenant's views.
   *
   * @param session the connection
   * @return the number of rows
   */
  long keyCount(Session session) {
    long rows = 0;
    for (String view : reader.views(session.tenant())) {
      rows += reader.metadata(new ViewName(session.tenant(), view)).map(ViewMetadata::rows).orElse(0L);
    }
    return rows;
  }

  /** Keys of the replies rendered once per shared row ({@link ViewReader.Rows#derived}). */
  private enum Rendered { HGETALL_RESP2, HGETALL_RESP3, GET }

  private CompletionStage<RedisMessage> hgetall(Session session, Request request) {
    Replies replies = session.replies();
    Rendered kind = replies.protocol() == 3 ? Rendered.HGETALL_RESP3 : Rendered.HGETALL_RESP2;
    return read(session, request.string(1)).thenApply(read -> {
      Optional<Map<String, String>> row = read == null ? Optional.empty() : read.rows().get(0);
      if (row.isEmpty()) {
        return replies.map(List.of());
      }
      // a cached row is rendered once, and its bytes written for every read of it
      return read.derived(kind, () -> EncodedReply.of(hashReply(replies, row.get())));
    });
  }

  private static RedisMessage hashReply(Replies replies, Map<String, String> row) {
    List<RedisMessage> pairs = new ArrayList<>(2 * row.size());
    row.forEach((column, value) -> {
      pairs.add(Replies.bulk(column));
      pairs.add(Replies.bulk(value));
    });
    return replies.map(pairs);
  }

  /** GET: the row as a JSON object (a bulk string, the same in RESP2 and RESP3), or nil. */
  private CompletionStage<RedisMessage> get(Session session, Request request) {
    Replies replies = session.replies();
    return read(session, request.string(1)).thenApply(read -> {
      Optional<Map<String, String>> row = read == null ? Optional.empty() : read.rows().get(0);
      if (row.isEmpty()) {
        return replies.nil();
      }
      return read.derived(Rendered.GET, () -> EncodedReply.of(
          Replies.bulk(RowJson.renderUtf8(row.get(), read.schema().orElse(null)))));
    });
  }

  private CompletionStage<RedisMessage> hget(Session session, Request request) {
    String field = request.string(2);
    Replies replies = session.replies();
    return row(session, request.string(1)).thenApply(row -> replies.bulkOrNil(row.map(r -> r.get(field)).orElse(null)));
  }

  private CompletionStage<RedisMessage> hmget(Session session, Request request) {
    Replies replies = session.replies();
    List<String> fields = new ArrayList<>();
    for (int i = 2; i < request.size(); i++) {
      fields.add(request.string(i));
    }
    return row(session, request.string(1)).thenApply(read -> {
      Map<String, String> row = read.orElse(Map.of());
      List<RedisMessage> values = new ArrayList<>();
      for (String field : fields) {
        values.add(replies.bulkOrNil(row.get(field)));
      }
      return Replies.array(values);
    });
  }

  /**
   * MGET: rows of one view are read together, from one commit of that view (atomic per view), so rows
   * updated by the same events agree; a reader that needs a consistent snapshot of several rows uses
   * one MGET.
   */
  private CompletionStage<RedisMessage> mget(Session session, Request request) {
    Replies replies = session.replies();
    int n = request.size() - 1;
    byte[][] json = new byte[n][];
    Map<ViewName, List<Integer>> byView = new java.util.LinkedHashMap<>();
    List<Optional<RowAddress>> addresses = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Optional<RowAddress> address = RowAddress.parse(session.tenant(), request.string(i + 1));
      addresses.add(address);
      address.ifPresent(a -> byView.computeIfAbsent(a.view(), v -> new ArrayList<>()).add(addresses.size() - 1));
    }
    List<CompletableFuture<Void>> reads = new ArrayList<>(byView.size());
    for (Map.Entry<ViewName, List<Integer>> view : byView.entrySet()) {
      List<String> rowKeys = new ArrayList<>();
      view.getValue().forEach(i -> rowKeys.add(addresses.get(i).get().rowKey()));
      reads.add(reader.rowsWithSchemaAsync(view.getKey(), rowKeys).thenAccept(read -> {
        List<Optional<Map<String, String>>> rows = read.rows();
        ViewSchema schema = read.schema().orElse(null);
        for (int j = 0; j < rowKeys.size(); j++) {
          Optional<Map<String, String>> row = rows.get(j);
          if (row.isPresent()) {
            json[view.getValue().get(j)] = RowJson.renderUtf8(row.get(), schema); // distinct slots per view
          }
        }
      }).toCompletableFuture());
    }
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(done -> {
      List<RedisMessage> values = new ArrayList<>(n);
      for (byte[] value : json) {
        values.add(value == null ? replies.nil() : Replies.bulk(value));
      }
      return Replies.array(values);
    });
  }

  private CompletionStage<RedisMessage> exists(Session session, Request request) {
    List<CompletableFuture<Optional<Map<String, String>>>> reads = new ArrayList<>();
    for (int i = 1; i < request.size(); i++) {
      reads.add(row(session, request.string(i)).toCompletableFuture());
    }
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
        .thenApply(done -> Replies.integer(reads.stream().filter(read -> read.join().isPresent()).count()));
  }

  /**
   * Start reading one row (the tenant is taken from the session now).
   *
   * @return the read, with the row as its only entry; it completes with null when the key names no row
   */
  private CompletionStage<ViewReader.Rows> read(Session session, String key) {
    Optional<RowAddress> address = RowAddress.parse(session.tenant(), key);
    if (address.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return reader.rowsWithSchemaAsync(address.get().view(), List.of(address.get().rowKey()));
  }

  /** Start reading one row (the tenant is taken from the session now): empty when absent. */
  private CompletionStage<Optional<Map<String, String>>> row(Session session, String key) {
    return read(session, key).thenApply(read -> read == null ? Optional.empty() : read.rows().get(0));
  }
}
