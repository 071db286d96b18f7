package dev.streamfold.transforms.replay;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.MessageIdLocator;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.transforms.ReplayCursor;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import java.util.Optional;

/**
 * Where a replay stops on the tenant clock: the recorded tick a stop cursor names, for a view read in the clock's
 * order, and a view over one stream's own stop at a tick (its stream's position there), so that every view of a
 * tenant can be replayed to one instant (and a training set cut there). Reads the clock from the ledger; keeps
 * nothing.
 */
public final class TickStops {
  private final Ledger ledger;
  private final MessageIdLocator streamsOfIds;

  /**
   * @param ledger the tenants' clocks
   * @param streamsOfIds which of a view's streams a message ID names
   */
  public TickStops(Ledger ledger, MessageIdLocator streamsOfIds) {
    this.ledger = ledger;
    this.streamsOfIds = streamsOfIds;
  }

  /**
   * The tick a replay of a view read in the clock's order stops after: {@code tick:N} ({@code --before tick:N}: N - 1);
   * a message ID of one of its streams: the first tick covering it ({@code --before}: the tick before); a time: the
   * last tick recorded at or before it ({@code --before}: before it); latest: the clock's last tick now.
   *
   * @param definition the view
   * @param to the stop cursor
   * @param streams what the view reads, for the errors ("view 'v' reads several streams [a, b]")
   * @return the recorded tick ({@link Tick#ZERO} for tick 0, which covers nothing)
   * @throws TransformException.InvalidReplay if the cursor is of another kind, names a message ID of none of the
   *     view's streams or not covered yet, or a tick the clock has not recorded yet
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if the clock cannot be read
   */
  Tick stopOf(TransformDefinition definition, ReplayCursor to, String streams) {
    String tenant = definition.tenant();
    Optional<Tick> last = ledger.lastTick(tenant);
    long lastTick = last.map(Tick::number).orElse(0L);
    long stop = switch (to.kind()) {
      case LATEST -> lastTick;
      case TICK -> stopTick(to);
      case MESSAGE -> tickCovering(definition, to, lastTick);
      case EVENT_TIME -> tickAtTime(tenant, to, lastTick);
      default -> throw new TransformException.InvalidReplay(streams + ", in the tenant clock's order: stop at a tick"
          + " (tick:N, as VIEW.INFO reports the view's position; the clock's last tick is " + lastTick + "), a message"
          + " ID of one of its streams, a time, or latest, not " + to.describe(to.inclusive() ? "to" : "before"));
    };
    return recordedTick(tenant, stop, last);
  }

  /**
   * The stop of a view over one stream at a tick of the tenant clock: the stream's position at that tick (its
   * message ID, or its position vector when partitioned).
   *
   * @param stream the stream
   * @param info its description (whether it is partitioned)
   * @param to a tick cursor ({@code tick:N}; {@code --before tick:N} is tick N - 1)
   * @return an inclusive message-ID cursor, or a position-vector cursor for a partitioned stream
   * @throws TransformException.InvalidReplay if the clock has no such tick yet, or the stream held no events at it
   */
  public ReplayCursor streamStopAt(StreamRef stream, StreamInfo info, ReplayCursor to) {
    long stop = stopTick(to);
    PositionVector at = recordedTick(stream.tenant(), stop, ledger.lastTick(stream.tenant())).position(stream.stream());
    if (at.isEmpty()) {
      throw new TransformException.InvalidReplay("stream " + stream + " held no events at tick " + stop
          + ": nothing to read up to there");
    }
    return info.partitioned() ? new ReplayCursor(ReplayCursor.Kind.POSITION, Optional.empty(), 0, true, at.messageIds())
        : new ReplayCursor(ReplayCursor.Kind.MESSAGE, Optional.of(at.messageIds().get(0)), 0, true);
  }

  /** The tick a tick cursor stops after: N for {@code --to tick:N}, N - 1 (not below 0) for {@code --before}. */
  private static long stopTick(ReplayCursor to) {
    return to.inclusive() ? to.tick() : Math.max(0, to.tick() - 1);
  }

  /**
   * A recorded tick of a tenant's clock.
   *
   * @param number the tick's number; 0 for {@link Tick#ZERO}
   * @param last the clock's last tick, as just read (returned when it is the one asked for)
   * @throws TransformException.InvalidReplay if the clock has not recorded that tick yet (the message gives its last)
   */
  private Tick recordedTick(String tenant, long number, Optional<Tick> last) {
    long lastNumber = last.map(Tick::number).orElse(0L);
    if (number > lastNumber) {
      throw new TransformException.InvalidReplay("the tenant clock of '" + tenant + "' has no tick " + number
          + " yet (its last tick is " + lastNumber + ")");
    }
    if (number <= 0) {
      return Tick.ZERO;
    }
    return number == lastNumber ? last.get() : ledger.ticks(tenant, number - 1, 1).get(0);
  }

  /**
   * The stop at a message ID of one of the view's streams: the first tick covering it ({@code --to}), or the tick
   * before that one ({@code --before}).
   *
   * @throws TransformException.InvalidReplay if the message ID is in none of the view's streams, or no tick covers
   *     it yet
   */
  private long tickCovering(TransformDefinition definition, ReplayCursor to, long lastTick) {
    MessageId id = to.messageId().orElseThrow();
    String tenant = definition.tenant();
    String stream = streamsOfIds.streamOf(tenant, definition.streams(), id).orElseThrow(() ->
        new TransformException.InvalidReplay("message ID " + id + " is in none of the streams view '" + definition.name()
            + "' reads " + definition.streams()));
    Tick covering = ledger.firstTick(tenant, tick -> tick.covers(stream, id)).orElseThrow(() ->
        new TransformException.InvalidReplay("no tick of the tenant clock covers message ID " + id + " of stream '"
            + stream + "' (the clock's last tick is " + lastTick + "): the stream holds no such event yet, or it was"
            + " appended within the last tick interval; retry in a moment"));
    return to.inclusive() ? covering.number() : covering.number() - 1;
  }

  /**
   * The stop at a time: the last tick recorded at or before it ({@code --to}) or before it ({@code --before}).
   * Event times are each stream's own and order nothing across streams, so the time is the clock's: when the tick
   * was recorded, i.e. when its events had been appended.
   */
  private long tickAtTime(String tenant, ReplayCursor to, long lastTick) {
    long at = to.eventTimeMs();
    return ledger.firstTick(tenant, tick -> to.inclusive() ? tick.timeMs() > at : tick.timeMs() >= at)
        .map(after -> after.number() - 1).orElse(lastTick);
  }
}
