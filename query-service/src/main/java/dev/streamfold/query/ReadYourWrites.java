package dev.streamfold.query;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.PositionVector;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewName;
import dev.streamfold.views.ViewPhase;
import dev.streamfold.views.ViewReader;
import dev.streamfold.views.VirtualState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Read-your-writes: whether reads of a view reflect a message ID (the one Append returned). Shared by
 * RESP's {@code VIEW.WAIT} and gRPC's {@code ViewService.GetRow}, so both answer alike:
 * <ul>
 *   <li>reached when the position of what reads return (the view's served version, or the virtual state it
 *       is rolled back to) has, for the message ID's partition, an applied message at or after it;</li>
 *   <li>not yet while a view (or a virtual state still replaying) has not reached it, also while a new
 *       view serves no version yet;</li>
 *   <li>refused ({@link Unreachable}) when it can never be reached by waiting: the view is rolled back to a
 *       fixed earlier state (its job keeps the live state current underneath, but reads do not see it until
 *       the view is resumed), a virtual state is complete (or failed) before that message ID, or a virtual
 *       state that does not start at the earliest event starts after it (or at an event time: then which
 *       message IDs it applied is not recorded).</li>
 * </ul>
 */
public final class ReadYourWrites {
  private ReadYourWrites() {}

  /** A wait that can never succeed; the message says why and what to do. */
  public static final class Unreachable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unreachable(String message) {
      super(message);
    }
  }

  /** No view or virtual state of that name. */
  public static final class NoSuchView extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoSuchView(ViewName name) {
      super("no such view '" + name.view() + "' (VIEW.LIST lists the views and virtual states)");
    }
  }

  /**
   * Tell whether reads of a view reflect a message ID now. For a view over several streams (it commits at ticks of
   * the tenant clock), the message ID is one of any stream the view reads, and it is reached once the committed
   * tick's vector of that stream has it.
   *
   * @param reader the views
   * @param sources which stream of a view's a message ID belongs to (views over several streams only)
   * @param name a view or virtual state
   * @param target the message ID, as {@link #parseMessageId} returns it
   * @return true when reached, false when not yet (waiting may help)
   * @throws NoSuchView if there is no such view or virtual state
   * @throws Unreachable if waiting cannot help (rolled-back view, complete or failed virtual state, a message ID
   *     of no stream the view reads)
   */
  public static boolean check(ViewReader reader, ViewSources sources, ViewName name, MessageId target) {
    Optional<ViewMetadata> served = reader.metadata(name);
    Optional<PositionVector> position = served.map(m -> m.clocked()
        ? m.clockPosition().position(streamOf(reader, sources, name, m, target)) : m.position());
    reader.virtualState(name).ifPresent(state -> checkWithinStart(state, target));
    if (position.isPresent() && position.get().reached(target)) {
      return true;
    }
    if (position.isPresent()) {
      checkSameKindOfStream(name, position.get(), target);
    }
    String at = served.map(ReadYourWrites::describePosition).orElse("position none");
    Optional<ViewName> rolledBack = reader.rollbackTarget(name);
    if (rolledBack.isPresent()) {
      throw new Unreachable("view '" + name.view() + "' is rolled back to virtual state '" + rolledBack.get().view()
          + "' (" + at + "): its reads return that fixed state, which never reaches message ID " + target
          + "; resume the view first (streamfold resume " + name.view() + ")");
    }
    if (served.isEmpty()) {
      Optional<ViewMetadata> building = reader.virtualState(name).isPresent() ? reader.metadata(name, 1) : Optional.empty();
      if (building.isPresent() && building.get().phase() == ViewPhase.FAILED) {
        throw new Unreachable("virtual state '" + name.view() + "' FAILED (" + building.get().error()
            + "): it never reaches message ID " + target);
      }
      if (building.isPresent() || reader.schema(name).isPresent()) {
        return false; // a replay still running, or a new view whose first version is not served yet
      }
      throw new NoSuchView(name);
    }
    ViewPhase phase = served.get().phase();
    if (phase == ViewPhase.COMPLETE || phase == ViewPhase.FAILED && reader.virtualState(name).isPresent()) {
      throw new Unreachable("virtual state '" + name.view() + "' is " + phase + " at " + at
          + ": it never applies message ID " + target);
    }
    return false;
  }

  /** "position 5:20:-1:3", "position none (empty)", or "tick 17 (airports=10:3:-1:-1 flights=...)". */
  private static String describePosition(ViewMetadata metadata) {
    if (metadata.clocked()) {
      String vectors = metadata.clockPosition().toString();
      int space = vectors.indexOf(' ');
      return "tick " + metadata.clockPosition().tick() + (space < 0 ? "" : " (" + vectors.substring(space + 1) + ")");
    }
    return "position " + (metadata.position().isEmpty() ? "none (empty)" : metadata.position());
  }

  /**
   * The stream of a view over several streams (or of a virtual state replaying one) that holds a message ID.
   *
   * @throws Unreachable if none of its streams holds it, or the service cannot tell
   */
  private static String streamOf(ViewReader reader, ViewSources sources, ViewName name, ViewMetadata served,
      MessageId target) {
    ViewName view = reader.virtualState(name).map(state -> new ViewName(name.tenant(), state.sourceView())).orElse(name);
    Optional<String> stream;
    try {
      stream = sources.streamOf(view, target);
    } catch (UnsupportedOperationException e) {
      throw new Unreachable("view '" + name.view() + "' reads several streams and commits at ticks of the tenant clock"
          + " (now " + describePosition(served) + "); " + e.getMessage() + ": poll VIEW.INFO's tick and"
          + " stream_positions instead");
    }
    return stream.orElseThrow(() -> new Unreachable("message ID " + target + " is in none of the streams view '"
        + view.view() + "' reads (now " + describePosition(served) + "): it never applies that message ID"));
  }

  /**
   * Refuse a message ID that a virtual state which does not start at the earliest event never applies: one before
   * its start message ID (per partition; the start is inclusive), or any message ID when it starts at an event time
   * (the first event it applied is not recorded, so whether a message ID is in its range cannot be told). Its
   * position alone would say "reached" for every earlier message ID.
   *
   * @throws Unreachable naming the state, its start and the message ID
   */
  private static void checkWithinStart(VirtualState state, MessageId target) {
    if (state.fullHistory()) {
      return;
    }
    String cursor = state.start().startsWith("from ") ? state.start().substring("from ".length()) : state.start();
    List<MessageId> starts = new ArrayList<>();
    for (String part : cursor.split(",")) {
      try {
        starts.add(parseMessageId(part.trim()));
      } catch (IllegalArgumentException notAMessageId) {
        throw new Unreachable("virtual state '" + state.name().view() + "' starts at an event time (" + state.start()
            + "), not at the earliest event: which message IDs it applied is not recorded, so VIEW.WAIT cannot answer"
            + " for message ID " + target + " (it answers for views, full-history states and states started at"
            + " a message ID)");
      }
    }
    for (MessageId start : starts) {
      if (start.partition() == target.partition() && target.compareTo(start) < 0) {
        throw new Unreachable("virtual state '" + state.name().view() + "' starts at " + start + " (" + state.start()
            + "), not at the earliest event: it never applies message ID " + target + ", which is before its start");
      }
    }
  }

  /**
   * Refuse a message ID of the other kind of stream than the position's: partition -1 (an unpartitioned
   * stream) against a position of partitions 0..N-1, or the reverse. No entry of its partition can ever
   * appear, so a wait would only run out its timeout. (A partition number past the stream's count is not
   * known here: the position lists only partitions with events applied.)
   *
   * @throws Unreachable naming the message ID and the position
   */
  private static void checkSameKindOfStream(ViewName name, PositionVector position, MessageId target) {
    if (position.isEmpty()) {
      return; // says nothing about the stream
    }
    boolean partitioned = position.messageIds().get(0).partition() >= 0;
    if (partitioned != target.partition() >= 0) {
      throw new Unreachable("message ID " + target + (target.partition() >= 0 ? " names partition " + target.partition()
          + ", but view '" + name.view() + "' reads an unpartitioned stream" : " is of an unpartitioned stream, but"
          + " view '" + name.view() + "' reads a partitioned stream (its message IDs name partitions 0 and up)")
          + " at position " + position + ": it never applies that message ID");
    }
  }

  /**
   * Parse the message ID a client waits for ({@link MessageId#parse}). Two replies are this service's own and
   * stay as clients have seen them: text that is not four ':'-separated parts is refused without
   * {@code MessageId}'s example, and text with surrounding whitespace is refused (a gRPC caller's field is
   * trimmed before it gets here).
   *
   * @param text {@code ledgerId:entryId:partition:batchIndex}
   * @return the message ID
   * @throws IllegalArgumentException if it is not four integers separated by ':', or a component is below -1
   *     (the message quotes it)
   */
  public static MessageId parseMessageId(String text) {
    if (text.split(":", -1).length != 4) {
      throw new IllegalArgumentException("invalid message ID '" + text + "': expected ledgerId:entryId:partition:batchIndex");
    }
    if (!text.equals(text.trim())) {
      throw new IllegalArgumentException("invalid message ID '" + text + "': components must be integers");
    }
    return MessageId.parse(text);
  }
}
