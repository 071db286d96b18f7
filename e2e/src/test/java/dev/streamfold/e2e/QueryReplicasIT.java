package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.query.RespServer;
import dev.streamfold.query.RespServerOptions;
import dev.streamfold.server.TransformViewSources;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.testkit.resp.RawRespClient;
import dev.streamfold.views.ViewStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Query-service replicas: two RESP servers of their own (as separate query-service processes would run), each
 * with its own Redis connection, over the same Redis. While a view is being updated, every read taken at the same
 * VIEW.INFO position answers byte for byte the same on both; a replica restarted from nothing answers the same at
 * once (it keeps no state of its own).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class QueryReplicasIT {
  private static final String TENANT = Testkit.uniqueName("replicas");
  private static final String VIEW = "delays_by_origin";
  private static final int BACKFILL_EVENTS = 400;
  private static final int UPDATE_REQUESTS = 30;
  private static final int EVENTS_PER_UPDATE = 50;
  @RegisterExtension
  static final StreamfoldServerExtension SERVER = StreamfoldServerExtension.forTenant(
      Testkit.workDir().resolve("replicas-server"), TENANT, Duration.ofSeconds(2));
  private static final GrpcClients GRPC = SERVER.clients();
  private static final List<AutoCloseable> opened = new ArrayList<>();

  @AfterAll
  static void stop() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
  }

  /** A query-service replica with its own Redis connection; AUTH takes the admin token for {@link #TENANT}. */
  private static RespServer replica() {
    ViewStore views = ViewStore.connect(Testkit.redis().uri());
    byte[] admin = SERVER.server().adminToken().getBytes(StandardCharsets.UTF_8);
    RespServer resp = new RespServer(views, RespServerOptions.defaults().withPort(0),
        new TransformViewSources(SERVER.server().transforms()),
        (user, token) -> user.equals(TENANT) && MessageDigest.isEqual(admin, token.getBytes(StandardCharsets.UTF_8))
            ? Optional.of(TENANT) : Optional.empty());
    resp.start();
    opened.add(views);
    opened.add(resp);
    return resp;
  }

  private static RawRespClient connect(RespServer replica) {
    RawRespClient client = new RawRespClient(replica.port());
    opened.add(client);
    assertThat(client.call("AUTH", TENANT, SERVER.server().adminToken())).isEqualTo("+OK\r\n");
    return client;
  }

  /**
   * The part of VIEW.INFO that only depends on the committed state (view, kind, phase, version, position,
   * events applied, backfill target), as raw RESP: the fields after it depend on the clock and on the ledger.
   */
  private static String position(RawRespClient client) {
    String info = client.call("VIEW.INFO", VIEW);
    int end = info.indexOf("source_events");
    assertThat(end).as(info).isPositive();
    return info.substring(0, end);
  }

  /** Every read of the view, as raw RESP replies. */
  private static String reads(RawRespClient client, List<String> keys) {
    StringBuilder out = new StringBuilder();
    for (String key : keys) {
      out.append(client.call("GET", VIEW + ":" + key)).append(client.call("HGETALL", VIEW + ":" + key));
    }
    List<String> mget = new ArrayList<>(List.of("MGET"));
    keys.forEach(k -> mget.add(VIEW + ":" + k));
    mget.add(VIEW + ":no-such-key");
    out.append(client.call(mget.toArray(String[]::new)));
    String cursor = "0";
    do {
      String page = client.call("SCAN", cursor, "MATCH", VIEW + ":*", "COUNT", "1000");
      out.append(page);
      // *2\r\n$<n>\r\n<cursor>\r\n...
      String[] lines = page.split("\r\n");
      cursor = lines[2];
    } while (!cursor.equals("0"));
    return out.toString();
  }

  /** Reads taken while the view stood at one position: the position, then the reads, then the same position. */
  private static Optional<String[]> stableReads(RawRespClient client, List<String> keys) {
    String before = position(client);
    String reads = reads(client, keys);
    return before.equals(position(client)) ? Optional.of(new String[] {before, reads}) : Optional.empty();
  }

  @Test
  void replicasAnswerTheSameAtTheSamePositionAndARestartedOneAtOnce() throws Exception {
    GRPC.createFlights("flights");
    List<Flights.Flight> flights = Flights.load(BACKFILL_EVENTS + UPDATE_REQUESTS * EVENTS_PER_UPDATE);
    GRPC.appendFlights("flights", flights.subList(0, BACKFILL_EVENTS));
    TransformServiceGrpc.newBlockingStub(SERVER.channel()).create(CreateTransformRequest.newBuilder()
        .setTenant(TENANT).setName(VIEW).setSql(Flights.DELAYS_BY_ORIGIN_SQL).build());
    GRPC.awaitLive(VIEW, BACKFILL_EVENTS);
    List<String> keys = new ArrayList<>(new TreeSet<>(flights.stream().map(Flights.Flight::origin).toList()))
        .subList(0, 5);

    RespServer a = replica();
    RespServer b = replica();
    RawRespClient clientA = connect(a);
    RawRespClient clientB = connect(b);

    // Updates in the background: one request every 400 ms, committed by the view job every 2 s (a round of reads
    // on both replicas takes a few hundred ms: VIEW.INFO asks the ledger for the source stream's event count).
    CompletableFuture<Void> updates = CompletableFuture.runAsync(() -> {
      for (int i = 0; i < UPDATE_REQUESTS; i++) {
        int from = BACKFILL_EVENTS + i * EVENTS_PER_UPDATE;
        GRPC.appendFlights("flights", flights.subList(from, from + EVENTS_PER_UPDATE));
        try {
          Thread.sleep(400); // paces the writer only; no assertion waits on it
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    });
    TreeSet<String> comparedPositions = new TreeSet<>();
    int rounds = 0;
    int stableA = 0;
    int stableB = 0;
    String lastA = "";
    String lastB = "";
    while (!updates.isDone()) {
      Optional<String[]> fromA = stableReads(clientA, keys);
      Optional<String[]> fromB = stableReads(clientB, keys);
      rounds++;
      stableA += fromA.isPresent() ? 1 : 0;
      stableB += fromB.isPresent() ? 1 : 0;
      lastA = fromA.map(r -> r[0]).orElse(lastA);
      lastB = fromB.map(r -> r[0]).orElse(lastB);
      if (fromA.isPresent() && fromB.isPresent() && fromA.get()[0].equals(fromB.get()[0])) {
        assertThat(fromB.get()[1]).as("replica B's reads at A's position " + fromA.get()[0]).isEqualTo(fromA.get()[1]);
        comparedPositions.add(fromA.get()[0]);
      }
    }
    updates.get(1, TimeUnit.MINUTES);
    System.out.printf("QueryReplicasIT: %d rounds, %d stable on A, %d on B, %d positions compared%n", rounds, stableA,
        stableB, comparedPositions.size());
    assertThat(comparedPositions).as("distinct positions compared while the view was updated (%d rounds, "
        + "%d stable on A, %d on B; last A %s, last B %s)", rounds, stableA, stableB, lastA, lastB).hasSizeGreaterThan(2);

    GRPC.awaitLive(VIEW, BACKFILL_EVENTS + UPDATE_REQUESTS * EVENTS_PER_UPDATE);
    String[] finalA = stableReads(clientA, keys).orElseThrow();
    // Restart B: a new replica with a new connection answers the same on its first reads.
    clientB.close();
    b.close();
    opened.remove(clientB);
    opened.remove(b);
    RespServer restarted = replica();
    RawRespClient clientC = connect(restarted);
    String[] fromC = stableReads(clientC, keys).orElseThrow();
    assertThat(fromC[0]).isEqualTo(finalA[0]);
    assertThat(fromC[1]).isEqualTo(finalA[1]);
    // and the server's own query-service agrees
    try (RawRespClient own = new RawRespClient(SERVER.server().respPort())) {
      assertThat(own.call("AUTH", TENANT, SERVER.server().adminToken())).isEqualTo("+OK\r\n");
      assertThat(stableReads(own, keys).orElseThrow()[1]).isEqualTo(finalA[1]);
    }
  }
}
