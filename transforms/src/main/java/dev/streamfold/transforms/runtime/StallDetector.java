package dev.streamfold.transforms.runtime;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.StreamStorage;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewPhase;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Says why a running backfill or replay looks stuck: it is still backfilling, has events left, and has
 * committed nothing (and was not resubmitted) for the stall time. The broker retries reads of segments it
 * cannot fetch (e.g. offloaded to S3 while S3 is down) and the source just waits, so the job itself stays
 * RUNNING; the text names where the events it waits for are stored.
 */
public final class StallDetector {
  private final Ledger ledger;
  private final Duration stallAfter;
  private final Clock clock;

  /**
   * @param ledger the ledger, asked where a stream's next events are stored
   * @param stallAfter how long without a commit counts as stalled
   * @param clock the time idleness is measured by
   */
  public StallDetector(Ledger ledger, Duration stallAfter, Clock clock) {
    this.ledger = ledger;
    this.stallAfter = stallAfter;
    this.clock = clock;
  }

  /**
   * The rule: a backfill with events left and no commit since the later of its last commit and its
   * submission for at least the stall time.
   *
   * @param m the view's or virtual state's metadata
   * @param runningSinceMs when its job was submitted, epoch ms (0 when unknown)
   * @return how long it has been idle, ms, when stalled; -1 when not
   */
  public long idleMs(ViewMetadata m, long runningSinceMs) {
    long idleMs = clock.millis() - Math.max(m.updatedAtMs(), runningSinceMs);
    if (m.phase() != ViewPhase.BACKFILLING || m.updatedAtMs() <= 0 || m.eventsApplied() >= m.backfillTargetEvents()
        || idleMs < stallAfter.toMillis()) {
      return -1;
    }
    return idleMs;
  }

  /**
   * Say why a running backfill or replay looks stuck, or "" when it does not.
   *
   * @param stream the stream it reads
   * @param m its metadata: phase, events applied and target, position, last commit
   * @param runningSinceMs when its job was submitted, epoch ms (0 when unknown): a stall counts from the later of
   *     this and the last commit
   * @param work what reads, for the text: "backfill" or "replay"
   * @return the stall in words, "" when none
   */
  public String stalled(StreamRef stream, ViewMetadata m, long runningSinceMs, String work) {
    long idleMs = idleMs(m, runningSinceMs);
    if (idleMs < 0) {
      return "";
    }
    String where;
    try {
      StreamStorage storage = ledger.storage(stream);
      List<Optional<MessageId>> after = new ArrayList<>();
      m.position().messageIds().forEach(id -> after.add(Optional.of(id)));
      if (after.isEmpty()) {
        after.add(Optional.empty());
      }
      // the partition whose next events need S3 is the likely cause; else the first partition's
      Optional<MessageId> stuck = after.stream().filter(a -> storage.segmentAfter(a)
          .map(s -> s.offloaded() && s.localDeleted()).orElse(false)).findFirst().orElse(after.get(0));
      where = storage.whereAfter(stuck);
    } catch (RuntimeException e) {
      where = "the ledger cannot say where they are stored (" + e.getMessage() + ")";
    }
    return String.format("no event applied for %d s, with %,d of %,d %s events still to apply; %s",
        idleMs / 1000, m.backfillTargetEvents() - m.eventsApplied(), m.backfillTargetEvents(),
        work, where);
  }
}
