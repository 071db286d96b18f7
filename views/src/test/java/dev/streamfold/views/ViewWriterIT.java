package dev.streamfold.views;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.PositionVector;
import dev.streamfold.testkit.Testkit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The commit script against a real redis-server. */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ViewWriterIT {
  private static ViewStore store;

  @BeforeAll
  static void connect() {
    store = ViewStore.connect(Testkit.redis().uri());
  }

  @AfterAll
  static void close() {
    store.close();
  }

  private static ViewWriter.Progress progress(long events, String position) {
    return new ViewWriter.Progress(ViewPhase.LIVE, events, PositionVector.parse(position), 0, PositionVector.EMPTY);
  }

  private static Map<String, Map<String, String>> row(String key, String n) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("k", key);
    fields.put("n", n);
    return Map.of(key, fields);
  }

  @Test
  void aCommitIsAppliedOnceAndLowerOnesAreSkipped() {
    ViewName name = new ViewName(Testkit.uniqueName("t"), "counts");
    store.define(name, new ViewSchema(new LinkedHashMap<>(Map.of("k", "STRING", "n", "BIGINT")), List.of("k")));
    store.serve(name, 1);
    try (ViewWriter writer = store.writer(name, 1)) {
      assertThat(writer.commit(row("a", "1"), List.of(), progress(1, "1:1:-1:-1"), 10)).isTrue();
      assertThat(writer.commit(row("a", "2"), List.of(), progress(2, "1:2:-1:-1"), 20)).isTrue();
      // a retried commit of an older checkpoint: skipped, rows and position untouched
      assertThat(writer.commit(row("a", "1"), List.of(), progress(1, "1:1:-1:-1"), 30)).isFalse();
      assertThat(store.row(name, "a")).hasValue(Map.of("k", "a", "n", "2"));
      ViewMetadata meta = store.metadata(name).orElseThrow();
      assertThat(meta.eventsApplied()).isEqualTo(2);
      assertThat(meta.position().texts()).containsExactly("1:2:-1:-1");
      assertThat(meta.updatedAtMs()).isEqualTo(20);
      // the same commit again: metadata refreshed, rows not re-applied
      assertThat(writer.commit(row("a", "999"), List.of(), progress(2, "1:2:-1:-1"), 40)).isTrue();
      assertThat(store.row(name, "a")).hasValue(Map.of("k", "a", "n", "2"));
      assertThat(store.metadata(name).orElseThrow().updatedAtMs()).isEqualTo(40);
      // deletes remove the row and its key
      assertThat(writer.commit(Map.of(), List.of("a"), progress(3, "1:3:-1:-1"), 50)).isTrue();
      assertThat(store.row(name, "a")).isEmpty();
      assertThat(store.metadata(name).orElseThrow().rows()).isZero();
    }
  }

  @Test
  void servingAVersionRecordsItsShapeAsTheViewsInTheSameStep() {
    ViewName name = new ViewName(Testkit.uniqueName("t"), "reshaped");
    ViewSchema v1 = new ViewSchema(new LinkedHashMap<>(Map.of("k", "STRING", "n", "BIGINT")), List.of("k"));
    LinkedHashMap<String, String> v2Columns = new LinkedHashMap<>();
    v2Columns.put("k", "STRING");
    v2Columns.put("top", "INT");
    ViewSchema v2 = new ViewSchema(v2Columns, List.of("k"));
    store.define(name, v1);
    store.defineVersion(name, 1, v1);
    assertThat(store.serve(name, 1)).isTrue();
    store.defineVersion(name, 2, v2); // an update: v2 backfills while v1 is served
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(Testkit.redis().uri());
    try (var connection = client.connect()) {
      var redis = connection.sync();
      assertThat(redis.hget(RedisKeys.view(name), "columns")).isEqualTo(v1.encodeColumns());
      assertThat(store.serve(name, 2)).isTrue();
      // the view hash names v2 and describes v2, written by the one script (a tryout saw v1's columns for ~2.5 s)
      assertThat(redis.hmget(RedisKeys.view(name), "served_version", "columns", "key_columns"))
          .extracting(io.lettuce.core.KeyValue::getValue).containsExactly("2", v2.encodeColumns(), "k");
      assertThat(store.serve(name, 1)).as("an older version never takes the view back").isFalse();
      assertThat(redis.hget(RedisKeys.view(name), "columns")).isEqualTo(v2.encodeColumns());
    } finally {
      client.shutdown();
    }
  }
}
