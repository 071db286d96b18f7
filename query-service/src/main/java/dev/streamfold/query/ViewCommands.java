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
        Command.withKeys("hgetall", 2, READ, 1, 1, this::hgetall),
        Command.withKeys("hget", 3, READ_FAST, 1, 1, this::hget),
        Command.withKeys("hmget", -3, READ_FAST, 1, 1, this::hmget),
        Command.withKeys("hexists", 3, READ_FAST, 1, 1,
            (s, r) -> Replies.integer(row(s, r.string(1)).map(row -> row.containsKey(r.string(2)) ? 1 : 0).orElse(0))),
        Command.withKeys("hlen", 2, READ_FAST, 1, 1,
            (s, r) -> Replies.integer(row(s, r.string(1)).map(Map::size).orElse(0))),
        Command.withKeys("hkeys", 2, READ, 1, 1,
            (s, r) -> Replies.bulkArray(row(s, r.string(1)).map(row -> List.copyOf(row.keySet())).orElse(List.of()))),
        Command.withKeys("hvals", 2, READ, 1, 1,
            (s, r) -> Replies.bulkArray(row(s, r.string(1)).map(row -> List.copyOf(row.values())).orElse(List.of()))),
        Command.withKeys("get", 2, READ_FAST, 1, 1, (s, r) -> s.replies().bulkOrNil(json(s, r.string(1)))),
        Command.withKeys("mget", -2, READ_FAST, 1, -1, this::mget),
        Command.withKeys("exists", -2, READ_FAST, 1, -1, this::exists),
        Command.withKeys("type", 2, READ_FAST, 1, 1,
            (s, r) -> Replies.simple(row(s, r.string(1)).isPresent() ? "hash" : "none")),
        Command.of("scan", -2, READ, new ScanCommand(reader)::run),
        Command.of("dbsize", 1, READ_FAST, (s, r) -> Replies.integer(keyCount(s))));
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

  private RedisMessage hgetall(Session session, Request request) {
    List<RedisMessage> pairs = new ArrayList<>();
    row(session, request.string(1)).ifPresent(row -> row.forEach((column, value) -> {
      pairs.add(Replies.bulk(column));
      pairs.add(Replies.bulk(value));
    }));
    return session.replies().map(pairs);
  }

  private RedisMessage hget(Session session, Request request) {
    String field = request.string(2);
    return session.replies().bulkOrNil(row(session, request.string(1)).map(row -> row.get(field)).orElse(null));
  }

  private RedisMessage hmget(Session session, Request request) {
    Map<String, String> row = row(session, request.string(1)).orElse(Map.of());
    List<RedisMessage> values = new ArrayList<>();
    for (int i = 2; i < request.size(); i++) {
      values.add(session.replies().bulkOrNil(row.get(request.string(i))));
    }
    return Replies.array(values);
  }

  /**
   * MGET: rows of one view are read together, from one commit of that view (atomic per view), so rows
   * updated by the same events agree; a reader that needs a consistent snapshot of several rows uses
   * one MGET.
   */
  private RedisMessage mget(Session session, Request request) {
    int n = request.size() - 1;
    String[] json = new String[n];
    Map<ViewName, List<Integer>> byView = new java.util.LinkedHashMap<>();
    List<Optional<RowAddress>> addresses = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Optional<RowAddress> address = RowAddress.parse(session.tenant(), request.string(i + 1));
      addresses.add(address);
      address.ifPresent(a -> byView.computeIfAbsent(a.view(), v -> new ArrayList<>()).add(addresses.size() - 1));
    }
    for (Map.Entry<ViewName, List<Integer>> view : byView.entrySet()) {
      List<String> rowKeys = new ArrayList<>();
      view.getValue().forEach(i -> rowKeys.add(addresses.get(i).get().rowKey()));
      ViewReader.Rows read = reader.rowsWithSchema(view.getKey(), rowKeys);
      List<Optional<Map<String, String>>> rows = read.rows();
      ViewSchema schema = read.schema().orElse(null);
      for (int j = 0; j < rowKeys.size(); j++) {
        Optional<Map<String, String>> row = rows.get(j);
        if (row.isPresent()) {
          json[view.getValue().get(j)] = RowJson.render(row.get(), schema);
        }
      }
    }
    List<RedisMessage> values = new ArrayList<>(n);
    for (String value : json) {
      values.add(session.replies().bulkOrNil(value));
    }
    return Replies.array(values);
  }

  private RedisMessage exists(Session session, Request request) {
    long count = 0;
    for (int i = 1; i < request.size(); i++) {
      if (row(session, request.string(i)).isPresent()) {
        count++;
      }
    }
    return Replies.integer(count);
  }

  private Optional<Map<String, String>> row(Session session, String key) {
    return RowAddress.parse(session.tenant(), key).flatMap(a -> reader.row(a.view(), a.rowKey()));
  }

  private String json(Session session, String key) {
    Optional<RowAddress> address = RowAddress.parse(session.tenant(), key);
    if (address.isEmpty()) {
      return null;
    }
    ViewReader.Rows read = reader.rowsWithSchema(address.get().view(), List.of(address.get().rowKey()));
    Optional<Map<String, String>> row = read.rows().get(0);
    if (row.isEmpty()) {
      return null;
    }
    return RowJson.render(row.get(), read.schema().orElse(null));
  }
}
