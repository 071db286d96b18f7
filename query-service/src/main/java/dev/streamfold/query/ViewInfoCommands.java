package dev.streamfold.query;

import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewReader;
import io.netty.handler.codec.redis.RedisMessage;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Streamfold's own commands about views:
 * <ul>
 *   <li>{@code VIEW.INFO view}: phase, version, position, events applied, backfill target, rows, last
 *       commit time (epoch ms) and its age (ms), lag in events (events in the source stream not yet
 *       applied; against the backfill target when the source count is unknown). A map in RESP3, a flat
 *       array of field/value pairs in RESP2.</li>
 *   <li>{@code VIEW.LIST}: the tenant's view names.</li>
 *   <li>{@code VIEW.WAIT view messageId timeoutMs}: block until the view's position has reached
 *       {@code messageId} (read-your-writes after an append) or the timeout passes; replies 1 when
 *       reached, 0 on timeout. Polls the view metadata every {@value #WAIT_POLL_MS} ms.</li>
 * </ul>
 */
final class ViewInfoCommands {
  static final long WAIT_POLL_MS = 20;
  static final long MAX_WAIT_MS = 60_000;
  private static final List<String> READ = List.of("readonly");

  private final ViewReader reader;
  private final SourceEvents sourceEvents;
  private final Clock clock;

  ViewInfoCommands(ViewReader reader, SourceEvents sourceEvents, Clock clock) {
    this.reader = reader;
    this.sourceEvents = sourceEvents;
    this.clock = clock;
  }

  List<Command> commands() {
    return List.of(
        Command.of("view.info", 2, READ, this::info),
        Command.of("view.list", 1, READ, (s, r) -> Replies.bulkArray(reader.views(s.tenant()))),
        Command.of("view.wait", 4, READ, this::await));
  }

  private ViewName name(Session session, String view) {
    try {
      return new ViewName(session.tenant(), view);
    } catch (IllegalArgumentException e) {
      throw RespException.err(e.getMessage());
    }
  }

  private ViewMetadata metadata(ViewName name) {
    Optional<ViewMetadata> served = reader.metadata(name);
    if (served.isPresent()) {
      return served.get();
    }
    throw RespException.err("no such view '" + name.view() + "' (VIEW.LIST lists the views)");
  }

  private RedisMessage info(Session session, Request request) {
    ViewName name = name(session, request.string(1));
    ViewMetadata m = metadata(name);
    long now = clock.millis();
    OptionalLong inSource = sourceEvents.eventsInSource(name);
    long lag = Math.max(0, (inSource.isPresent() ? inSource.getAsLong() : m.backfillTargetEvents()) - m.eventsApplied());
    List<RedisMessage> fields = new ArrayList<>();
    add(fields, "view", Replies.bulk(name.view()));
    add(fields, "phase", Replies.bulk(m.phase().name()));
    add(fields, "version", Replies.integer(m.version()));
    add(fields, "position", Replies.bulkArray(m.position()));
    add(fields, "events_applied", Replies.integer(m.eventsApplied()));
    add(fields, "backfill_target_events", Replies.integer(m.backfillTargetEvents()));
    add(fields, "backfill_target_message_id", Replies.bulk(m.backfillTargetMessageId()));
    add(fields, "source_events", inSource.isPresent() ? Replies.integer(inSource.getAsLong()) : session.replies().nil());
    add(fields, "lag_events", Replies.integer(lag));
    add(fields, "rows", Replies.integer(m.rows()));
    add(fields, "last_commit_ms", Replies.integer(m.updatedAtMs()));
    add(fields, "last_commit_age_ms", Replies.integer(m.updatedAtMs() == 0 ? -1 : Math.max(0, now - m.updatedAtMs())));
    add(fields, "error", Replies.bulk(m.error()));
    return session.replies().map(fields);
  }

  private static void add(List<RedisMessage> fields, String name, RedisMessage value) {
    fields.add(Replies.bulk(name));
    fields.add(value);
  }

  private RedisMessage await(Session session, Request request) {
    ViewName name = name(session, request.string(1));
    long[] target = parseMessageId(request.string(2));
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
      if (reached(metadata(name).position(), target)) {
        return Replies.integer(1);
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

  /**
   * Tell whether a position has reached a message ID: some entry of the same partition is at or after it.
   *
   * @param position message ID texts, one per partition
   * @param target {ledgerId, entryId, partition, batchIndex}
   * @return true when reached
   */
  static boolean reached(List<String> position, long[] target) {
    for (String text : position) {
      long[] at = parseMessageId(text);
      if (at[2] != target[2]) {
        continue;
      }
      int c = Long.compare(at[0], target[0]);
      if (c == 0) {
        c = Long.compare(at[1], target[1]);
      }
      if (c == 0) {
        c = Long.compare(at[3], target[3]);
      }
      if (c >= 0) {
        return true;
      }
    }
    return false;
  }

  static long[] parseMessageId(String text) {
    String[] parts = text.split(":", -1);
    if (parts.length != 4) {
      throw RespException.err("invalid message ID '" + text + "': expected ledgerId:entryId:partition:batchIndex");
    }
    long[] id = new long[4];
    try {
      for (int i = 0; i < 4; i++) {
        id[i] = Long.parseLong(parts[i]);
      }
    } catch (NumberFormatException e) {
      throw RespException.err("invalid message ID '" + text + "': components must be integers");
    }
    return id;
  }
}
