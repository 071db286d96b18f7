package dev.streamfold.query.grpc;

import dev.streamfold.api.v1.GetRowRequest;
import dev.streamfold.api.v1.GetRowResponse;
import dev.streamfold.api.v1.ViewServiceGrpc;
import dev.streamfold.core.MessageId;
import dev.streamfold.query.ReadYourWrites;
import dev.streamfold.query.ViewSources;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewReader;
import dev.streamfold.views.ViewStore;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * gRPC {@code ViewService}: reads rows of views and virtual states through the same {@link ViewReader} as
 * the RESP server, with the position they reflect, and waits for a message ID first when asked (the same
 * rules as RESP's {@code VIEW.WAIT}, see {@link ReadYourWrites}). Waits poll on one daemon thread and never
 * hold a gRPC thread; close the service with the server.
 */
public final class ViewGrpcService extends ViewServiceGrpc.ViewServiceImplBase implements AutoCloseable {
  /** Interval between two checks of a waiting read. */
  public static final Duration DEFAULT_WAIT_POLL_INTERVAL = Duration.ofMillis(20);
  /** Longest {@code wait_timeout_ms} accepted (as RESP's VIEW.WAIT). */
  public static final long MAX_WAIT_MS = 60_000;
  /** Reads retried when a commit lands between the metadata and the row. */
  static final int CONSISTENT_READ_ATTEMPTS = 5;

  private final ViewReader reader;
  private final ViewSources sources;
  private final Clock clock;
  private final Duration pollInterval;
  private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "view-read-wait");
    t.setDaemon(true);
    return t;
  });

  /**
   * Create the service.
   *
   * @param reader where rows are read; the caller keeps ownership
   */
  public ViewGrpcService(ViewReader reader) {
    this(reader, ViewSources.UNKNOWN);
  }

  /**
   * Create the service.
   *
   * @param reader where rows are read
   * @param sources which stream of a view's a message ID to wait for belongs to (views over several streams)
   */
  public ViewGrpcService(ViewReader reader, ViewSources sources) {
    this(reader, sources, Clock.systemUTC(), DEFAULT_WAIT_POLL_INTERVAL);
  }

  /**
   * Create the service with a clock and poll interval (tests).
   *
   * @param reader where rows are read
   * @param sources which stream of a view's a message ID to wait for belongs to (views over several streams)
   * @param clock time source of waits
   * @param pollInterval interval between two checks of a waiting read, positive
   * @throws IllegalArgumentException if the interval is not positive
   */
  public ViewGrpcService(ViewReader reader, ViewSources sources, Clock clock, Duration pollInterval) {
    this.reader = Objects.requireNonNull(reader, "reader");
    this.sources = Objects.requireNonNull(sources, "sources");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (pollInterval.isNegative() || pollInterval.isZero()) {
      throw new IllegalArgumentException("pollInterval must be positive, got " + pollInterval);
    }
    this.pollInterval = pollInterval;
  }

  @Override
  public void getRow(GetRowRequest request, StreamObserver<GetRowResponse> response) {
    ViewName name;
    MessageId target = null;
    try {
      name = viewName(request);
      if (!request.getWaitForMessageId().isBlank()) {
        try {
          target = ReadYourWrites.parseMessageId(request.getWaitForMessageId().trim());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("field 'wait_for_message_id': " + e.getMessage(), e);
        }
        if (request.getWaitTimeoutMs() < 0 || request.getWaitTimeoutMs() > MAX_WAIT_MS) {
          throw new IllegalArgumentException("field 'wait_timeout_ms' must be 0.." + MAX_WAIT_MS + " ms, got "
              + request.getWaitTimeoutMs());
        }
      }
    } catch (RuntimeException e) {
      response.onError(toStatus(e));
      return;
    }
    if (target == null) {
      answer(response, name, request.getKey());
      return;
    }
    new Wait(response, name, request, target, clock.millis() + request.getWaitTimeoutMs()).check();
  }

  /** One read waiting for a message ID: checks now, then every poll interval until reached or the deadline. */
  private final class Wait {
    private final StreamObserver<GetRowResponse> response;
    private final ViewName name;
    private final GetRowRequest request;
    private final MessageId target;
    private final long deadlineMs;
    private volatile boolean cancelled;

    Wait(StreamObserver<GetRowResponse> response, ViewName name, GetRowRequest request, MessageId target,
        long deadlineMs) {
      this.response = response;
      this.name = name;
      this.request = request;
      this.target = target;
      this.deadlineMs = deadlineMs;
      if (response instanceof ServerCallStreamObserver<GetRowResponse> call) {
        call.setOnCancelHandler(() -> cancelled = true);
      }
    }

    void check() {
      if (cancelled) {
        return;
      }
      boolean reached;
      try {
        reached = ReadYourWrites.check(reader, sources, name, target);
      } catch (RuntimeException e) {
        response.onError(toStatus(e));
        return;
      }
      if (reached) {
        answer(response, name, request.getKey());
        return;
      }
      if (clock.millis() >= deadlineMs) {
        String position = reader.metadata(name).map(m -> m.position().toString()).orElse("none");
        response.onError(Status.DEADLINE_EXCEEDED.withDescription("view '" + name.view() + "' did not apply message ID "
            + request.getWaitForMessageId().trim() + " within " + request.getWaitTimeoutMs() + " ms (its position: "
            + position + ")").asRuntimeException());
        return;
      }
      try {
        poller.schedule(this::check, pollInterval.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        response.onError(Status.UNAVAILABLE.withDescription("the server is shutting down").asRuntimeException());
      }
    }
  }

  private void answer(StreamObserver<GetRowResponse> response, ViewName name, String key) {
    GetRowResponse reply;
    try {
      reply = read(name, key);
    } catch (RuntimeException e) {
      response.onError(toStatus(e));
      return;
    }
    response.onNext(reply);
    response.onCompleted();
  }

  /**
   * Read a row with the position it reflects. The metadata of what reads return is read before and after
   * the row; when a commit or a rollback lands in between, the read is retried (at most
   * {@value #CONSISTENT_READ_ATTEMPTS} times, then the later metadata is reported), so the position is the
   * row's exact position but on a view that commits faster than a read takes.
   */
  GetRowResponse read(ViewName name, String key) {
    for (int attempt = 1; ; attempt++) {
      Optional<ViewName> rolledBack = reader.rollbackTarget(name);
      Optional<ViewMetadata> before = reader.metadata(name);
      if (before.isEmpty()) {
        throw new NotServed(name, reader.virtualState(name).isPresent() || reader.schema(name).isPresent());
      }
      Optional<Map<String, String>> row = reader.row(name, key);
      Optional<ViewName> rolledBackAfter = reader.rollbackTarget(name);
      Optional<ViewMetadata> after = reader.metadata(name);
      boolean same = rolledBack.equals(rolledBackAfter) && after.isPresent()
          && before.get().version() == after.get().version()
          && before.get().eventsApplied() == after.get().eventsApplied()
          && before.get().position().equals(after.get().position())
          && before.get().clockPosition().equals(after.get().clockPosition());
      if (same || attempt >= CONSISTENT_READ_ATTEMPTS) {
        ViewMetadata m = same ? before.get() : after.orElse(before.get());
        Optional<ViewName> target = same ? rolledBack : rolledBackAfter;
        // rolled back: the transformation version the served virtual state was replayed with, not its storage
        // version 1 (as VIEW.INFO reports it)
        int version = target.flatMap(reader::virtualState).map(dev.streamfold.views.VirtualState::transformVersion)
            .orElse(m.version());
        GetRowResponse.Builder b = GetRowResponse.newBuilder().setFound(row.isPresent())
            .addAllPosition(m.position().texts()).setClockPosition(m.clockPosition().toString())
            .setVersion(version).setPhase(m.phase().name())
            .setReadFrom(target.orElse(name).view()).setRolledBackTo(target.map(ViewName::view).orElse(""));
        row.ifPresent(b::putAllRow);
        return b.build();
      }
    }
  }

  /** A view or virtual state that serves no rows (yet), or does not exist. */
  static final class NotServed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final boolean exists;

    NotServed(ViewName name, boolean exists) {
      super(exists ? "'" + name.view() + "' serves no rows yet (a new view still backfilling its first version,"
          + " or a virtual state still replaying; follow it with VIEW.INFO " + name.view() + ")"
          : "no such view or virtual state '" + name.view() + "' in tenant '" + name.tenant() + "'");
      this.exists = exists;
    }
  }

  private static ViewName viewName(GetRowRequest request) {
    if (request.getView().isBlank()) {
      throw new IllegalArgumentException("field 'view' is required");
    }
    try {
      return new ViewName(request.getTenant(), request.getView());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException((e.getMessage().startsWith("invalid tenant") ? "field 'tenant': "
          : "field 'view': ") + e.getMessage(), e);
    } catch (NullPointerException e) {
      throw new IllegalArgumentException("fields 'tenant' and 'view' are required", e);
    }
  }

  /**
   * Map an error to a gRPC status; the description is the error's message.
   *
   * @param e the error
   * @return INVALID_ARGUMENT for malformed input, NOT_FOUND for an unknown view, FAILED_PRECONDITION for a
   *     wait that can never succeed or a view that serves no rows yet, UNAVAILABLE when the view store
   *     fails (Redis), INTERNAL otherwise
   */
  static StatusRuntimeException toStatus(RuntimeException e) {
    Status status;
    if (e instanceof StatusRuntimeException sre) {
      return sre;
    } else if (e instanceof IllegalArgumentException) {
      status = Status.INVALID_ARGUMENT;
    } else if (e instanceof ReadYourWrites.NoSuchView || e instanceof NotServed n && !n.exists) {
      status = Status.NOT_FOUND;
    } else if (e instanceof ReadYourWrites.Unreachable || e instanceof NotServed) {
      status = Status.FAILED_PRECONDITION;
    } else if (ViewStore.isRedisFailure(e)) {
      return Status.UNAVAILABLE.withDescription(ViewStore.describeRedisFailure(e)).withCause(e).asRuntimeException();
    } else {
      status = Status.INTERNAL;
    }
    return status.withDescription(String.valueOf(e.getMessage())).withCause(e).asRuntimeException();
  }

  @Override
  public void close() {
    poller.shutdownNow();
  }
}
