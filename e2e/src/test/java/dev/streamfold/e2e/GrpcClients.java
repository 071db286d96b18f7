package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.testkit.Flights;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.awaitility.Awaitility;

/**
 * The gRPC calls the end-to-end ITs make again and again, on a channel that sends the token with every call
 * ({@link TestAuth#bearer}): blocking stubs with deadlines, a stream of flights, appends of flights, and waits on
 * a view's status. Every request names the tenant given (empty: the token's own tenant). The channel is asked
 * for at each call, so one of these outlives a server restarted with a new channel.
 */
final class GrpcClients {
  private final Supplier<? extends Channel> channel;
  private final String tenant;

  /**
   * @param channel the channel of each call, with the token
   * @param tenant the tenant every request names
   */
  GrpcClients(Supplier<? extends Channel> channel, String tenant) {
    this.channel = channel;
    this.tenant = tenant;
  }

  /** StreamAdmin, with a deadline of 1 minute a call. */
  StreamAdminGrpc.StreamAdminBlockingStub admin() {
    return StreamAdminGrpc.newBlockingStub(channel.get()).withDeadlineAfter(1, TimeUnit.MINUTES);
  }

  /** IngestService, with a deadline of 1 minute a call. */
  IngestServiceGrpc.IngestServiceBlockingStub ingest() {
    return IngestServiceGrpc.newBlockingStub(channel.get()).withDeadlineAfter(1, TimeUnit.MINUTES);
  }

  /** TransformService, with a deadline of 1 minute a call. */
  TransformServiceGrpc.TransformServiceBlockingStub transforms() {
    return TransformServiceGrpc.newBlockingStub(channel.get()).withDeadlineAfter(1, TimeUnit.MINUTES);
  }

  /** ReplayService, with a deadline of 2 minutes a call (a replay streams its progress until it completes). */
  ReplayServiceGrpc.ReplayServiceBlockingStub replays() {
    return ReplayServiceGrpc.newBlockingStub(channel.get()).withDeadlineAfter(2, TimeUnit.MINUTES);
  }

  /** A flight as an event: keyed by its origin, of type {@code flight}, at its event time. */
  static Event flight(Flights.Flight f) {
    return Event.newBuilder().setKey(f.origin()).setType("flight").setEventTimeMs(f.eventTimeMs())
        .setPayloadJson(f.json()).build();
  }

  /** Create a stream with the flights' columns ({@link Flights#COLUMNS}). */
  void createFlights(String stream) {
    CreateStreamRequest.Builder request = CreateStreamRequest.newBuilder().setTenant(tenant).setName(stream);
    for (String c : Flights.COLUMNS) {
      request.addColumns(Column.newBuilder().setName(c.split(":")[0]).setType(c.split(":")[1]));
    }
    admin().createStream(request.build());
  }

  /**
   * Append flights in one request.
   *
   * @return the message IDs of the events, in order
   */
  List<String> appendFlights(String stream, List<Flights.Flight> flights) {
    AppendRequest.Builder request = AppendRequest.newBuilder().setTenant(tenant).setStream(stream);
    flights.forEach(f -> request.addEvents(flight(f)));
    return ingest().append(request.build()).getMessageIdsList();
  }

  /** The status of a view. */
  ViewStatus status(String view) {
    return transforms().status(GetTransformRequest.newBuilder().setTenant(tenant).setName(view).build());
  }

  /** Wait (at most 3 minutes) until the view is LIVE with exactly {@code events} applied; fail at once if it FAILED. */
  void awaitLive(String view, long events) {
    awaitView(view, Duration.ofMinutes(3), s -> s.getPhase().equals("LIVE") && s.getEventsApplied() == events);
  }

  /**
   * Poll the view's status every 250 ms until {@code done} holds; fail at once if the view FAILED (with its error),
   * and after {@code atMost}.
   */
  void awaitView(String view, Duration atMost, Predicate<ViewStatus> done) {
    Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(250)).until(() -> {
      ViewStatus s = status(view);
      assertThat(s.getPhase()).as(view + ": " + s.getError()).isNotEqualTo("FAILED");
      return done.test(s);
    });
  }

  /** Assert that the call fails with the status code and a description that contains {@code messagePart}. */
  static void assertStatus(Runnable call, Status.Code code, String messagePart) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(code);
      assertThat(e.getStatus().getDescription()).contains(messagePart);
    });
  }
}
