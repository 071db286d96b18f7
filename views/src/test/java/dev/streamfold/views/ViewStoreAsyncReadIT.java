package dev.streamfold.views;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.PositionVector;
import dev.streamfold.testkit.Testkit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ViewStore#rowsWithSchemaAsync} and {@link ViewStore#flushReads} against a real redis-server. */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ViewStoreAsyncReadIT {
  private static ViewStore store;

  @BeforeAll
  static void connect() {
    store = ViewStore.connect(Testkit.redis().uri());
  }

  @AfterAll
  static void close() {
    store.close();
  }

  private static ViewName viewWithRows(int rows) {
    ViewName name = new ViewName(Testkit.uniqueName("t"), "counts");
    store.define(name, new ViewSchema(new LinkedHashMap<>(Map.of("k", "STRING", "n", "BIGINT")), List.of("k")));
    store.serve(name, 1);
    Map<String, Map<String, String>> upserts = new LinkedHashMap<>();
    for (int i = 0; i < rows; i++) {
      upserts.put("r" + i, Map.of("k", "r" + i, "n", Integer.toString(i)));
    }
    try (ViewWriter writer = store.writer(name, 1)) {
      writer.commit(upserts, List.of(), new ViewWriter.Progress(ViewPhase.LIVE, rows,
          PositionVector.parse("1:1:-1:-1"), 0, PositionVector.EMPTY), 1);
    }
    return name;
  }

  @Test
  void readsStartedTogetherAnswerAsTheBlockingReadAfterOneFlush() throws Exception {
    ViewName name = viewWithRows(50);
    List<CompletableFuture<ViewReader.Rows>> reads = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      reads.add(store.rowsWithSchemaAsync(name, List.of("r" + i, "missing")).toCompletableFuture());
    }
    store.flushReads();
    for (int i = 0; i < 50; i++) {
      ViewReader.Rows read = reads.get(i).get(10, TimeUnit.SECONDS);
      assertThat(read).isEqualTo(store.rowsWithSchema(name, List.of("r" + i, "missing")));
      assertThat(read.rows().get(0)).hasValue(Map.of("k", "r" + i, "n", Integer.toString(i)));
      assertThat(read.rows().get(1)).isEmpty();
    }
  }

  @Test
  void aReadAfterScriptFlushLoadsTheScriptAgain() throws Exception {
    ViewName name = viewWithRows(1);
    store.rowsWithSchemaAsync(name, List.of("r0")).toCompletableFuture();
    store.flushReads();
    RedisClient client = RedisClient.create(Testkit.redis().uri());
    try (StatefulRedisConnection<String, String> admin = client.connect()) {
      admin.sync().scriptFlush();
    } finally {
      client.shutdown();
    }
    CompletableFuture<ViewReader.Rows> read = store.rowsWithSchemaAsync(name, List.of("r0")).toCompletableFuture();
    store.flushReads();
    assertThat(read.get(10, TimeUnit.SECONDS).rows()).containsExactly(Optional.of(Map.of("k", "r0", "n", "0")));
  }

  @Test
  void aViewThatDoesNotExistReadsAsEmptyRows() throws Exception {
    ViewName name = new ViewName(Testkit.uniqueName("t"), "nothing");
    CompletableFuture<ViewReader.Rows> read = store.rowsWithSchemaAsync(name, List.of("a", "b")).toCompletableFuture();
    store.flushReads();
    assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(new ViewReader.Rows(Optional.empty(),
        List.of(Optional.empty(), Optional.empty())));
  }

  @Test
  void rowsComeInSchemaOrderFromTheStateARolledBackViewServes() throws Exception {
    String tenant = Testkit.uniqueName("t");
    ViewName view = new ViewName(tenant, "wide");
    ViewName state = new ViewName(tenant, "wide_before");
    for (ViewName name : List.of(view, state)) {
      Map<String, String> columns = new LinkedHashMap<>();
      for (String column : List.of("k", "z", "a", "m", "b")) {
        columns.put(column, "STRING");
      }
      store.define(name, new ViewSchema(columns, List.of("k")));
      store.serve(name, 1);
      Map<String, String> row = new LinkedHashMap<>();
      for (String column : List.of("b", "m", "a", "k")) { // z is NULL; Redis keeps its own field order
        row.put(column, name.view() + "-" + column);
      }
      try (ViewWriter writer = store.writer(name, 1)) {
        writer.commit(Map.of("x", row), List.of(), new ViewWriter.Progress(ViewPhase.LIVE, 1,
            PositionVector.parse("1:1:-1:-1"), 0, PositionVector.EMPTY), 1);
      }
    }

    CompletableFuture<ViewReader.Rows> own = store.rowsWithSchemaAsync(view, List.of("x", "y")).toCompletableFuture();
    store.flushReads();
    assertThat(own.get(10, TimeUnit.SECONDS).rows().get(0).orElseThrow().entrySet()).containsExactly(
        Map.entry("k", "wide-k"), Map.entry("a", "wide-a"), Map.entry("m", "wide-m"), Map.entry("b", "wide-b"));
    assertThat(own.get().rows().get(1)).isEmpty();

    store.rollback(view, state);
    CompletableFuture<ViewReader.Rows> rolledBack = store.rowsWithSchemaAsync(view, List.of("x")).toCompletableFuture();
    store.flushReads();
    ViewReader.Rows read = rolledBack.get(10, TimeUnit.SECONDS);
    assertThat(read.rows().get(0).orElseThrow().entrySet()).containsExactly(Map.entry("k", "wide_before-k"),
        Map.entry("a", "wide_before-a"), Map.entry("m", "wide_before-m"), Map.entry("b", "wide_before-b"));
    assertThat(read).isEqualTo(store.rowsWithSchema(view, List.of("x")));
  }
}
