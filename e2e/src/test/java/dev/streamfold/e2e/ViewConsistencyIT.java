package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.deploy.process.FreePorts;
import dev.streamfold.deploy.process.RedisServerProcess;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewStore;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Readers never see half a commit; a Redis restart during the tail is survived (issue 3). */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ViewConsistencyIT {
  @BeforeAll
  static void connect() {
    CrashRecoveryIT.connect();
  }

  @AfterAll
  static void close() {
    CrashRecoveryIT.close();
  }

  @Test
  void twoRowsUpdatedByTheSameEventsAreAlwaysReadEqual() throws Exception {
    String tenant = Testkit.uniqueName("read");
    StreamRef stream = CrashRecoveryIT.flights(tenant);
    List<Flights.Flight> all = Flights.load(30_000);
    try (ServerProcess server = CrashRecoveryIT.server(tenant, "read-server").start()) {
      CrashRecoveryIT.createView(server, tenant, "totals", "SELECT k, COUNT(*) AS n FROM "
          + "(SELECT 'count' AS k FROM flights UNION ALL SELECT 'count_check' AS k FROM flights) GROUP BY k");
      CrashRecoveryIT.awaitStatus(server, tenant, "totals", s -> s.getPhase().equals("LIVE"));
      RedisClient client = RedisClient.create(server.respUri());
      AtomicBoolean appending = new AtomicBoolean(true);
      AtomicInteger reads = new AtomicInteger();
      List<String> torn = new ArrayList<>();
      CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
          long previous = 0;
          while (appending.get() || previous < 30_000) {
            List<KeyValue<String, String>> rows = connection.sync().mget("totals:count", "totals:count_check");
            String count = rows.get(0).getValueOrElse(null);
            String check = rows.get(1).getValueOrElse(null);
            reads.incrementAndGet();
            if (count == null && check == null) {
              continue;
            }
            long n = count == null ? -1 : countOf(count);
            if (count == null || check == null || n != countOf(check)) {
              torn.add(count + " vs " + check);
              return;
            }
            assertThat(n).isGreaterThanOrEqualTo(previous);
            previous = n;
          }
        }
      });
      for (int from = 0; from < 30_000; from += 300) {
        CrashRecoveryIT.append(stream, all.subList(from, from + 300), 300);
      }
      appending.set(false);
      reader.get(3, TimeUnit.MINUTES);
      client.shutdown();
      assertThat(torn).isEmpty();
      assertThat(reads.get()).isGreaterThan(50);
    }
  }

  private static long countOf(String json) {
    return Long.parseLong(json.replaceAll(".*\"n\":(\\d+).*", "$1"));
  }

  @Test
  void aRedisRestartDuringTheTailConvergesToTheOracle() throws Exception {
    String tenant = Testkit.uniqueName("redis");
    StreamRef stream = CrashRecoveryIT.flights(tenant);
    List<Flights.Flight> all = Flights.load(40_000);
    Path redisDir = Testkit.workDir().resolve("persistent-redis");
    int redisPort = FreePorts.pick();
    RedisServerProcess redis = RedisServerProcess.start(redisDir, redisPort, true);
    List<MessageId> ids = new ArrayList<>(CrashRecoveryIT.append(stream, all.subList(0, 10_000), 2_000));
    ViewName name = new ViewName(tenant, "delays_by_origin");
    try (ServerProcess server = new ServerProcess(Testkit.workDir().resolve("redis-server-test"),
            Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl(), redis.uri(), tenant).start();
         ViewStore views = ViewStore.connect(redis.uri())) {
      CrashRecoveryIT.createView(server, tenant, "delays_by_origin", Flights.DELAYS_BY_ORIGIN_SQL);
      CrashRecoveryIT.awaitStatus(server, tenant, "delays_by_origin",
          s -> s.getPhase().equals("LIVE") && s.getEventsApplied() == 10_000);
      CompletableFuture<List<MessageId>> tail = CompletableFuture.supplyAsync(() -> {
        List<MessageId> more = new ArrayList<>();
        for (int from = 10_000; from < 40_000; from += 500) {
          more.addAll(CrashRecoveryIT.append(stream, all.subList(from, from + 500), 500));
          try {
            Thread.sleep(25); // paces the writer, so the outage falls while events keep arriving; nothing waits on it
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }
        return more;
      });
      CrashRecoveryIT.awaitStatus(server, tenant, "delays_by_origin", s -> s.getEventsApplied() >= 15_000);
      redis.close(); // SIGTERM: Redis flushes its append-only file and exits
      Thread.sleep(3_000); // the outage under test, on purpose: commits fail and are retried meanwhile
      redis = RedisServerProcess.start(redisDir, redisPort, true);
      ids.addAll(tail.get(3, TimeUnit.MINUTES));
      CrashRecoveryIT.awaitStatus(server, tenant, "delays_by_origin", s -> s.getEventsApplied() == 40_000);
      ViewStore previous = CrashRecoveryIT.views;
      CrashRecoveryIT.views = views;
      try {
        assertThat(CrashRecoveryIT.assertFoldUpToPosition(name, all, ids, CrashRecoveryIT::delays)).isEqualTo(40_000);
      } finally {
        CrashRecoveryIT.views = previous;
      }
    } finally {
      redis.close();
    }
  }
}
