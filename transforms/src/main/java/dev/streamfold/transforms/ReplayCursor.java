package dev.streamfold.transforms;

import dev.streamfold.core.MessageId;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A position in a stream for replay: a message ID, an event time, or the latest event. Cursor semantics
 * (documented in the README, "Replay and virtual states"):
 * <ul>
 *   <li>stop at a message ID: {@code inclusive} ({@code --to}) applies every event up to and including
 *       it; exclusive ({@code --before}) every event before it. Batch indexes count: the 5th message of
 *       a batched entry is its own position. Batch index -1 names an entry that is not batched: on a
 *       batched entry (the ingestion API batches what it appends) it names no event and is refused when
 *       the replay resolves it, with the batch indexes the entry holds ({@code Ledger.locate}).</li>
 *   <li>stop at an event time T: the longest ledger prefix in which no event is later than T
 *       ({@code --to}) or at or later than T ({@code --before}). The ledger is ordered by appends, not by
 *       event time: the replay stops at the first event past T, in ledger order, and applies nothing after
 *       it. T earlier than every event gives an empty state; T later than every event, the whole stream
 *       as of the replay's start.</li>
 *   <li>start ({@code --from}) at a message ID: that event and every later one; at an event time T: from
 *       the first event, in ledger order, whose event time is at or after T (T earlier than every event:
 *       from the earliest).</li>
 *   <li>latest: the latest event when the replay starts (a stop only).</li>
 *   <li>a position vector (partitioned streams): one message ID per partition, joined by ',' (as VIEW.INFO
 *       reports a view's position); a stop applies, in each listed partition, the events up to and
 *       including ({@code --to}) or before ({@code --before}) its message ID, and nothing of a partition it
 *       does not list.</li>
 *   <li>a tick of the tenant clock ({@code tick:N}, as VIEW.INFO reports a view over several streams): a stop
 *       applies every event the tick covers ({@code --to}) or the tick before it covers ({@code --before}); the
 *       cursor of views over several streams, whose positions are ticks.</li>
 * </ul>
 *
 * @param kind what the cursor names
 * @param messageId the message ID, for {@link Kind#MESSAGE}
 * @param eventTimeMs the event time, epoch milliseconds, for {@link Kind#EVENT_TIME}
 * @param inclusive for a stop: whether the named event (or time) itself is included
 * @param position the message IDs of a {@link Kind#POSITION} cursor, at most one per partition; empty
 *     for the other kinds
 * @param tick the tick number of a {@link Kind#TICK} cursor (>= 0); 0 for the other kinds
 */
public record ReplayCursor(Kind kind, Optional<MessageId> messageId, long eventTimeMs, boolean inclusive,
    List<MessageId> position, long tick) {
  /** What a cursor names. */
  public enum Kind { MESSAGE, EVENT_TIME, LATEST, POSITION, TICK }

  public ReplayCursor {
    Objects.requireNonNull(kind, "kind");
    messageId = messageId == null ? Optional.empty() : messageId;
    position = position == null ? List.of() : List.copyOf(position);
    if (tick < 0 || tick > 0 && kind != Kind.TICK) {
      throw new IllegalArgumentException("a tick cursor needs a tick >= 0, and only a tick cursor has one");
    }
    if (kind == Kind.MESSAGE && messageId.isEmpty()) {
      throw new IllegalArgumentException("a message cursor needs a message ID");
    }
    if (kind == Kind.POSITION) {
      if (position.isEmpty()) {
        throw new IllegalArgumentException("a position vector needs at least one message ID");
      }
      java.util.Set<Integer> partitions = new java.util.HashSet<>();
      for (MessageId id : position) {
        if (id.partition() < 0 && position.size() > 1) {
          throw new IllegalArgumentException("position vector " + join(position) + " lists message IDs of an"
              + " unpartitioned stream (partition -1): a vector has one message ID per partition of a partitioned"
              + " stream; name one message ID instead");
        }
        if (!partitions.add(id.partition())) {
          throw new IllegalArgumentException("position vector names partition " + id.partition() + " twice: "
              + join(position));
        }
      }
    }
  }

  /** A cursor of one kind but a position vector or a tick. */
  public ReplayCursor(Kind kind, Optional<MessageId> messageId, long eventTimeMs, boolean inclusive) {
    this(kind, messageId, eventTimeMs, inclusive, List.of(), 0);
  }

  /** A cursor of one kind but a tick. */
  public ReplayCursor(Kind kind, Optional<MessageId> messageId, long eventTimeMs, boolean inclusive,
      List<MessageId> position) {
    this(kind, messageId, eventTimeMs, inclusive, position, 0);
  }

  /**
   * A tick of the tenant clock.
   *
   * @param tick the tick number, >= 0
   * @param inclusive {@code --to} (the events the tick covers) or {@code --before} (those the tick before covers)
   * @return the cursor
   */
  public static ReplayCursor tick(long tick, boolean inclusive) {
    return new ReplayCursor(Kind.TICK, Optional.empty(), 0, inclusive, List.of(), tick);
  }

  private static String join(List<MessageId> ids) {
    return String.join(",", ids.stream().map(Object::toString).toList());
  }

  /** The latest event when the replay starts, included. */
  public static ReplayCursor latest() {
    return new ReplayCursor(Kind.LATEST, Optional.empty(), 0, true);
  }

  /**
   * Parse a cursor as a user writes it.
   *
   * @param text {@code latest}; a tick {@code tick:N}; a message ID {@code ledgerId:entryId:partition:batchIndex}
   *     (as Append returns it); an event time as an ISO-8601 instant ({@code 2015-01-02T10:00:00Z}), a date-time
   *     without zone or a date (both read as UTC), or epoch milliseconds (digits only)
   * @param inclusive whether the named event or time is included (stops: {@code --to} vs {@code --before})
   * @return the cursor
   * @throws IllegalArgumentException if the text is none of these; the message lists the forms
   */
  public static ReplayCursor parse(String text, boolean inclusive) {
    String t = text == null ? "" : text.trim();
    if (t.equalsIgnoreCase("latest")) {
      if (!inclusive) {
        throw new IllegalArgumentException("'before latest' is not a position; use --to latest, or --before <message ID>");
      }
      return latest();
    }
    if (t.regionMatches(true, 0, "tick:", 0, 5)) {
      try {
        long tick = Long.parseLong(t.substring(5));
        if (tick >= 0) {
          return tick(tick, inclusive);
        }
      } catch (NumberFormatException notANumber) {
        // refused below
      }
      throw new IllegalArgumentException("cannot read cursor '" + text + "': a tick is tick:N with N >= 0, as"
          + " VIEW.INFO reports it for a view over several streams, e.g. tick:17");
    }
    if (t.matches("-?\\d+:-?\\d+:-?\\d+:-?\\d+(\\s*,\\s*-?\\d+:-?\\d+:-?\\d+:-?\\d+)+")) {
      List<MessageId> ids = new java.util.ArrayList<>();
      for (String id : t.split("\\s*,\\s*")) {
        ids.add(MessageId.parse(id));
      }
      return new ReplayCursor(Kind.POSITION, Optional.empty(), 0, inclusive, ids);
    }
    if (t.matches("-?\\d+:-?\\d+:-?\\d+:-?\\d+")) {
      return new ReplayCursor(Kind.MESSAGE, Optional.of(MessageId.parse(t)), 0, inclusive);
    }
    try {
      if (t.matches("\\d{1,19}")) {
        return new ReplayCursor(Kind.EVENT_TIME, Optional.empty(), Long.parseLong(t), inclusive);
      }
      long ms;
      if (t.endsWith("Z") || t.matches(".*[+-]\\d\\d:\\d\\d$")) {
        ms = Instant.parse(t).toEpochMilli();
      } else if (t.contains("T")) {
        ms = LocalDateTime.parse(t).toInstant(ZoneOffset.UTC).toEpochMilli();
      } else {
        ms = LocalDate.parse(t).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli();
      }
      return new ReplayCursor(Kind.EVENT_TIME, Optional.empty(), ms, inclusive);
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new IllegalArgumentException("cannot read cursor '" + text + "': use a message ID"
          + " (ledgerId:entryId:partition:batchIndex, as Append returns it), a position vector of a partitioned"
          + " stream (message IDs joined by ',', as VIEW.INFO reports), an event time (ISO-8601 such as"
          + " 2015-01-02T10:00:00Z, a date 2015-01-02 (UTC), or epoch milliseconds), a tick of the tenant clock"
          + " (tick:N, for a view over several streams) or 'latest'");
    }
  }

  /** The cursor as a user would write it, with its direction, e.g. {@code to 12:5:-1:4}. */
  public String describe(String direction) {
    String at = switch (kind) {
      case MESSAGE -> messageId.get().toString();
      case POSITION -> join(position);
      case EVENT_TIME -> Instant.ofEpochMilli(eventTimeMs).toString();
      case LATEST -> "latest";
      case TICK -> "tick:" + tick;
    };
    return direction + " " + at;
  }
}
