package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.ByteString;
import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ExportTrainingSetResponse;
import dev.streamfold.api.v1.GetTrainingSetRequest;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.JavaTransformation;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.TrainingSetProgress;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.e2e.folds.PacedFlightsByOrigin;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.pulsar.PulsarLedger;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.testkit.Airports;
import dev.streamfold.testkit.Flights;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewStore;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Exactly-once views across crashes (issue 3): the Streamfold server is a real process killed with
 * SIGKILL; every check compares the view with a plain fold of exactly the events up to the position the
 * view reports (for the view over two streams: the events its committed tick covers).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class CrashRecoveryIT {
  static PulsarLedger ledger;
  static ViewStore views;

  @BeforeAll
  static void connect() {
    ledger = PulsarLedger.connect(LedgerOptions.of(Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl()));
    views = ViewStore.connect(Testkit.redis().uri());
  }

  @AfterAll
  static void close() {
    views.close();
    ledger.close();
  }

  static StreamRef flights(String tenant) {
    StreamRef stream = new StreamRef(tenant, "flights");
    List<StreamColumn> columns = new ArrayList<>();
    Flights.COLUMNS.forEach(c -> columns.add(new StreamColumn(c.split(":")[0], c.split(":")[1])));
    ledger.createStream(stream, columns);
    return stream;
  }

  static List<MessageId> append(StreamRef stream, List<Flights.Flight> flights, int batch) {
    List<MessageId> ids = new ArrayList<>();
    for (int from = 0; from < flights.size(); from += batch) {
      List<EventEnvelope> events = new ArrayList<>();
      for (Flights.Flight f : flights.subList(from, Math.min(flights.size(), from + batch))) {
        events.add(new EventEnvelope(f.origin(), "flight", f.eventTimeMs(), f.json(), "", Map.of()));
      }
      ledger.append(stream, events).join().forEach(a -> ids.add(a.messageId()));
    }
    return ids;
  }

  /** A server process (not started) for the tenant, with its data directory {@code name} in the test kit's work directory. */
  static ServerProcess server(String tenant, String name) {
    return new ServerProcess(Testkit.workDir().resolve(name), Testkit.pulsar().serviceUrl(),
        Testkit.pulsar().adminUrl(), Testkit.redis().uri(), tenant);
  }

  static void createView(ServerProcess server, String tenant, String view, String sql) {
    TransformServiceGrpc.newBlockingStub(server.channel()).create(CreateTransformRequest.newBuilder()
        .setTenant(tenant).setName(view).setSql(sql).build());
  }

  static ViewStatus status(ServerProcess server, String tenant, String view) {
    return TransformServiceGrpc.newBlockingStub(server.channel()).withDeadlineAfter(10, TimeUnit.SECONDS)
        .status(GetTransformRequest.newBuilder().setTenant(tenant).setName(view).build());
  }

  static void awaitStatus(ServerProcess server, String tenant, String view,
      java.util.function.Predicate<ViewStatus> done) {
    java.util.concurrent.atomic.AtomicReference<ViewStatus> last = new java.util.concurrent.atomic.AtomicReference<>();
    try {
      Awaitility.await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(100))
          .ignoreException(StatusRuntimeException.class)
          .until(() -> {
            ViewStatus s = status(server, tenant, view);
            last.set(s);
            assertThat(s.getPhase()).as("view %s: %s", view, s.getError()).isNotEqualTo("FAILED");
            return done.test(s);
          });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("view " + view + " did not get there; last status: " + last.get(), e);
    }
  }

  /**
   * Check that the newest version of a view is the fold of exactly the events up to its position.
   *
   * @return the events applied
   */
  static long assertFoldUpToPosition(ViewName name, List<Flights.Flight> flights, List<MessageId> ids,
      Function<List<Flights.Flight>, Map<String, Map<String, String>>> oracle) {
    int version = views.latestVersion(name);
    ViewMetadata meta = views.metadata(name, version).orElseThrow();
    int applied = meta.position().isEmpty() ? 0 : ids.indexOf(meta.position().messageIds().get(0)) + 1;
    assertThat(applied).as("position " + meta.position().texts() + " is an appended message ID").isPositive();
    assertThat(meta.eventsApplied()).isEqualTo(applied);
    Map<String, Map<String, String>> expected = oracle.apply(flights.subList(0, applied));
    assertThat(meta.rows()).isEqualTo(expected.size());
    expected.forEach((key, row) -> {
      Map<String, String> actual = views.row(name, version, key).orElseThrow(() -> new AssertionError("no row " + key));
      row.forEach((column, value) -> {
        if (column.equals("avg_delay")) {
          assertThat(Double.parseDouble(actual.get(column))).as(key + "." + column)
              .isCloseTo(Double.parseDouble(value), within(1e-9));
        } else {
          assertThat(actual.get(column)).as(key + "." + column + " at " + applied + " events").isEqualTo(value);
        }
      });
    });
    return applied;
  }

  static Map<String, Map<String, String>> delays(List<Flights.Flight> flights) {
    Map<String, Map<String, String>> rows = new LinkedHashMap<>();
    Flights.delaysByOrigin(flights).forEach((origin, d) -> rows.put(origin, Map.of("origin", origin,
        "flights", Long.toString(d.flights()), "delayed", Long.toString(d.delayed()),
        "avg_delay", Double.toString(d.avgDelay()))));
    return rows;
  }

  static Map<String, Map<String, String>> flightsAndTotalDelay(List<Flights.Flight> flights) {
    Map<String, Map<String, String>> rows = new LinkedHashMap<>();
    Flights.delaysByOrigin(flights).forEach((origin, d) -> rows.put(origin, Map.of(
        "flights", Long.toString(d.flights()), "total_delay", Long.toString(d.delaySum()))));
    return rows;
  }

  /** A view over two streams: delays by state, each flight's origin airport's latest state (issue 26). */
  static final String DELAYS_BY_STATE = "SELECT a.state, SUM(f.n) AS flights, SUM(f.delay) AS delay"
      + " FROM (SELECT origin, COUNT(*) AS n, SUM(CAST(delay AS BIGINT)) AS delay FROM flights GROUP BY origin) f"
      + " JOIN (SELECT iata, LAST_VALUE(state) AS state FROM airports GROUP BY iata) a ON f.origin = a.iata"
      + " GROUP BY a.state";

  /** Append every airport to a new stream {@code airports} of the tenant; the message IDs in order. */
  static List<MessageId> airports(String tenant, List<Airports.Airport> airports) {
    StreamRef stream = new StreamRef(tenant, "airports");
    ledger.createStream(stream, Airports.COLUMNS.stream().map(c -> new StreamColumn(c.split(":")[0], c.split(":")[1]))
        .toList());
    List<MessageId> ids = new ArrayList<>();
    for (int from = 0; from < airports.size(); from += 500) {
      ledger.append(stream, airports.subList(from, Math.min(airports.size(), from + 500)).stream()
          .map(a -> new EventEnvelope(a.iata(), "airport", 1_000L, a.json(), "", Map.of())).toList()).join()
          .forEach(a -> ids.add(a.messageId()));
    }
    return ids;
  }

  /**
   * Check that the newest version of the two-stream view is the plain join and group-by of exactly the events its
   * committed tick covers, and that its position is that tick's own.
   *
   * @return the events applied
   */
  static long assertTwoStreamViewAtItsTick(ViewName name, List<Flights.Flight> flights, List<MessageId> flightIds,
      List<Airports.Airport> airports, List<MessageId> airportIds) {
    int version = views.latestVersion(name);
    ViewMetadata meta = views.metadata(name, version).orElseThrow();
    ClockPosition at = meta.clockPosition();
    assertThat(at.tick()).as("the two-stream view's committed tick").isPositive();
    Tick tick = ledger.ticks(name.tenant(), at.tick() - 1, 1).get(0);
    assertThat(at).as("the committed position is the tick's own").isEqualTo(ClockPosition.at(tick,
        List.of("airports", "flights")));
    Map<String, String> stateOf = new HashMap<>();
    long applied = 0;
    for (int i = 0; i < airports.size(); i++) {
      if (at.position("airports").reached(airportIds.get(i))) {
        stateOf.put(airports.get(i).iata(), airports.get(i).state());
        applied++;
      }
    }
    Map<String, long[]> expected = new HashMap<>();
    for (int i = 0; i < flightIds.size(); i++) {
      if (at.position("flights").reached(flightIds.get(i))) {
        applied++;
        String state = stateOf.get(flights.get(i).origin());
        if (state != null) {
          long[] row = expected.computeIfAbsent(state, s -> new long[2]);
          row[0]++;
          row[1] += flights.get(i).delay();
        }
      }
    }
    assertThat(meta.eventsApplied()).as("events applied at tick " + at.tick()).isEqualTo(applied);
    assertThat(meta.rows()).as("rows at tick " + at.tick()).isEqualTo(expected.size());
    expected.forEach((state, row) -> {
      Map<String, String> actual = views.row(name, version, state).orElseThrow(() -> new AssertionError("no row " + state));
      assertThat(actual.get("flights")).as(state + " flights at tick " + at.tick()).isEqualTo(Long.toString(row[0]));
      assertThat(actual.get("delay")).as(state + " delay at tick " + at.tick()).isEqualTo(Long.toString(row[1]));
    });
    return applied;
  }

  /**
   * A SQL view and a paced Java fold over the same stream. The first kill waits on the paced fold, whose backfill
   * of 180,000 events lasts at least 4.5 s, so it falls inside that backfill on any machine (the SQL view, at
   * 400,000 events/s, may already be LIVE); both must be exact prefixes at each kill and after each restart. A
   * training set with the paced fold as feature is being built at the first kill: nothing is ever under its final
   * name, and after the restart the build is reported FAILED with the reason and its temporary file is gone.
   */
  @Test
  void killedDuringBackfillAndDuringTheTailTheViewStaysTheFoldOfAnExactPrefix() throws Exception {
    String tenant = Testkit.uniqueName("crash");
    StreamRef stream = flights(tenant);
    List<Flights.Flight> all = Flights.load(Flights.FIXTURE_ROWS);
    List<MessageId> ids = new ArrayList<>(append(stream, all.subList(0, 180_000), 5_000));
    List<Airports.Airport> airportList = Airports.load();
    List<MessageId> airportIds = airports(tenant, airportList);
    ViewName byState = new ViewName(tenant, "delays_by_state");
    ViewName name = new ViewName(tenant, "delays_by_origin");
    ViewName paced = new ViewName(tenant, "paced_by_origin");
    try (ServerProcess server = server(tenant, "crash-server").start()) {
      createView(server, tenant, "delays_by_origin", Flights.DELAYS_BY_ORIGIN_SQL);
      TransformServiceGrpc.newBlockingStub(server.channel()).create(CreateTransformRequest.newBuilder()
          .setTenant(tenant).setName("paced_by_origin").setFold(JavaTransformation.newBuilder()
              .setJar(ByteString.copyFrom(PacedFlightsByOrigin.jar())).setClassName(PacedFlightsByOrigin.class.getName())
              .setStream("flights")).build());
      createView(server, tenant, "delays_by_state", DELAYS_BY_STATE);
      java.nio.file.Path trainingSet = Testkit.workDir().resolve("crash-out").resolve(tenant + ".parquet");
      startTrainingSet(server, tenant, trainingSet);
      awaitStatus(server, tenant, "paced_by_origin", s -> s.getEventsApplied() > 0);
      awaitStatus(server, tenant, "delays_by_state", s -> s.getEventsApplied() > 0);
      Awaitility.await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(5))
          .until(() -> java.nio.file.Files.exists(inProgress(trainingSet)));
      server.kill9();
      assertThat(trainingSet).as("a killed build's output under its final name").doesNotExist();
      assertTwoStreamViewAtItsTick(byState, all, ids, airportList, airportIds);
      assertFoldUpToPosition(name, all, ids, CrashRecoveryIT::delays);
      long atCrash = assertFoldUpToPosition(paced, all, ids, CrashRecoveryIT::flightsAndTotalDelay);
      assertThat(atCrash).as("the paced fold's events applied at the kill").isLessThan(180_000);

      server.start();
      TrainingSetProgress build = ReplayServiceGrpc.newBlockingStub(server.channel())
          .getTrainingSet(GetTrainingSetRequest.newBuilder().setTenant(tenant).setName("killed").build());
      assertThat(build.getPhase()).isEqualTo("FAILED");
      assertThat(build.getError()).contains("the server stopped during the build").contains(trainingSet.toString());
      assertThat(inProgress(trainingSet)).as("the partial file, deleted at restart").doesNotExist();
      assertThat(trainingSet).doesNotExist();
      awaitStatus(server, tenant, "delays_by_origin", s -> s.getPhase().equals("LIVE") && s.getEventsApplied() == 180_000);
      awaitStatus(server, tenant, "paced_by_origin", s -> s.getPhase().equals("LIVE") && s.getEventsApplied() == 180_000);
      awaitStatus(server, tenant, "delays_by_state", s -> s.getPhase().equals("LIVE")
          && s.getEventsApplied() == 180_000 + airportList.size());
      assertFoldUpToPosition(name, all, ids, CrashRecoveryIT::delays);
      assertFoldUpToPosition(paced, all, ids, CrashRecoveryIT::flightsAndTotalDelay);
      assertTwoStreamViewAtItsTick(byState, all, ids, airportList, airportIds);

      // kill during the tail, while events keep arriving
      CompletableFuture<List<MessageId>> tail = CompletableFuture.supplyAsync(() -> {
        List<MessageId> more = new ArrayList<>();
        for (int from = 180_000; from < 200_000; from += 500) {
          more.addAll(append(stream, all.subList(from, from + 500), 500));
          try {
            Thread.sleep(20); // paces the writer, so the kill falls while events keep arriving; nothing waits on it
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }
        return more;
      });
      awaitStatus(server, tenant, "delays_by_origin", s -> s.getEventsApplied() >= 185_000);
      server.kill9();
      ids.addAll(tail.get(2, TimeUnit.MINUTES));
      assertThat(assertTwoStreamViewAtItsTick(byState, all, ids, airportList, airportIds) - airportList.size())
          .isBetween(180_000L, 200_000L);
      long atSecondCrash = assertFoldUpToPosition(name, all, ids, CrashRecoveryIT::delays);
      assertThat(atSecondCrash).isBetween(180_000L, 200_000L);
      assertThat(assertFoldUpToPosition(paced, all, ids, CrashRecoveryIT::flightsAndTotalDelay)).isBetween(180_000L, 200_000L);

      server.start();
      awaitStatus(server, tenant, "delays_by_origin", s -> s.getEventsApplied() == 200_000);
      awaitStatus(server, tenant, "paced_by_origin", s -> s.getEventsApplied() == 200_000);
      assertThat(assertFoldUpToPosition(name, all, ids, CrashRecoveryIT::delays)).isEqualTo(200_000);
      assertThat(assertFoldUpToPosition(paced, all, ids, CrashRecoveryIT::flightsAndTotalDelay)).isEqualTo(200_000);
      awaitStatus(server, tenant, "delays_by_state", s -> s.getEventsApplied() == 200_000 + airportList.size());
      assertThat(assertTwoStreamViewAtItsTick(byState, all, ids, airportList, airportIds))
          .isEqualTo(200_000 + airportList.size());
    }
  }

  /** Start building training set {@code killed} (feature: the paced fold, so it lasts seconds) into {@code out}. */
  static void startTrainingSet(ServerProcess server, String tenant, java.nio.file.Path out) {
    ReplayServiceGrpc.newStub(server.channel()).exportTrainingSet(ExportTrainingSetRequest.newBuilder()
        .setTenant(tenant).setName("killed").setLabelStream("flights").setEntity("origin").setLabel("delay >= 15")
        .addFeatures("paced_by_origin.flights").setOut(out.toString()).build(), new io.grpc.stub.StreamObserver<>() {
          @Override public void onNext(ExportTrainingSetResponse r) {}

          @Override public void onError(Throwable t) {}

          @Override public void onCompleted() {}
        });
  }

  /** The temporary name of a training set's output while it is built. */
  static java.nio.file.Path inProgress(java.nio.file.Path out) {
    return out.resolveSibling("." + out.getFileName() + ".inprogress");
  }

  @Test
  void stateThatChangesOnlyOnAKeysFirstEventSurvivesARestart() {
    String tenant = Testkit.uniqueName("first");
    StreamRef stream = flights(tenant);
    List<Flights.Flight> all = Flights.load(10_000);
    List<MessageId> ids = new ArrayList<>(append(stream, all.subList(0, 5_000), 1_000));
    Function<List<Flights.Flight>, Map<String, Map<String, String>>> firstDestination = flights -> {
      Map<String, Map<String, String>> rows = new LinkedHashMap<>();
      flights.forEach(f -> rows.putIfAbsent(f.origin(), Map.of("origin", f.origin(), "first_destination", f.destination())));
      return rows;
    };
    ViewName name = new ViewName(tenant, "first_destinations");
    try (ServerProcess server = server(tenant, "first-server").start()) {
      createView(server, tenant, "first_destinations",
          "SELECT origin, FIRST_VALUE(destination) AS first_destination FROM flights GROUP BY origin");
      awaitStatus(server, tenant, "first_destinations", s -> s.getPhase().equals("LIVE") && s.getEventsApplied() == 5_000);
      server.kill9();
      server.start();
      ids.addAll(append(stream, all.subList(5_000, 10_000), 1_000));
      awaitStatus(server, tenant, "first_destinations", s -> s.getEventsApplied() == 10_000);
      assertThat(assertFoldUpToPosition(name, all, ids, firstDestination)).isEqualTo(10_000);
    }
  }

  @Test
  void retriedAppendsAcrossAServerKillAreStoredOnce() throws Exception {
    String tenant = Testkit.uniqueName("idem");
    StreamRef stream = new StreamRef(tenant, "payments");
    ledger.createStream(stream, List.of(new StreamColumn("n", "BIGINT")));
    Map<String, String> firstAnswer = new HashMap<>();
    try (ServerProcess server = server(tenant, "idem-server").start()) {
      // 1,000 appends in flight; the server is killed while they are being sent and acknowledged
      List<CompletableFuture<AppendResponse>> inFlight = new ArrayList<>();
      var async = IngestServiceGrpc.newFutureStub(server.channel());
      for (int i = 0; i < 1_000; i++) {
        inFlight.add(toCompletable(async.append(request(tenant, i))));
        if (i == 299) {
          CompletableFuture.allOf(inFlight.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        }
        if (i == 600) {
          server.kill9();
        }
      }
      for (int i = 0; i < 1_000; i++) {
        try {
          firstAnswer.put("pay-" + i, inFlight.get(i).get(30, TimeUnit.SECONDS).getMessageIds(0));
        } catch (Exception lost) {
          // unanswered: the client retries
        }
      }
      assertThat(firstAnswer.size()).as("some appends were answered before the kill").isPositive().isLessThan(1_000);
      server.start();
      var blocking = IngestServiceGrpc.newBlockingStub(server.channel());
      for (int retry = 0; retry < 3; retry++) {
        for (int i = 0; i < 1_000; i++) {
          AppendResponse response = blocking.append(request(tenant, i));
          String id = response.getMessageIds(0);
          String first = firstAnswer.putIfAbsent("pay-" + i, id);
          if (first != null) {
            assertThat(id).as("retry of pay-" + i).isEqualTo(first);
            assertThat(response.getRepeat(0)).isTrue();
          }
        }
      }
      // a batch [repeat, new, new] stores the two new events
      AppendResponse mixed = blocking.append(AppendRequest.newBuilder().setTenant(tenant).setStream("payments")
          .addEvents(request(tenant, 7).getEvents(0)).addEvents(request(tenant, 1_000).getEvents(0))
          .addEvents(request(tenant, 1_001).getEvents(0)).build());
      assertThat(mixed.getRepeatList()).containsExactly(true, false, false);
      assertThat(mixed.getMessageIds(0)).isEqualTo(firstAnswer.get("pay-7"));
    }
    assertThat(ledger.describe(stream).eventCount()).isEqualTo(1_002);
    assertThat(firstAnswer.values()).doesNotHaveDuplicates();
  }

  private static AppendRequest request(String tenant, int i) {
    return AppendRequest.newBuilder().setTenant(tenant).setStream("payments")
        .addEvents(Event.newBuilder().setKey("customer-" + (i % 13)).setIdempotencyKey("pay-" + i)
            .setPayloadJson("{\"n\":" + i + "}").setEventTimeMs(1_000 + i))
        .build();
  }

  private static <T> CompletableFuture<T> toCompletable(com.google.common.util.concurrent.ListenableFuture<T> future) {
    CompletableFuture<T> result = new CompletableFuture<>();
    future.addListener(() -> {
      try {
        result.complete(future.get());
      } catch (Exception e) {
        result.completeExceptionally(e);
      }
    }, Runnable::run);
    return result;
  }
}
