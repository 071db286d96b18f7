package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamfold.api.v1.GetRowRequest;
import dev.streamfold.api.v1.GetRowResponse;
import dev.streamfold.api.v1.ViewServiceGrpc;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.StoredEvent;
import dev.streamfold.ledger.clock.TickIndex;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A tenant's clock across two server processes that ingest into the tenant, each into its own stream: the server
 * that writes the clock is killed with SIGKILL while both streams receive events, the other takes over, and the
 * recorded ticks stay one sequence that covers every acknowledged event once and nothing else; then a view over both
 * streams is exact, and waits for either stream's message IDs (issue 26).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ClockFailoverIT {

  /**
   * Append flights to a stream through one server, 200 a request, over and over until told to stop or a request
   * fails (the server was killed); each acknowledged message ID goes to {@code acknowledged}.
   */
  private static CompletableFuture<Void> appendUntil(GrpcClients grpc, String stream, List<Flights.Flight> flights,
      AtomicBoolean stop, List<MessageId> acknowledged) {
    return CompletableFuture.runAsync(() -> {
      for (int from = 0; !stop.get(); from = (from + 200) % (flights.size() - 200)) {
        grpc.appendFlights(stream, flights.subList(from, from + 200)).forEach(id -> acknowledged.add(MessageId.parse(id)));
      }
    });
  }

  @Test
  void theStandbyServerTakesOverTheClockWhenTheWriterIsKilledAndNoTickIsLostOrRewritten() throws Exception {
    String tenant = Testkit.uniqueName("clockfail");
    List<Flights.Flight> flights = Flights.load(60_000);
    try (PulsarLedger reader = PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(),
             Testkit.pulsar().adminUrl()));
         ServerProcess first = CrashRecoveryIT.server(tenant, "clock-first");
         ServerProcess second = CrashRecoveryIT.server(tenant, "clock-second")) {
      reader.ensureTenant(tenant);
      first.start();
      GrpcClients viaFirst = new GrpcClients(first::channel, tenant);
      viaFirst.createFlights("west");
      List<MessageId> westIds = java.util.Collections.synchronizedList(new ArrayList<>());
      List<MessageId> eastIds = java.util.Collections.synchronizedList(new ArrayList<>());
      viaFirst.appendFlights("west", flights.subList(0, 1_000)).forEach(id -> westIds.add(MessageId.parse(id)));
      // only the first server runs yet: it writes the clock
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> reader.lastTick(tenant).isPresent());
      second.start();
      GrpcClients viaSecond = new GrpcClients(second::channel, tenant);
      viaSecond.createFlights("east");

      AtomicBoolean stopWest = new AtomicBoolean();
      AtomicBoolean stopEast = new AtomicBoolean();
      CompletableFuture<Void> west = appendUntil(viaFirst, "west", flights.subList(1_000, 30_000), stopWest, westIds);
      CompletableFuture<Void> east = appendUntil(viaSecond, "east", flights.subList(30_000, 60_000), stopEast, eastIds);
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> reader.lastTick(tenant)
          .filter(t -> !t.position("east").isEmpty()).isPresent());
      long beforeKill = reader.lastTick(tenant).orElseThrow().number();
      first.kill9(); // the clock's writer dies while both streams receive events
      stopWest.set(true);
      west.handle((done, failed) -> null).get(2, TimeUnit.MINUTES); // a request in flight failed with the server
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> reader.lastTick(tenant).orElseThrow().number()
          > beforeKill + 5); // the second server writes now: ticks go on while east receives events
      stopEast.set(true);
      east.get(2, TimeUnit.MINUTES);

      MessageId lastEast = eastIds.get(eastIds.size() - 1);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> reader.lastTick(tenant).orElseThrow()
          .covers("east", lastEast));
      List<Tick> ticks = reader.ticks(tenant, 0, 1_000_000);
      TickIndex index = new TickIndex(ticks); // one sequence: consecutive numbers, never covering less
      assertThat(ticks.get(0).number()).isEqualTo(1);
      assertThat(ticks.get(ticks.size() - 1).number()).isGreaterThan(beforeKill + 5);
      eastIds.forEach(id -> assertThat(index.firstCovering("east", id)).as("east " + id).isPresent());
      westIds.forEach(id -> assertThat(index.firstCovering("west", id)).as("west " + id).isPresent());
      // nothing beyond what the ledger holds: the last tick's positions are the streams' last events
      Tick last = ticks.get(ticks.size() - 1);
      assertThat(last.position("east").messageIds()).containsExactly(lastEast);
      List<MessageId> westStored = new ArrayList<>();
      reader.read(new StreamRef(tenant, "west"), Optional.empty(), 100_000, 30_000).forEach(e -> westStored.add(e.messageId()));
      assertThat(last.position("west").messageIds()).containsExactly(westStored.get(westStored.size() - 1));
      assertThat(westStored).containsAll(westIds);

      assertAViewOverBothStreamsIsExactAndWaitsForEitherStreamsMessageIds(second, tenant, reader,
          westStored.get(westStored.size() - 1), lastEast, flights);
    }
  }

  /**
   * A view over both streams, created on the server that survived: {@code VIEW.WAIT} and gRPC {@code GetRow} wait
   * for the last message ID of either stream (the first tick covering it), refuse one of a stream the view does not
   * read, and the view then equals a plain group-by of every event the ledger holds in both streams.
   */
  private static void assertAViewOverBothStreamsIsExactAndWaitsForEitherStreamsMessageIds(ServerProcess server,
      String tenant, PulsarLedger ledger, MessageId lastWest, MessageId lastEast, List<Flights.Flight> flights)
      throws Exception {
    CrashRecoveryIT.createView(server, tenant, "by_origin", "SELECT origin, COUNT(*) AS flights, SUM(delay) AS delay"
        + " FROM (SELECT origin, delay FROM west UNION ALL SELECT origin, delay FROM east) GROUP BY origin");
    GrpcClients grpc = new GrpcClients(server::channel, tenant);
    grpc.createFlights("north");
    MessageId north = MessageId.parse(grpc.appendFlights("north", flights.subList(0, 1)).get(0));
    RedisClient redis = RedisClient.create(server.respUri());
    try (StatefulRedisConnection<String, String> resp = redis.connect()) {
      // VIEW.WAIT for east's last event (the job starts and backfills first: the wait may time out once)
      Awaitility.await().atMost(Duration.ofMinutes(3)).until(() -> viewWait(resp, "by_origin", lastEast, 60_000) == 1);
      assertThat(viewWait(resp, "by_origin", lastWest, 0)).as("west's last event, covered by an earlier tick")
          .isEqualTo(1);
      assertThatThrownBy(() -> viewWait(resp, "by_origin", north, 1_000)).isInstanceOf(RedisCommandExecutionException.class)
          .hasMessageContaining("message ID " + north + " is in none of the streams view 'by_origin' reads");
      GetRowResponse row = ViewServiceGrpc.newBlockingStub(server.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
          .getRow(GetRowRequest.newBuilder().setTenant(tenant).setView("by_origin").setKey(flights.get(0).origin())
              .setWaitForMessageId(lastEast.toString()).setWaitTimeoutMs(10_000).build());
      assertThat(row.getFound()).isTrue();
      assertThat(row.getClockPosition()).as("a view over several streams reflects a tick").matches("[0-9]+ east=.* west=.*");

      Map<String, long[]> expected = new TreeMap<>(); // origin -> flights, delay: a plain group-by of the ledger
      ObjectMapper json = new ObjectMapper();
      for (String stream : List.of("west", "east")) {
        Optional<MessageId> after = Optional.empty();
        for (List<StoredEvent> page; !(page = ledger.read(new StreamRef(tenant, stream), after, 10_000, 30_000)).isEmpty(); ) {
          for (StoredEvent event : page) {
            JsonNode flight = json.readTree(event.event().payloadJson());
            long[] sums = expected.computeIfAbsent(flight.get("origin").asText(), o -> new long[2]);
            sums[0]++;
            sums[1] += flight.get("delay").asLong();
          }
          after = Optional.of(page.get(page.size() - 1).messageId());
        }
      }
      Map<String, Map<String, String>> rows = new TreeMap<>();
      for (String origin : expected.keySet()) {
        rows.put(origin, resp.sync().hgetall("by_origin:" + origin));
      }
      expected.forEach((origin, sums) -> {
        assertThat(rows.get(origin)).as(origin).containsEntry("flights", Long.toString(sums[0]))
            .containsEntry("delay", Long.toString(sums[1]));
      });
      assertThat(grpc.status("by_origin").getRows()).as("rows").isEqualTo(expected.size());
    } finally {
      redis.shutdown();
    }
  }

  /** VIEW.WAIT over RESP: 1 when reached, 0 on timeout. */
  private static long viewWait(StatefulRedisConnection<String, String> resp, String view, MessageId id, long timeoutMs) {
    return ViewCommands.viewWait(resp, view, id.toString(), timeoutMs);
  }

}
