package dev.streamfold.transforms.sink;

import java.util.List;
import java.util.Map;

/**
 * The committable of the view sink: every row change caused by the events between two checkpoint
 * barriers, and the source position and events-applied count at the later barrier. Stored in Flink's
 * checkpoint by {@link ViewCommitSerializer} until the checkpoint completes and the committer applies it.
 *
 * @param upserts row key to the whole row (column to value text, SQL NULL columns left out), in order
 * @param deletes row keys retracted and not re-inserted
 * @param position last applied message ID text per partition, comma-separated; "" when none
 * @param eventsApplied events folded into the view after this commit
 * @param eventsBehindWatermark events read behind the watermark so far (event-time views; else 0)
 */
public record ViewCommit(Map<String, Map<String, String>> upserts, List<String> deletes, String position,
    long eventsApplied, long eventsBehindWatermark) {

  /** A commit of a view without event time. */
  public ViewCommit(Map<String, Map<String, String>> upserts, List<String> deletes, String position, long eventsApplied) {
    this(upserts, deletes, position, eventsApplied, 0);
  }
}
