package dev.streamfold.transforms.replay;

import dev.streamfold.core.ClientText;
import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.MessageIdLocator;
import dev.streamfold.ledger.StoredEvent;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.ReplayCursor;
import dev.streamfold.transforms.ServedTransforms;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.TransformOptions;
import dev.streamfold.transforms.VirtualStateStatus;
import dev.streamfold.transforms.fold.FoldJarStore;
import dev.streamfold.transforms.job.ReplayBound;
import dev.streamfold.transforms.job.ViewJobBuilder;
import dev.streamfold.transforms.job.ViewJobSpec;
import dev.streamfold.transforms.runtime.CheckpointStore;
import dev.streamfold.transforms.runtime.FlinkCluster;
import dev.streamfold.transforms.runtime.JobFailures;
import dev.streamfold.transforms.runtime.StallDetector;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewSchema;
import dev.streamfold.views.ViewStore;
import dev.streamfold.views.ViewWriter;
import dev.streamfold.views.VirtualState;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays and virtual states: replays a view's transformation over a range of the ledger into a named,
 * read-only virtual state (a bounded Flink job running the view's served SQL or fold, the view job's code
 * path), follows each replay to COMPLETE or FAILED and checks it against the ledger, describes and drops virtual
 * states, and rolls views back to them and forward again. Cursor semantics are in {@link ReplayCursor}. The
 * caller serializes the methods that change state ({@code replay}, {@code dropVirtualState}, {@code rollback},
 * {@code resume}) with the view lifecycle.
 */
public final class ReplayManager {
  private static final Logger LOG = LoggerFactory.getLogger(ReplayManager.class);

  private final Ledger ledger;
  private final ViewStore views;
  private final TransformOptions options;
  private final FlinkCluster cluster;
  private final ServedTransforms served;
  private final FoldJarStore jars;
  private final EventLocator locator;
  private final TickStops tickStops;
  private final StallDetector stalls;
  private final Executor callbacks;
  private final Clock clock;
  private final Path replaysDir;
  /** Running replay jobs by virtual state. */
  private final Map<ViewName, JobID> replays = new ConcurrentHashMap<>();
  private final Map<ViewName, CompletableFuture<Void>> replayEnds = new ConcurrentHashMap<>();

  /**
   * @param ledger the views' source streams
   * @param views where virtual states are kept
   * @param options Redis URI, data directory (replays' scratch under {@code <dataDir>/replays}), checkpoint
   *     interval and parallelism of the replay jobs
   * @param cluster where the replay jobs run
   * @param served the views' served definitions
   * @param jars the jars of Java transformations
   * @param locator resolves message-ID cursors
   * @param streamsOfIds which stream of a view over several streams a message-ID cursor names (shared, it keeps
   *     the segments it has seen)
   * @param stalls says why a replay looks stuck
   * @param callbacks runs the end-of-replay work (the state's phase, cleanup)
   * @param clock the virtual states' creation and commit times
   */
  public ReplayManager(Ledger ledger, ViewStore views, TransformOptions options, FlinkCluster cluster,
      ServedTransforms served, FoldJarStore jars, EventLocator locator, MessageIdLocator streamsOfIds,
      StallDetector stalls, Executor callbacks, Clock clock) {
    this.ledger = ledger;
    this.tickStops = new TickStops(ledger, streamsOfIds);
    this.views = views;
    this.options = options;
    this.cluster = cluster;
    this.served = served;
    this.jars = jars;
    this.locator = locator;
    this.stalls = stalls;
    this.callbacks = callbacks;
    this.clock = clock;
    this.replaysDir = options.dataDir().toAbsolutePath().resolve("replays");
  }

  /**
   * Mark the tenant's unfinished replays FAILED: a replay cannot continue after a restart (its job is gone).
   * Call once at start, before any replay runs.
   *
   * @param tenant tenant name
   */
  public void failInterrupted(String tenant) {
    for (String name : views.views(tenant)) {
      try {
        ViewName state = new ViewName(tenant, name);
        if (views.virtualState(state).isEmpty()) {
          continue;
        }
        Optional<ViewMetadata> meta = views.metadata(state, 1);
        if (meta.isPresent() && meta.get().phase() != ViewPhase.COMPLETE && meta.get().phase() != ViewPhase.FAILED) {
          views.fail(state, 1, "the replay was interrupted by a server restart: drop the virtual state and replay again");
        }
      } catch (RuntimeException e) {
        LOG.warn("cannot check virtual state {}/{}", tenant, name, e);
      }
    }
  }

  /**
   * Replay a view's transformation over a range of the ledger into a new virtual state: a named,
   * read-only view as of an exact position (cursor semantics in {@link ReplayCursor}). Validates the
   * cursors, registers the state, and starts a bounded Flink job running the view's served SQL (the same
   * code path as the view job) from the earliest event (or {@code from}) up to the stop; returns at once.
   * Follow its progress with {@link #virtualState}: BACKFILLING while it runs, then COMPLETE (served,
   * read as {@code <name>:<key>}) or FAILED. A completed replay is checked: the events it applied must
   * equal the ledger's count up to a message-ID stop (the appender's sequence ids are the events'
   * ordinals), else it is marked FAILED.
   *
   * @param tenant tenant name
   * @param view the view (transformation) to replay
   * @param from where to start, or empty for the earliest event (a full-history state)
   * @param to where to stop ({@code inclusive} false for {@code --before})
   * @param as the virtual state's name; empty for the position form {@code <view>@<message ID>}, which
   *     exists only for a full-history replay to a message ID or to latest (resolved to its message ID)
   * @return the new virtual state
   * @throws TransformException.NotFound if the view does not exist
   * @throws TransformException.InvalidReplay if a message ID is not in the stream (the message names the
   *     stream and its first and latest message IDs), the start is after the stop, or a name is needed
   * @throws TransformException.VirtualStateExists if the name is taken
   * @throws IllegalArgumentException if the name is malformed
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public VirtualStateStatus replay(String tenant, String view, Optional<ReplayCursor> from,
      ReplayCursor to, Optional<String> as) {
    long t0 = System.nanoTime();
    TransformDefinition definition = served.get(tenant, view);
    if (definition.readsInClockOrder()) {
      return replayClocked(definition, from, to, as);
    }
    if (from.map(c -> c.kind() == ReplayCursor.Kind.TICK).orElse(false)) {
      throw new TransformException.InvalidReplay("--from takes a message ID or an event time, not a tick");
    }
    StreamRef stream = new StreamRef(tenant, definition.sourceStream());
    StreamInfo info = ledger.describe(stream);
    if (to.kind() == ReplayCursor.Kind.TICK) {
      to = tickStops.streamStopAt(stream, info, to);
    }
    long described = System.nanoTime();
    if (from.isPresent() && from.get().kind() == ReplayCursor.Kind.LATEST) {
      throw new TransformException.InvalidReplay("--from takes a message ID or an event time, not 'latest'");
    }
    if (from.isPresent() && from.get().kind() == ReplayCursor.Kind.EVENT_TIME && to.kind() == ReplayCursor.Kind.EVENT_TIME
        && (from.get().eventTimeMs() > to.eventTimeMs() || from.get().eventTimeMs() == to.eventTimeMs() && !to.inclusive())) {
      // The start is the first event (in ledger order) at or after its time, which is past the stop time, and the
      // stop ends the range before the first event past its time: the range is empty whatever the ledger holds.
      throw new TransformException.InvalidReplay("the start (" + from.get().describe("from") + ") is after the stop ("
          + to.describe(to.inclusive() ? "to" : "before") + "): nothing to replay");
    }
    if (info.partitioned()) {
      return replayPartitioned(definition, stream, info, from, to, as);
    }
    return replayUnpartitioned(definition, stream, info, from, to, as, t0, described);
  }

  /**
   * A replay of a view over several streams, read in the tenant clock's order: the full history up to a tick
   * ({@code tick:N}, {@code --before tick:N} is up to tick N - 1; a message ID of one of its streams: the first tick
   * covering it; a time: the last tick recorded at or before it; or latest: the clock's last tick when the replay
   * starts: {@link TickStops}). The virtual state equals the view at that tick: the SQL over exactly the events the
   * tick covers. A completed replay is checked: its committed position must be the tick's own, else it is FAILED.
   */
  private VirtualStateStatus replayClocked(TransformDefinition definition, Optional<ReplayCursor> from, ReplayCursor to,
      Optional<String> as) {
    String tenant = definition.tenant();
    String view = definition.name();
    String streams = "view '" + view + "' reads " + (definition.readsSeveralStreams() ? "several streams "
        + definition.streams() : "stream '" + definition.sourceStream() + "' (its windows span partitions)");
    if (from.isPresent()) {
      throw new TransformException.InvalidReplay(streams + ": its replays start at the earliest event (--from is not"
          + " supported for views over several streams yet)");
    }
    Tick tick = tickStops.stopOf(definition, to, streams);
    long stop = tick.number();
    ViewName target = plainName(tenant, as, streams + ", and its replay stops at a tick, which has no"
        + " <view>@<message ID> name", "views over one unpartitioned stream");
    String name = target.view();
    ClockPosition position = ClockPosition.at(tick, definition.streams());
    Map<String, List<StreamColumn>> columns = new java.util.TreeMap<>();
    Map<String, Long> delays = new java.util.TreeMap<>();
    long eventsNow = 0;
    for (String stream : definition.streams()) {
      StreamInfo info = ledger.describe(new StreamRef(tenant, stream));
      columns.put(stream, info.columns());
      delays.put(stream, info.watermarkDelayMs());
      eventsNow += info.eventCount();
    }
    long targetEvents = eventsNow; // an upper bound: the events in the streams now
    VirtualState state = new VirtualState(target, view, definition.version(), definition.logic(), "",
        ReplayCursor.tick(stop, true).describe("to"), clock.millis());
    views.defineVirtualState(state, schema(definition));
    try (ViewWriter writer = views.writer(target, 1)) {
      writer.commit(Map.of(), List.of(), ViewWriter.Progress.clocked(ViewPhase.BACKFILLING, 0, ClockPosition.START,
          targetEvents, position), clock.millis());
    }
    if (stop == 0) {
      views.completeVirtualState(target); // tick 0 covers nothing: the empty state is exact
      return virtualState(tenant, name);
    }
    Path scratch = replaysDir.resolve(UUID.randomUUID().toString());
    ViewJobSpec spec = ViewJobSpec.builder(definition)
        .clockedStreams(columns, delays)
        .ledger(ledger.serviceUrl(), ledger.adminUrl())
        .redisUri(options.redisUri())
        .checkpoints(scratch.toUri().toString(), options.checkpointInterval())
        .parallelism(options.parallelism())
        .build();
    JobGraph graph = plannedReplay(target, definition, new StreamRef(tenant, definition.sourceStream()),
        () -> ViewJobBuilder.buildClockedReplay(spec, target, position, targetEvents));
    VirtualStateStatus status = runReplay(tenant, name, target, definition, graph, null, null, scratch,
        applied -> applied.clockPosition().equals(position) ? null : "the replay ended at position "
            + applied.clockPosition() + ", not at tick " + stop + "'s " + position);
    LOG.info("replay {} of view {} to tick {} started ({} events in its streams now)", target, view, stop, targetEvents);
    return status;
  }

  /**
   * A replay of a view over an unpartitioned stream: its cursors are message IDs, event times or latest, and a
   * replay to a message ID (or latest) from the earliest event may take the position form of name.
   *
   * @param t0 when the request began, for the log of where its time went ({@link System#nanoTime})
   * @param described when the stream was described ({@link System#nanoTime})
   */
  private VirtualStateStatus replayUnpartitioned(TransformDefinition definition, StreamRef stream, StreamInfo info,
      Optional<ReplayCursor> from, ReplayCursor to, Optional<String> as, long t0, long described) {
    String tenant = definition.tenant();
    String view = definition.name();
    if (to.kind() == ReplayCursor.Kind.POSITION || from.map(c -> c.kind() == ReplayCursor.Kind.POSITION).orElse(false)) {
      throw new TransformException.InvalidReplay("stream " + stream + " is not partitioned: give one message ID,"
          + " not a position vector");
    }
    Optional<StoredEvent> start = from.filter(c -> c.kind() == ReplayCursor.Kind.MESSAGE)
        .map(c -> locator.locate(stream, info, c.messageId().get()));
    Optional<StoredEvent> stop = to.kind() == ReplayCursor.Kind.MESSAGE
        ? Optional.of(locator.locate(stream, info, to.messageId().get()))
        : to.kind() == ReplayCursor.Kind.LATEST && info.latest().isPresent()
            ? Optional.of(locator.locate(stream, info, info.latest().get())) : Optional.empty();
    long located = System.nanoTime();
    if (start.isPresent() && stop.isPresent() && (start.get().sequence() > stop.get().sequence()
        || start.get().sequence() == stop.get().sequence() && !to.inclusive())) {
      throw new TransformException.InvalidReplay("the start " + start.get().messageId()
          + (to.inclusive() ? " is after the stop " : " is not before the stop (--before) ")
          + stop.get().messageId() + " in stream " + stream + ": nothing to replay");
    }
    String name = as.filter(n -> !n.isBlank()).orElseGet(() -> {
      if (from.isEmpty() && to.inclusive() && stop.isPresent()) {
        return view + "@" + stop.get().messageId();
      }
      throw new TransformException.InvalidReplay("name the virtual state with --as (only a full-history replay"
          + " --to a message ID or latest gets the default name <view>@<message ID>)");
    });
    ViewName target = new ViewName(tenant, name);
    if (target.isPositionForm()) {
      // The position form is a promise: VIEW@ID is VIEW's full history up to and including ID.
      String expected = from.isEmpty() && to.inclusive() && stop.isPresent() ? view + "@" + stop.get().messageId() : null;
      if (!name.equals(expected)) {
        throw new TransformException.InvalidReplay("the name '" + name + "' is the position form <view>@<message ID>,"
            + " which only names a full-history replay of that view --to that message ID"
            + (expected == null ? "" : " (here: " + expected + ")") + "; choose a plain name with --as");
      }
    }
    checkNameFree(target);
    // Events the replay must apply: exact for message-ID cursors (sequence ids are ordinals), else an upper bound.
    long first = start.map(StoredEvent::sequence).orElse(0L);
    long end = stop.map(e -> e.sequence() + (to.inclusive() ? 1 : 0)).orElse(info.eventCount());
    boolean exact = stop.isPresent() && from.map(c -> c.kind() == ReplayCursor.Kind.MESSAGE).orElse(true);
    long targetEvents = Math.max(0, end - first);
    MessageId readThrough = stop.map(StoredEvent::messageId).or(info::latest).orElse(null);
    VirtualState state = new VirtualState(target, view, definition.version(), definition.logic(),
        from.map(c -> c.describe("from")).orElse(""), to.describe(to.inclusive() ? "to" : "before"),
        clock.millis());
    views.defineVirtualState(state, schema(definition));
    try (ViewWriter writer = views.writer(target, 1)) {
      writer.commit(Map.of(), List.of(), new ViewWriter.Progress(ViewPhase.BACKFILLING, 0, PositionVector.EMPTY,
          targetEvents, readThrough == null ? PositionVector.EMPTY : PositionVector.of(List.of(readThrough))),
          clock.millis());
    }
    long defined = System.nanoTime();
    if (readThrough == null || (exact && targetEvents == 0)) {
      views.completeVirtualState(target); // nothing to read: the empty state is exact
      LOG.info("virtual state {} is empty ({} over an empty range)", target, state.stop());
      return virtualState(tenant, name);
    }
    ReplayBound bound = new ReplayBound(start.map(e -> e.messageId().toString()).orElse(null),
        from.filter(c -> c.kind() == ReplayCursor.Kind.EVENT_TIME).map(ReplayCursor::eventTimeMs).orElse(Long.MIN_VALUE),
        stop.map(e -> e.messageId().toString()).orElse(null), to.inclusive(),
        to.kind() == ReplayCursor.Kind.EVENT_TIME ? to.eventTimeMs() : Long.MAX_VALUE, to.inclusive());
    String run = UUID.randomUUID().toString();
    String subscription = "streamfold-replay-" + run;
    Path scratch = replaysDir.resolve(run);
    JobGraph graph = plannedReplay(target, definition, stream, () -> ViewJobBuilder.buildReplay(
        jobSpec(definition, info, stream, scratch), target, subscription, bound, List.of(readThrough), targetEvents));
    long built = System.nanoTime();
    long expected = exact ? targetEvents : -1;
    VirtualStateStatus status = runReplay(tenant, name, target, definition, graph, stream, subscription, scratch,
        applied -> {
          long events = applied.eventsApplied();
          return expected >= 0 && events != expected
              ? "the replay applied " + events + " events but the ledger holds " + expected + " in its range" : null;
        });
    long submitted = System.nanoTime();
    LOG.info("replay {} of {} events started in {} ms: stream described {} ms, cursors located {} ms, virtual state"
        + " defined {} ms, SQL planned and job built {} ms, job submitted {} ms", target, targetEvents,
        (submitted - t0) / 1_000_000, (described - t0) / 1_000_000, (located - described) / 1_000_000,
        (defined - located) / 1_000_000, (built - defined) / 1_000_000, (submitted - built) / 1_000_000);
    return status;
  }

  /**
   * Plan a replay's job. The view's SQL is planned against the stream's current columns, so it fails when a
   * column the view uses was removed since (or came back otherwise). Then the virtual state just defined is
   * removed again (it stayed BACKFILLING with nothing running, and blocked its name) and the caller gets a
   * FAILED_PRECONDITION naming the cause instead of an internal error.
   *
   * @throws TransformException.Conflict if the SQL no longer plans against the stream
   */
  private JobGraph plannedReplay(ViewName target, TransformDefinition definition, StreamRef stream,
      Supplier<JobGraph> build) {
    try {
      return build.get();
    } catch (RuntimeException e) {
      try {
        views.drop(target);
      } catch (RuntimeException dropFailed) {
        LOG.warn("cannot remove virtual state {} after its replay failed to plan", target, dropFailed);
      }
      throw new TransformException.Conflict("view '" + definition.name() + "' (version " + definition.version()
          + ") cannot be replayed: its transformation does not plan against the current columns of stream '"
          + stream.stream() + "' (" + ClientText.shorten(JobFailures.rootMessage(e)) + "); if a column it"
          + " uses was removed since, bring it back as it was (stream schema update)");
    }
  }

  /**
   * Submit a replay job and follow it to COMPLETE or FAILED.
   *
   * @param stream the stream whose replay subscription is deleted at the end (null with {@code subscription})
   * @param subscription the replay's Pulsar subscription, or null when it reads without one (several streams)
   * @param check the completed replay's metadata to the reason it is wrong, or null when it is right
   */
  private VirtualStateStatus runReplay(String tenant, String name, ViewName target, TransformDefinition definition,
      JobGraph graph, StreamRef stream, String subscription, Path scratch,
      Function<ViewMetadata, String> check) {
    jars.attach(graph, List.of(definition));
    try {
      cluster.submitJob(graph).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      views.fail(target, 1, "cannot submit the replay job: " + e.getMessage());
      throw new TransformException("cannot submit the replay job of " + target + ": " + e.getMessage(), e);
    }
    JobID id = graph.getJobID();
    CompletableFuture<Void> ended = new CompletableFuture<>();
    replayEnds.put(target, ended);
    replays.put(target, id);
    cluster.requestJobResult(id).whenCompleteAsync((result, error) -> {
      try {
        if (!id.equals(replays.remove(target))) {
          return; // dropped on purpose
        }
        String cause = error != null ? error.getMessage()
            : result.getSerializedThrowable().map(t -> JobFailures.rootCause(t.getFullStringifiedStackTrace())).orElse(null);
        if (cause == null) {
          Optional<ViewMetadata> done = views.metadata(target, 1);
          cause = done.isEmpty() ? "the replay's virtual state has no metadata" : check.apply(done.get());
        }
        if (cause == null) {
          views.completeVirtualState(target);
          LOG.info("virtual state {} is complete", target);
        } else {
          LOG.error("replay {} failed: {}", target, cause);
          views.fail(target, 1, cause);
        }
      } catch (RuntimeException e) {
        LOG.warn("cannot record the end of replay {}", target, e);
      } finally {
        replayEnds.remove(target, ended);
        ended.complete(null); // recorded: wake the progress streams before the cleanup below
        CheckpointStore.deleteLocalDir(scratch);
        try {
          if (subscription != null) {
            ledger.deleteSubscription(stream, subscription);
          }
        } catch (RuntimeException e) {
          LOG.warn("cannot delete replay subscription {}", subscription, e);
        }
      }
    }, callbacks);
    return virtualState(tenant, name);
  }

  /**
   * A replay of a view over a partitioned stream. Ledger order exists within each partition only, so every
   * cursor is applied partition by partition: a stop is a position vector (one message ID per partition;
   * a partition it does not list contributes nothing), {@code latest} (the latest position vector when the
   * replay starts) or an event time (each partition stops at its own first event past T); a start is an
   * event time (each partition starts at its own first event at or after T). A completed replay to a
   * position vector (inclusive) or to latest is checked: its committed position must equal the stop vector,
   * partition by partition, else it is FAILED.
   */
  private VirtualStateStatus replayPartitioned(TransformDefinition definition, StreamRef stream, StreamInfo info,
      Optional<ReplayCursor> from, ReplayCursor to, Optional<String> as) {
    String tenant = definition.tenant();
    if (from.isPresent() && from.get().kind() != ReplayCursor.Kind.EVENT_TIME) {
      throw new TransformException.InvalidReplay("stream " + stream + " has " + info.partitions() + " partitions, which"
          + " have no common order of message IDs: --from takes an event time there (each partition starts at its first"
          + " event at or after it)");
    }
    List<MessageId> stops = new ArrayList<>();
    switch (to.kind()) {
      case MESSAGE -> throw new TransformException.InvalidReplay("stream " + stream + " has " + info.partitions()
          + " partitions" + (to.messageId().get().partition() >= info.partitions() || to.messageId().get().partition() < 0
              ? " (0 to " + (info.partitions() - 1) + "; message ID " + to.messageId().get() + " names partition "
                  + to.messageId().get().partition() + ")" : "")
          + ": a single message ID names one partition's position only; stop at a position vector (one"
          + " message ID per partition, joined by ',', as VIEW.INFO reports a view's position; latest: "
          + info.latestPosition() + "), at latest, or at an event time");
      case POSITION -> {
        List<MessageId> ids = to.position();
        for (MessageId id : ids) {
          if (id.partition() < 0 || id.partition() >= info.partitions()) {
            throw new TransformException.InvalidReplay("message ID " + id + " names partition " + id.partition()
                + ", but stream " + stream + " has partitions 0 to " + (info.partitions() - 1) + " (latest position "
                + info.latestPosition() + ")");
          }
          stops.add(locator.locate(stream, info, id).messageId());
        }
      }
      case LATEST -> stops.addAll(info.latestPositions());
      case EVENT_TIME -> { }
    }
    stops.sort(Comparator.comparingInt(MessageId::partition));
    ViewName target = plainName(tenant, as, "a replay of a partitioned stream stops at a position vector, which has"
        + " no <view>@<message ID> name (to roll back to it: replay --as NAME, then rollback VIEW --state NAME)",
        "unpartitioned streams");
    String name = target.view();
    boolean messageStop = to.kind() != ReplayCursor.Kind.EVENT_TIME;
    List<MessageId> readThrough = messageStop ? stops : info.latestPositions();
    String stopText = String.join(",", stops.stream().map(Object::toString).toList());
    // "to latest" is recorded as the vector it stood for, so the state says where it stops and can be rebuilt
    String stopDescription = to.kind() == ReplayCursor.Kind.LATEST && !stops.isEmpty()
        ? "to " + stopText + " (latest when replayed)" : to.describe(to.inclusive() ? "to" : "before");
    VirtualState state = new VirtualState(target, definition.name(), definition.version(), definition.logic(),
        from.map(c -> c.describe("from")).orElse(""), stopDescription, clock.millis());
    views.defineVirtualState(state, schema(definition));
    try (ViewWriter writer = views.writer(target, 1)) {
      writer.commit(Map.of(), List.of(), new ViewWriter.Progress(ViewPhase.BACKFILLING, 0, PositionVector.EMPTY,
          info.eventCount(), PositionVector.of(readThrough)), clock.millis());
    }
    if (readThrough.isEmpty()) {
      views.completeVirtualState(target); // nothing to read: the empty state is exact
      LOG.info("virtual state {} is empty ({} over an empty range)", target, state.stop());
      return virtualState(tenant, name);
    }
    ReplayBound bound = new ReplayBound(null,
        from.map(ReplayCursor::eventTimeMs).orElse(Long.MIN_VALUE),
        messageStop ? stopText : null, to.inclusive(),
        to.kind() == ReplayCursor.Kind.EVENT_TIME ? to.eventTimeMs() : Long.MAX_VALUE, to.inclusive());
    String run = UUID.randomUUID().toString();
    String subscription = "streamfold-replay-" + run;
    Path scratch = replaysDir.resolve(run);
    JobGraph graph = plannedReplay(target, definition, stream, () -> ViewJobBuilder.buildReplay(
        jobSpec(definition, info, stream, scratch), target, subscription, bound, readThrough, info.eventCount()));
    boolean exact = messageStop && to.inclusive() && from.isEmpty();
    Set<String> expected = new HashSet<>(stops.stream().map(Object::toString).toList());
    return runReplay(tenant, name, target, definition, graph, stream, subscription, scratch, done -> {
      Set<String> reached = new HashSet<>(done.position().texts());
      return exact && !reached.equals(expected)
          ? "the replay stopped at " + done.position() + " but its stop is " + stopText : null;
    });
  }

  /**
   * When the replay into a virtual state ends: completes once its job has ended and the state is recorded
   * COMPLETE or FAILED, so followers need not wait for their next poll.
   *
   * @param tenant tenant name
   * @param name the virtual state
   * @return a future completed on the end of its running replay, or already completed when none runs
   */
  public CompletableFuture<Void> replayEnded(String tenant, String name) {
    return replayEnds.getOrDefault(new ViewName(tenant, name), CompletableFuture.completedFuture(null));
  }

  /**
   * Describe a virtual state and its progress.
   *
   * @throws TransformException.VirtualStateNotFound if {@code name} is not a virtual state
   */
  public VirtualStateStatus virtualState(String tenant, String name) {
    ViewName target = new ViewName(tenant, name);
    VirtualState state = views.virtualState(target)
        .orElseThrow(() -> new TransformException.VirtualStateNotFound(tenant, name));
    List<String> rolledBack = new ArrayList<>();
    for (String view : served.names(tenant)) {
      if (views.rollbackTarget(new ViewName(tenant, view)).map(target::equals).orElse(false)) {
        rolledBack.add(view);
      }
    }
    Optional<ViewMetadata> progress = views.metadata(target, 1);
    String stalled = "";
    if (progress.isPresent() && replays.containsKey(target)) {
      try {
        StreamRef stream = new StreamRef(tenant, served.get(tenant, state.sourceView()).sourceStream());
        stalled = stalls.stalled(stream, progress.get(), state.createdAtMs(), "replay");
      } catch (TransformException.NotFound deleted) {
        // its view is gone: nothing says which stream it reads
      }
    }
    return new VirtualStateStatus(state, progress, rolledBack, stalled);
  }

  /** List a tenant's virtual states, by name. */
  public List<VirtualStateStatus> virtualStates(String tenant) {
    List<VirtualStateStatus> states = new ArrayList<>();
    for (String name : views.views(tenant)) {
      if (views.virtualState(new ViewName(tenant, name)).isPresent()) {
        states.add(virtualState(tenant, name));
      }
    }
    return states;
  }

  /**
   * Remove a virtual state (stopping its replay if it still runs).
   *
   * @return true when it existed
   * @throws TransformException.Conflict if a view is rolled back to it (resume the view first)
   */
  public boolean dropVirtualState(String tenant, String name) {
    ViewName target = new ViewName(tenant, name);
    if (views.virtualState(target).isEmpty()) {
      return false;
    }
    List<String> rolledBack = virtualState(tenant, name).rolledBackViews();
    if (!rolledBack.isEmpty()) {
      throw new TransformException.Conflict("virtual state '" + name + "' serves reads of " + rolledBack
          + " (rolled back); resume first: streamfold resume " + rolledBack.get(0));
    }
    JobID id = replays.remove(target);
    if (id != null) {
      // Wait for the job to end, not only for the cancel to be acknowledged: a late commit of the
      // cancelled job must not land after the drop (and into a new state of the same name).
      try {
        cluster.cancelJob(id).get(60, TimeUnit.SECONDS);
        cluster.requestJobResult(id).get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("cancelling replay {} failed", target, e);
      }
    }
    views.drop(target);
    return true;
  }

  /**
   * Roll a view back: its reads return a complete, full-history virtual state of it until {@link #resume}.
   * The switch is one Redis write, atomic for readers. The view's job keeps running underneath, so the
   * live state stays current and resume is instant, and appends are never held back.
   *
   * @param tenant tenant name
   * @param view the view
   * @param state the virtual state to serve (replayed from this view, from the earliest event)
   * @throws TransformException.NotFound if the view does not exist
   * @throws TransformException.VirtualStateNotFound if the state does not exist
   * @throws TransformException.Conflict if the state is of another view, does not start at the earliest
   *     event, or is not complete
   */
  public void rollback(String tenant, String view, String state) {
    TransformDefinition definition = served.get(tenant, view);
    VirtualStateStatus status = virtualState(tenant, state);
    if (!status.state().sourceView().equals(view)) {
      throw new TransformException.Conflict("virtual state '" + state + "' was replayed from view '"
          + status.state().sourceView() + "', not '" + view + "'");
    }
    if (!status.state().fullHistory()) {
      throw new TransformException.Conflict("virtual state '" + state + "' starts " + status.state().start()
          + ", not at the earliest event: it is not the view as of any position");
    }
    if (!status.state().sql().equals(definition.logic())) {
      throw new TransformException.Conflict("virtual state '" + state + "' was replayed with another transformation"
          + " (version " + status.state().transformVersion() + ": other SQL or Java fold) than view '" + view
          + "' serves now (version " + definition.version() + "); replay it with the current one under another name"
          + " (streamfold replay " + view + " --to " + (definition.readsInClockOrder() ? "tick:N" : "<message ID>")
          + " --as NAME) and roll back to that");
    }
    ViewPhase phase = status.progress().map(ViewMetadata::phase).orElse(ViewPhase.STARTING);
    if (phase != ViewPhase.COMPLETE) {
      throw new TransformException.Conflict("virtual state '" + state + "' is " + phase
          + (phase == ViewPhase.FAILED ? " (" + status.progress().get().error() + ")" : " (still replaying)")
          + "; a view can be rolled back only to a complete state");
    }
    views.rollback(new ViewName(tenant, definition.name()), new ViewName(tenant, state));
  }

  /**
   * Point a rolled-back view's reads at its live state again (one Redis write, atomic for readers).
   *
   * @return true when the view was rolled back, false when it already served its live state
   * @throws TransformException.NotFound if the view does not exist
   */
  public boolean resume(String tenant, String view) {
    return views.resume(new ViewName(tenant, served.get(tenant, view).name()));
  }

  /** The job of a replay of {@code definition} over {@code stream}, checkpointing to its scratch directory. */
  private ViewJobSpec jobSpec(TransformDefinition definition, StreamInfo info, StreamRef stream, Path scratch) {
    return ViewJobSpec.builder(definition)
        .stream(info.columns(), stream.topic(), info.partitions(), info.watermarkDelayMs())
        .ledger(ledger.serviceUrl(), ledger.adminUrl())
        .redisUri(options.redisUri())
        .checkpoints(scratch.toUri().toString(), options.checkpointInterval())
        .parallelism(options.parallelism())
        .build();
  }

  /**
   * The name of a virtual state that has no position form: given with {@code --as}, not of the form
   * {@code <view>@<message ID>}, and free.
   *
   * @param whyNamed why the replay needs {@code --as}, for the error when it is missing
   * @param positionFormNames whose replays the position form names, for the error when it is used
   * @throws TransformException.InvalidReplay if the name is missing or of the position form
   * @throws TransformException.VirtualStateExists if it is taken
   */
  private ViewName plainName(String tenant, Optional<String> as, String whyNamed, String positionFormNames) {
    String name = as.filter(n -> !n.isBlank()).orElseThrow(() -> new TransformException.InvalidReplay(
        "name the virtual state with --as: " + whyNamed));
    ViewName target = new ViewName(tenant, name);
    if (target.isPositionForm()) {
      throw new TransformException.InvalidReplay("the name '" + name + "' is the position form <view>@<message ID>,"
          + " which names replays of " + positionFormNames + " only; choose a plain name with --as");
    }
    checkNameFree(target);
    return target;
  }

  /**
   * Check that a new virtual state's name is free.
   *
   * @throws TransformException.VirtualStateExists if a virtual state or a view has it
   */
  private void checkNameFree(ViewName target) {
    if (views.virtualState(target).isPresent() || views.schema(target).isPresent()
        || served.exists(target.tenant(), target.view())) {
      throw views.virtualState(target).isPresent()
          ? new TransformException.VirtualStateExists(target.tenant(), target.view())
          : new TransformException.VirtualStateExists(target.tenant(), target.view(),
              "a view: name the new state with --as");
    }
  }

  /**
   * Forget every running replay (their ends are then not recorded) and return their jobs, for the caller to
   * cancel as it closes.
   */
  public List<JobID> detachAll() {
    List<JobID> running = new ArrayList<>(replays.values());
    replays.clear();
    return running;
  }

  private static ViewSchema schema(TransformDefinition definition) {
    return new ViewSchema(definition.columns(), definition.keyColumns());
  }
}
