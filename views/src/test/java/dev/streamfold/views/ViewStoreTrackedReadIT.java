package dev.streamfold.views;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.core.PositionVector;
import dev.streamfold.testkit.Testkit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One-row reads through {@link ReadConnection}'s remembered served version (a plain HGETALL) against a real
 * redis-server: they must answer exactly what the rows script answers, also right after another client
 * serves a new version, rolls the view back or resumes it, and after the connection drops.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ViewStoreTrackedReadIT {
  private static ViewStore store;
  /** Another client, as the transform manager in another process would be. */
  private static ViewStore other;

  @BeforeAll
  static void connect() {
    io.lettuce.core.RedisURI uri = io.lettuce.core.RedisURI.create(Testkit.redis().uri());
    uri.setClientName(CLIENT_NAME);
    store = ViewStore.connect(uri.toString());
    other = ViewStore.connect(Testkit.redis().uri());
  }

  @AfterAll
  static void close() {
    store.close();
    other.close();
  }

  /** The name of {@link #store}'s connections, so that a test can drop them and no one else's. */
  private static final String CLIENT_NAME = "tracked-read-it";

  private static final ViewSchema SCHEMA =
      new ViewSchema(new LinkedHashMap<>(Map.of("k", "STRING", "n", "STRING")), List.of("k"));

  /** Events applied by the commits of {@link #write}: rising, so that no commit is skipped as already applied. */
  private static long eventsApplied;

  private static void write(ViewName name, int version, String value) {
    try (ViewWriter writer = other.writer(name, version)) {
      assertThat(writer.commit(Map.of("x", Map.of("k", "x", "n", value)), List.of(),
          new ViewWriter.Progress(ViewPhase.LIVE, ++eventsApplied, PositionVector.parse("1:1:-1:-1"), 0,
              PositionVector.EMPTY), 1)).isTrue();
    }
  }

  private static Optional<Map<String, String>> read(ViewName name) throws Exception {
    var read = store.rowsWithSchemaAsync(name, List.of("x")).toCompletableFuture();
    store.flushReads();
    return read.get(10, TimeUnit.SECONDS).rows().get(0);
  }

  private static String value(ViewName name) throws Exception {
    return read(name).map(row -> row.get("n")).orElse("absent");
  }

  private static long rowReads() {
    return store.readCounts()[0];
  }

  @Test
  void everyReadRightAfterAServeRollbackOrResumeByAnotherClientSeesIt() throws Exception {
    String tenant = Testkit.uniqueName("t");
    ViewName view = new ViewName(tenant, "counts");
    ViewName state = new ViewName(tenant, "counts_before");
    other.define(view, SCHEMA);
    other.defineVirtualState(new VirtualState(state, view.view(), 1, "", "", "1:1:-1:-1", System.currentTimeMillis()), SCHEMA);
    write(state, 1, "state");
    other.serve(state, 1);

    long before = rowReads();
    int version = 0;
    for (int round = 0; round < 60; round++) {
      version++;
      other.defineVersion(view, version, SCHEMA);
      write(view, version, "v" + version);
      other.serve(view, version);
      assertThat(value(view)).as("read right after serving version %d", version).isEqualTo("v" + version);
      assertThat(value(view)).isEqualTo("v" + version);
      assertThat(value(view)).isEqualTo("v" + version);
      if (round % 3 == 1) {
        other.rollback(view, state);
        assertThat(value(view)).as("read right after the rollback in round %d", round).isEqualTo("state");
        long[] rolledBack = store.readCounts();
        for (int i = 0; i < 10; i++) {
          assertThat(value(view)).isEqualTo("state");
        }
        long[] after = store.readCounts();
        assertThat(after[1] - rolledBack[1]).as("reads of a rolled-back view go through the script").isEqualTo(10);
        assertThat(after[2] - rolledBack[2]).as("a rolled-back view's hash is read once, not per read").isLessThanOrEqualTo(1);
        other.resume(view);
        assertThat(value(view)).as("read right after resuming in round %d", round).isEqualTo("v" + version);
        assertThat(value(view)).isEqualTo("v" + version);
      }
      // a write to the served version is seen by the next read (the row cache drops the row before it answers)
      write(view, version, "v" + version + "'");
      assertThat(value(view)).isEqualTo("v" + version + "'");
    }
    assertThat(rowReads() - before).as("one-row reads answered by HGETALL at the remembered version")
        .isGreaterThan(60);
  }

  private static void delete(ViewName name, int version) {
    try (ViewWriter writer = other.writer(name, version)) {
      assertThat(writer.commit(Map.of(), List.of("x"),
          new ViewWriter.Progress(ViewPhase.LIVE, ++eventsApplied, PositionVector.parse("1:1:-1:-1"), 0,
              PositionVector.EMPTY), 1)).isTrue();
    }
  }

  @Test
  void cachedRowsAreAnsweredOnlyUntilAnotherClientChangesThem() throws Exception {
    ViewName view = new ViewName(Testkit.uniqueName("t"), "counts");
    other.define(view, SCHEMA);
    other.defineVersion(view, 1, SCHEMA);
    write(view, 1, "v0");
    other.serve(view, 1);
    for (int i = 0; i < 5; i++) {
      assertThat(value(view)).isEqualTo("v0");
    }
    long hitsBefore = store.readCounts()[3];
    for (int round = 1; round <= 200; round++) {
      if (round % 10 == 0) {
        delete(view, 1);
        assertThat(value(view)).as("read right after the row was deleted in round %d", round).isEqualTo("absent");
        assertThat(value(view)).isEqualTo("absent");
      }
      write(view, 1, "v" + round);
      assertThat(value(view)).as("read right after the commit of round %d", round).isEqualTo("v" + round);
      assertThat(value(view)).isEqualTo("v" + round);
      assertThat(value(view)).isEqualTo("v" + round);
    }
    assertThat(store.readCounts()[3] - hitsBefore).as("reads answered from the row cache").isGreaterThanOrEqualTo(200);
  }

  @Test
  void readsOfACachedRowShareOneUnmodifiableRowUntilItChanges() throws Exception {
    ViewName view = new ViewName(Testkit.uniqueName("t"), "counts");
    other.define(view, SCHEMA);
    other.defineVersion(view, 1, SCHEMA);
    write(view, 1, "v1");
    other.serve(view, 1);
    read(view); // the served version is resolved
    read(view); // the row is read and cached
    Map<String, String> first = read(view).orElseThrow();
    Map<String, String> again = read(view).orElseThrow();
    assertThat(again).as("built once from the cached row").isSameAs(first).isEqualTo(Map.of("k", "x", "n", "v1"));
    assertThatThrownBy(() -> first.put("n", "changed by a reader")).isInstanceOf(UnsupportedOperationException.class);
    write(view, 1, "v2");
    assertThat(read(view)).hasValue(Map.of("k", "x", "n", "v2"));
    assertThat(first).as("the earlier reply is unchanged").containsEntry("n", "v1");
  }

  @Test
  void aStoreWithoutRowCacheReadsEveryRowFromRedis() throws Exception {
    ViewName view = new ViewName(Testkit.uniqueName("t"), "counts");
    other.define(view, SCHEMA);
    other.defineVersion(view, 1, SCHEMA);
    write(view, 1, "v1");
    other.serve(view, 1);
    try (ViewStore uncached = ViewStore.connect(Testkit.redis().uri(), 0)) {
      for (int i = 0; i < 10; i++) {
        var read = uncached.rowsWithSchemaAsync(view, List.of("x")).toCompletableFuture();
        uncached.flushReads();
        assertThat(read.get(10, TimeUnit.SECONDS).rows().get(0)).hasValue(Map.of("k", "x", "n", "v1"));
      }
      assertThat(uncached.readCounts()[0]).as("reads by row").isGreaterThan(5);
      assertThat(uncached.readCounts()[3]).as("reads from the row cache").isZero();
    }
  }

  @Test
  void aDroppedConnectionForgetsTheServedVersion() throws Exception {
    ViewName view = new ViewName(Testkit.uniqueName("t"), "counts");
    other.define(view, SCHEMA);
    other.defineVersion(view, 1, SCHEMA);
    write(view, 1, "v1");
    other.serve(view, 1);
    for (int i = 0; i < 5; i++) {
      assertThat(value(view)).isEqualTo("v1");
    }
    long warm = rowReads();
    assertThat(read(view)).hasValue(Map.of("k", "x", "n", "v1"));
    assertThat(rowReads()).as("the version is remembered after a few reads").isGreaterThan(warm);

    RedisClient admin = RedisClient.create(Testkit.redis().uri());
    try (StatefulRedisConnection<String, String> connection = admin.connect()) {
      // the store's connections (its read connections among them); lettuce reconnects
      int killed = 0;
      for (String client : connection.sync().clientList().split("\n")) {
        if (client.contains(" name=" + CLIENT_NAME + " ")) {
          long id = Long.parseLong(client.substring(client.indexOf("id=") + 3, client.indexOf(' ')));
          connection.sync().clientKill(io.lettuce.core.KillArgs.Builder.id(id));
          killed++;
        }
      }
      assertThat(killed).as("connections of the store").isGreaterThanOrEqualTo(2);
      other.defineVersion(view, 2, SCHEMA);
      write(view, 2, "v2");
      other.serve(view, 2);
    } finally {
      admin.shutdown();
    }
    for (int i = 0; i < 20; i++) {
      assertThat(value(view)).as("read %d after the reconnect", i).isEqualTo("v2");
    }
    long reconnected = rowReads();
    other.defineVersion(view, 3, SCHEMA);
    write(view, 3, "v3");
    other.serve(view, 3);
    for (int i = 0; i < 5; i++) {
      assertThat(value(view)).isEqualTo("v3");
    }
    assertThat(rowReads()).as("tracking is on again after the reconnect").isGreaterThan(reconnected);
  }
  @Test
  void readsStartedOnAnEventLoopCompleteOnThatLoop() throws Exception {
    ViewName view = new ViewName(Testkit.uniqueName("t"), "counts");
    other.define(view, SCHEMA);
    other.defineVersion(view, 1, SCHEMA);
    write(view, 1, "v1");
    other.serve(view, 1);
    io.netty.channel.nio.NioEventLoopGroup loops = new io.netty.channel.nio.NioEventLoopGroup(2);
    try (AutoCloseable attached = store.readOnEventLoops(loops)) {
      for (io.netty.util.concurrent.EventExecutor loop : loops) {
        for (int i = 0; i < 5; i++) { // the first reads go through the script, the later ones by row
          java.util.concurrent.CompletableFuture<Thread[]> threads = new java.util.concurrent.CompletableFuture<>();
          loop.execute(() -> {
            Thread starter = Thread.currentThread();
            store.rowsWithSchemaAsync(view, List.of("x")).whenComplete((rows, error) -> {
              if (error != null) {
                threads.completeExceptionally(error);
              } else if (!"v1".equals(rows.rows().get(0).map(row -> row.get("n")).orElse(null))) {
                threads.completeExceptionally(new AssertionError("read " + rows));
              } else {
                threads.complete(new Thread[] {starter, Thread.currentThread()});
              }
            });
            store.flushReads();
          });
          Thread[] startedAndCompleted = threads.get(10, TimeUnit.SECONDS);
          if (i >= 2) { // the first read of a view also fetches its shape, on the store's own connection
            assertThat(startedAndCompleted[1]).as("the thread that completed read %d", i).isSameAs(startedAndCompleted[0]);
          }
        }
      }
    } finally {
      loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
  }
}
