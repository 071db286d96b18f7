package dev.streamfold.transforms.grpc;

import dev.streamfold.api.v1.DropVirtualStateResponse;
import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ExportTrainingSetResponse;
import dev.streamfold.api.v1.GetTrainingSetRequest;
import dev.streamfold.api.v1.ListVirtualStatesRequest;
import dev.streamfold.api.v1.ListVirtualStatesResponse;
import dev.streamfold.api.v1.ReplayProgress;
import dev.streamfold.api.v1.ReplayRequest;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.ResumeRequest;
import dev.streamfold.api.v1.ResumeResponse;
import dev.streamfold.api.v1.RollbackRequest;
import dev.streamfold.api.v1.RollbackResponse;
import dev.streamfold.api.v1.TrainingSetProgress;
import dev.streamfold.api.v1.VirtualState;
import dev.streamfold.api.v1.VirtualStateRequest;
import dev.streamfold.ledger.grpc.GrpcReplies;
import dev.streamfold.transforms.ReplayCursor;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.VirtualStateStatus;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.transforms.training.TrainingSetStatus;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewPhase;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * gRPC {@code ReplayService} over the {@link TransformManager}: replays into virtual states (streaming their
 * progress), lists, describes and drops them, rolls views back and resumes them; builds point-in-time
 * training sets (streaming their progress, then optionally their rows). Owns one daemon thread that polls
 * the progress of watched replays and builds, and daemon threads that read finished training sets back;
 * close it with the server.
 */
public final class ReplayGrpcService extends ReplayServiceGrpc.ReplayServiceImplBase implements AutoCloseable {
  /** Interval between two progress messages of a {@code Replay} stream. */
  public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofMillis(200);
  /** Interval between two progress messages of an {@code ExportTrainingSet} stream. */
  public static final Duration TRAINING_SET_PROGRESS_INTERVAL = Duration.ofMillis(250);
  private static final Logger LOG = LoggerFactory.getLogger(ReplayGrpcService.class);

  private final TransformManager manager;
  private final Duration progressInterval;
  private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "replay-progress");
    t.setDaemon(true);
    return t;
  });
  private final ExecutorService rowSenders = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "training-set-rows");
    t.setDaemon(true);
    return t;
  });

  /**
   * Create the service with progress messages every {@link #DEFAULT_PROGRESS_INTERVAL}.
   *
   * @param manager the transform manager
   */
  public ReplayGrpcService(TransformManager manager) {
    this(manager, DEFAULT_PROGRESS_INTERVAL);
  }

  /**
   * Create the service.
   *
   * @param manager the transform manager
   * @param progressInterval interval between two progress messages of a replay stream, positive
   * @throws IllegalArgumentException if the interval is not positive
   */
  public ReplayGrpcService(TransformManager manager, Duration progressInterval) {
    this.manager = Objects.requireNonNull(manager, "manager");
    if (progressInterval.isNegative() || progressInterval.isZero()) {
      throw new IllegalArgumentException("progressInterval must be positive, got " + progressInterval);
    }
    this.progressInterval = progressInterval;
  }

  @Override
  public void replay(ReplayRequest request, StreamObserver<ReplayProgress> response) {
    long startedNanos = System.nanoTime();
    VirtualStateStatus first;
    try {
      first = manager.replay(request.getTenant(), request.getView(), fromCursor(request.getFrom()),
          toCursor(request.getTo(), !request.getBefore()), Optional.of(request.getAs()).filter(s -> !s.isBlank()));
    } catch (RuntimeException e) {
      response.onError(toStatus(e));
      return;
    }
    Watch watch = new Watch(response, request.getTenant(), proto(first).getName(), startedNanos, request.getDetach());
    watch.step(first);
    watch.pollAtTheEnd();
  }

  /** Follows one replay and streams its progress until it is COMPLETE or FAILED, or the call is cancelled. */
  private final class Watch {
    private final StreamObserver<ReplayProgress> response;
    private final ServerCallStreamObserver<ReplayProgress> call;
    private final String tenant;
    private final String name;
    private final long startedNanos;
    private final boolean detach;
    private volatile boolean cancelled;
    private volatile boolean finished;
    private VirtualState last;

    Watch(StreamObserver<ReplayProgress> response, String tenant, String name, long startedNanos, boolean detach) {
      this.response = response;
      this.call = response instanceof ServerCallStreamObserver<ReplayProgress> c ? c : null;
      this.tenant = tenant;
      this.name = name;
      this.startedNanos = startedNanos;
      this.detach = detach;
      if (call != null) {
        call.setOnCancelHandler(() -> cancelled = true);
      }
    }

    /** Poll once more as soon as the replay has ended (on the poller thread), not at the next interval. */
    void pollAtTheEnd() {
      try {
        manager.replayEnded(tenant, name).thenRunAsync(this::poll, poller);
      } catch (RejectedExecutionException closing) {
        // the interval's poll says so
      }
    }

    /** Send the state if it changed; finish on a terminal phase; else poll again after the interval. */
    void step(VirtualStateStatus status) {
      if (finished) {
        return;
      }
      VirtualState state = proto(status);
      String phase = state.getPhase();
      if (phase.equals(ViewPhase.FAILED.name())) {
        finished = true;
        response.onError(Status.ABORTED.withDescription("replay of virtual state '" + name + "' FAILED: "
            + state.getError()).asRuntimeException());
        return;
      }
      boolean terminal = detach || phase.equals(ViewPhase.COMPLETE.name());
      if (terminal || !state.equals(last) && (call == null || call.isReady())) {
        response.onNext(ReplayProgress.newBuilder().setState(state)
            .setElapsedMs(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos)).build());
        last = state;
      }
      if (terminal) {
        finished = true;
        response.onCompleted();
        return;
      }
      try {
        poller.schedule(this::poll, progressInterval.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        response.onError(Status.UNAVAILABLE.withDescription("the server is shutting down; the replay of '" + name
            + "' may go on: follow it with GetVirtualState").asRuntimeException());
      }
    }

    private void poll() {
      if (cancelled || finished) {
        return;
      }
      VirtualStateStatus status;
      try {
        status = manager.virtualState(tenant, name);
      } catch (RuntimeException e) {
        LOG.debug("watching replay {}/{} failed", tenant, name, e);
        response.onError(toStatus(e));
        return;
      }
      try {
        step(status);
      } catch (RuntimeException e) { // e.g. the call was cancelled between the check and onNext
        LOG.debug("cannot send the progress of replay {}/{}", tenant, name, e);
      }
    }
  }

  @Override
  public void listVirtualStates(ListVirtualStatesRequest request, StreamObserver<ListVirtualStatesResponse> response) {
    reply(response, () -> {
      ListVirtualStatesResponse.Builder b = ListVirtualStatesResponse.newBuilder();
      manager.virtualStates(request.getTenant()).forEach(s -> b.addStates(proto(s)));
      return b.build();
    });
  }

  @Override
  public void getVirtualState(VirtualStateRequest request, StreamObserver<VirtualState> response) {
    reply(response, () -> proto(manager.virtualState(request.getTenant(), request.getName())));
  }

  @Override
  public void dropVirtualState(VirtualStateRequest request, StreamObserver<DropVirtualStateResponse> response) {
    reply(response, () -> {
      if (!manager.dropVirtualState(request.getTenant(), request.getName())) {
        throw new TransformException.VirtualStateNotFound(request.getTenant(), request.getName());
      }
      return DropVirtualStateResponse.newBuilder().setDropped(true).build();
    });
  }

  @Override
  public void rollback(RollbackRequest request, StreamObserver<RollbackResponse> response) {
    reply(response, () -> {
      if (request.getState().isBlank()) {
        throw new IllegalArgumentException("field 'state' is required: the virtual state to serve in place of view '"
            + request.getView() + "'");
      }
      manager.rollback(request.getTenant(), request.getView(), request.getState());
      return RollbackResponse.newBuilder()
          .setState(proto(manager.virtualState(request.getTenant(), request.getState()))).build();
    });
  }

  @Override
  public void resume(ResumeRequest request, StreamObserver<ResumeResponse> response) {
    reply(response, () -> ResumeResponse.newBuilder()
        .setResumed(manager.resume(request.getTenant(), request.getView())).build());
  }

  @Override
  public void exportTrainingSet(ExportTrainingSetRequest request, StreamObserver<ExportTrainingSetResponse> response) {
    TrainingSetExport.run(manager, poller, rowSenders, TRAINING_SET_PROGRESS_INTERVAL, request, response);
  }

  @Override
  public void getTrainingSet(GetTrainingSetRequest request, StreamObserver<TrainingSetProgress> response) {
    reply(response, () -> {
      TrainingSetStatus status;
      try {
        status = manager.trainingSet(request.getTenant(), request.getName());
      } catch (TransformException.InvalidTrainingSet unknown) {
        throw new TrainingSetNotFound(unknown.getMessage());
      }
      long end = status.finishedAtMs() > 0 ? status.finishedAtMs() : System.currentTimeMillis();
      return TrainingSetExport.progress(status, Math.max(0, end - status.startedAtMs()));
    });
  }

  /** GetTrainingSet of a name with no build since the server started: NOT_FOUND, with the manager's message. */
  private static final class TrainingSetNotFound extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TrainingSetNotFound(String message) {
      super(message);
    }
  }

  /** Stop watching replays and training-set builds (they go on in the manager) and stop streaming rows. */
  @Override
  public void close() {
    poller.shutdownNow();
    rowSenders.shutdownNow();
  }

  /**
   * Parse the {@code from} field.
   *
   * @param text "" for the earliest event, else a message ID or an event time
   * @return the cursor, empty for the earliest event
   * @throws IllegalArgumentException if the text is not a cursor (the message names the field and the forms)
   */
  static Optional<ReplayCursor> fromCursor(String text) {
    if (text.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.of(ReplayCursor.parse(text, true));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("field 'from': " + e.getMessage(), e);
    }
  }

  /**
   * Parse the {@code to} field.
   *
   * @param text a message ID, an event time or "latest"
   * @param inclusive false for {@code before}
   * @return the cursor
   * @throws IllegalArgumentException if the text is empty or not a cursor (the message names the field)
   */
  static ReplayCursor toCursor(String text, boolean inclusive) {
    if (text.isBlank()) {
      throw new IllegalArgumentException("field 'to' is required: a message ID (ledgerId:entryId:partition:batchIndex),"
          + " an event time or 'latest'");
    }
    try {
      return ReplayCursor.parse(text, inclusive);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("field 'to': " + e.getMessage(), e);
    }
  }

  private static <T> void reply(StreamObserver<T> response, Supplier<T> call) {
    GrpcReplies.reply(response, call, ReplayGrpcService::toStatus);
  }

  static io.grpc.StatusRuntimeException toStatus(RuntimeException e) {
    if (e instanceof TrainingSetNotFound) {
      return Status.NOT_FOUND.withDescription(e.getMessage()).asRuntimeException();
    }
    return TransformStatus.toStatus(e);
  }

  /**
   * Convert a virtual state and its progress.
   *
   * @param s the state
   * @return its wire form; phase STARTING before the replay's first commit
   */
  static VirtualState proto(VirtualStateStatus s) {
    dev.streamfold.views.VirtualState state = s.state();
    VirtualState.Builder b = VirtualState.newBuilder()
        .setTenant(state.name().tenant()).setName(state.name().view()).setSourceView(state.sourceView())
        .setTransformVersion(state.transformVersion()).setSql(state.sql()).setStart(state.start())
        .setStop(state.stop()).setFullHistory(state.fullHistory()).setCreatedAtMs(state.createdAtMs())
        .addAllRolledBackViews(s.rolledBackViews()).setStalled(s.stalled())
        .setPhase(s.progress().map(ViewMetadata::phase).orElse(ViewPhase.STARTING).name());
    s.progress().ifPresent(m -> b.setEventsApplied(m.eventsApplied()).setTargetEvents(m.backfillTargetEvents())
        .addAllPosition(m.position().texts()).setClockPosition(m.clockPosition().toString()).setRows(m.rows())
        .setUpdatedAtMs(m.updatedAtMs()).setError(m.error()));
    return b.build();
  }
}
