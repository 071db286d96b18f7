package dev.streamfold.query;

import dev.streamfold.core.ClockPosition;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewReader;
import dev.streamfold.views.VirtualState;
import io.netty.handler.codec.redis.RedisMessage;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Streamfold's own commands about views and virtual states:
 * <ul>
 *   <li>{@code VIEW.INFO name}: for a view ({@code kind view}): phase, version, position, events applied,
 *       backfill target, rows, last commit time (epoch ms) and its age (ms), lag in events (events in the
 *       source stream not yet applied; against the backfill target when the source count is unknown) —
 *       all of what reads of the view return, which is the virtual state it is rolled back to while
 *       {@code rolled_back_to} is set — plus {@code live_version}, {@code live_phase},
 *       {@code live_position} and {@code live_events_applied} of the view's own state, which its job keeps
 *       current underneath a rollback. For a virtual state ({@code kind virtual}): source view,
 *       transformation version, start and stop cursors, full-history flag, phase, position, events applied
 *       and the replay's target, rows, creation and last commit times, error, and the view rolled back to
 *       it. A map in RESP3, a flat array of field/value pairs in RESP2.</li>
 *   <li>{@code VIEW.LIST}: one entry (a map) per view and virtual state, sorted by name: name, kind,
 *       phase, position, rows, events applied; views add their version and {@code rolled_back_to},
 *       virtual states their source view and full-history flag. A view's entry describes its own state.</li>
 *   <li>{@code VIEW.WAIT name messageId timeoutMs}: block until reads of the view reflect {@code messageId}
 *       (read-your-writes after an append) or the timeout passes; replies 1 when reached, 0 on timeout. On a view
 *       over several streams the message ID is one of any stream it reads, reached at the first tick covering it.
 *       Refused at once with an error when waiting cannot help: a rolled-back view (reads return a fixed
 *       earlier state; resume it first), a complete or failed virtual state before the message ID, a virtual
 *       state that starts after the message ID (or at an event time), a message ID of no stream the view reads. See
 *       {@link ReadYourWrites}. Polls the view metadata every {@value #WAIT_POLL_MS} ms.</li>
 * </ul>
 */
final class ViewInfoCommands {
  static final long WAIT_POLL_MS = 20;
  static final long MAX_WAIT_MS = 60_000;
  private static final List<String> READ = List.of("readonly");

  private final ViewReader reader;
  private final ViewSources sources;
  private final Clock clock;

  ViewInfoCommands(ViewReader reader, ViewSources sources, Clock clock) {
    this.reader = reader;
    this.sources = sources;
    this.clock = clock;
  }

  List<Command> commands() {
    return List.of(
        Command.of("view.info", 2, READ, this::info),
        Command.of("view.list", 1, READ, this::list),
        Command.of("view.wait", 4, READ, this::await));
  }

  private ViewName name(Session session, String view) {
    try {
      return new ViewName(session.tenant(), view);
    } catch (IllegalArgumentException e) {
      throw RespException.err(e.getMessage());
    }
  }

  private RespException noSuchView(ViewName name) {
    return RespException.err(new ReadYourWrites.NoSuchView(name).getMessage());
  }

  private RedisMessage info(Session session, Request request) {
    ViewName name = name(session, request.string(1));
    Optional<VirtualState> state = reader.virtualState(name);
    if (state.isPresent()) {
      return virtualStateInfo(session, state.get());
    }
    ViewMetadata m = reader.metadata(name).orElseThrow(() -> reader.schema(name).isPresent()
        // registered, but no version served yet: not "no such view" (VIEW.LIST lists it)
        ? RespException.err("view '" + name.view() + "' serves no version yet: its first version is still"
            + " backfilling, or failed (streamfold transform status " + name.view() + " shows its progress and error)")
        : noSuchView(name));
    Optional<ViewName> rolledBackTo = reader.rollbackTarget(name);
    ViewMetadata live = rolledBackTo.isEmpty() ? m : reader.liveMetadata(name).orElse(null);
    long now = clock.millis();
    OptionalLong inSource = sources.eventsInSource(name);
    long lag = Math.max(0, (inSource.isPresent() ? inSource.getAsLong() : m.backfillTargetEvents()) - m.eventsApplied());
    Replies replies = session.replies();
    List<RedisMessage> fields = new ArrayList<>();
    add(fields, "view", Replies.bulk(name.view()));
    add(fields, "kind", Replies.bulk("view"));
    add(fields, "phase", Replies.bulk(m.phase().name()));
    // While rolled back, reads return the virtual state: its version is the transformation version it was
    // replayed with (the state's own metadata is stored as version 1 of the state, not of the view).
    int version = rolledBackTo.flatMap(reader::virtualState).map(VirtualState::transformVersion).orElse(m.version());
    add(fields, "version", Replies.integer(version));
    add(fields, "position", Replies.bulkArray(m.position().texts()));
    add(fields, "events_applied", Replies.integer(m.eventsApplied()));
    add(fields, "backfill_target_events", Replies.integer(m.backfillTargetEvents()));
    add(fields, "backfill_target_message_id", Replies.bulk(m.backfillTarget().toString()));
    add(fields, "source_events", inSource.isPresent() ? Replies.integer(inSource.getAsLong()) : replies.nil());
    add(fields, "lag_events", Replies.integer(lag));
    add(fields, "rows", Replies.integer(m.rows()));
    add(fields, "last_commit_ms", Replies.integer(m.updatedAtMs()));
    add(fields, "last_commit_age_ms", Replies.integer(m.updatedAtMs() == 0 ? -1 : Math.max(0, now - m.updatedAtMs())));
    add(fields, "error", Replies.bulk(m.error()));
    add(fields, "events_behind_watermark", Replies.integer(m.eventsBehindWatermark()));
    // A view over several streams commits at ticks of the tenant clock: the tick and its vector of each stream read
    add(fields, "tick", m.clocked() ? Replies.integer(m.clockPosition().tick()) : replies.nil());
    add(fields, "stream_positions", streamPositions(m.clockPosition()));
    add(fields, "backfill_target_tick", m.clocked() ? Replies.integer(m.backfillTargetClock().tick()) : replies.nil());
    add(fields, "rolled_back_to", replies.bulkOrNil(rolledBackTo.map(ViewName::view).orElse(null)));
    add(fields, "live_version", live == null ? replies.nil() : Replies.integer(live.version()));
    add(fields, "live_phase", live == null ? replies.nil() : Replies.bulk(live.phase().name()));
    add(fields, "live_position", live == null ? replies.nil() : Replies.bulkArray(live.position().texts()));
    add(fields, "live_events_applied", live == null ? replies.nil() : Replies.integer(live.eventsApplied()));
    return replies.map(fields);
  }

  /** A clock position's vectors, one {@code stream=vector} per stream read (none for a view over one stream). */
  private static RedisMessage streamPositions(ClockPosition position) {
    return Replies.bulkArray(position.streams().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
  }

  private RedisMessage virtualStateInfo(Session session, VirtualState state) {
    ViewName name = state.name();
    Optional<ViewMetadata> progress = reader.metadata(name, 1);
    boolean servesView = reader.rollbackTarget(new ViewName(name.tenant(), state.sourceView()))
        .map(name::equals).orElse(false);
    Replies replies = session.replies();
    List<RedisMessage> fields = new ArrayList<>();
    add(fields, "view", Replies.bulk(name.view()));
    add(fields, "kind", Replies.bulk("virtual"));
    add(fields, "source_view", Replies.bulk(state.sourceView()));
    add(fields, "transform_version", Replies.integer(state.transformVersion()));
    add(fields, "start", Replies.bulk(state.fullHistory() ? "earliest" : state.start()));
    add(fields, "stop", Replies.bulk(state.stop()));
    add(fields, "full_history", Replies.integer(state.fullHistory() ? 1 : 0));
    add(fields, "phase", Replies.bulk(progress.map(m -> m.phase().name()).orElse(ViewPhase.STARTING.name())));
    add(fields, "position",
        Replies.bulkArray(progress.map(ViewMetadata::position).orElse(PositionVector.EMPTY).texts()));
    boolean clocked = progress.map(ViewMetadata::clocked).orElse(false);
    add(fields, "tick", clocked ? Replies.integer(progress.get().clockPosition().tick()) : replies.nil());
    add(fields, "stream_positions", streamPositions(progress.map(ViewMetadata::clockPosition).orElse(ClockPosition.NONE)));
    add(fields, "events_applied", Replies.integer(progress.map(ViewMetadata::eventsApplied).orElse(0L)));
    add(fields, "target_events", Replies.integer(progress.map(ViewMetadata::backfillTargetEvents).orElse(0L)));
    add(fields, "rows", Replies.integer(progress.map(ViewMetadata::rows).orElse(0L)));
    add(fields, "created_at_ms", Replies.integer(state.createdAtMs()));
    add(fields, "last_commit_ms", Replies.integer(progress.map(ViewMetadata::updatedAtMs).orElse(0L)));
    add(fields, "error", Replies.bulk(progress.map(ViewMetadata::error).orElse("")));
    add(fields, "rolled_back_view", replies.bulkOrNil(servesView ? state.sourceView() : null));
    return replies.map(fields);
  }

  private RedisMessage list(Session session, Request request) {
    Replies replies = session.replies();
    List<RedisMessage> entries = new ArrayList<>();
    for (String view : reader.views(session.tenant())) {
      ViewName name;
      try {
        name = new ViewName(session.tenant(), view);
      } catch (IllegalArgumentException malformed) {
        continue;
      }
      Optional<VirtualState> state = reader.virtualState(name);
      Optional<ViewMetadata> m = state.isPresent() ? reader.metadata(name, 1) : reader.liveMetadata(name);
      List<RedisMessage> fields = new ArrayList<>();
      add(fields, "name", Replies.bulk(view));
      add(fields, "kind", Replies.bulk(state.isPresent() ? "virtual" : "view"));
      add(fields, "phase", Replies.bulk(m.map(x -> x.phase().name()).orElse(ViewPhase.STARTING.name())));
      add(fields, "position", Replies.bulkArray(m.map(ViewMetadata::position).orElse(PositionVector.EMPTY).texts()));
      add(fields, "rows", Replies.integer(m.map(ViewMetadata::rows).orElse(0L)));
      add(fields, "events_applied", Replies.integer(m.map(ViewMetadata::eventsApplied).orElse(0L)));
      if (state.isPresent()) {
        add(fields, "source_view", Replies.bulk(state.get().sourceView()));
        add(fields, "full_history", Replies.integer(state.get().fullHistory() ? 1 : 0));
      } else {
        add(fields, "version", Replies.integer(m.map(ViewMetadata::version).orElse(0)));
        add(fields, "rolled_back_to", replies.bulkOrNil(reader.rollbackTarget(name).map(ViewName::view).orElse(null)));
      }
      entries.add(replies.map(fields));
    }
    return Replies.array(entries);
  }

  private static void add(List<RedisMessage> fields, String name, RedisMessage value) {
    fields.add(Replies.bulk(name));
    fields.add(value);
  }

  private RedisMessage await(Session session, Request request) {
    ViewName name = name(session, request.string(1));
    MessageId target = parseMessageId(request.string(2));
    long timeoutMs;
    try {
      timeoutMs = Long.parseLong(request.string(3));
    } catch (NumberFormatException e) {
      throw RespException.notAnInteger();
    }
    if (timeoutMs < 0 || timeoutMs > MAX_WAIT_MS) {
      throw RespException.err("timeout must be 0.." + MAX_WAIT_MS + " ms, got " + timeoutMs);
    }
    long deadline = clock.millis() + timeoutMs;
    while (true) {
      try {
        if (ReadYourWrites.check(reader, sources, name, target)) {
          return Replies.integer(1);
        }
      } catch (ReadYourWrites.Unreachable | ReadYourWrites.NoSuchView e) {
        throw RespException.err(e.getMessage());
      }
      if (clock.millis() >= deadline) {
        return Replies.integer(0);
      }
      try {
        Thread.sleep(WAIT_POLL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Replies.integer(0);
      }
    }
  }

  static MessageId parseMessageId(String text) {
    try {
      return ReadYourWrites.parseMessageId(text);
    } catch (IllegalArgumentException e) {
      throw RespException.err(e.getMessage());
    }
  }
}
