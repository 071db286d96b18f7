package dev.streamfold.transforms.training;

/**
 * A training-set build and its progress.
 *
 * @param name the training set
 * @param phase RUNNING, COMPLETE or FAILED
 * @param eventsRead events of the label stream folded so far
 * @param targetEvents events the build reads (the stream's count up to the stop; an upper bound for an
 *     event-time stop)
 * @param rows rows written so far (one per label event)
 * @param output absolute path of the output file (it exists only once COMPLETE)
 * @param manifest absolute path of the manifest JSON written beside it when COMPLETE
 * @param stopMessageId the last message ID read ("" for an empty stream): rebuild with {@code --to} it
 * @param startedAtMs start time, epoch milliseconds
 * @param finishedAtMs end time, epoch milliseconds, 0 while running
 * @param error the failure cause when FAILED, else ""
 */
public record TrainingSetStatus(String name, String phase, long eventsRead, long targetEvents, long rows, String output,
    String manifest, String stopMessageId, long startedAtMs, long finishedAtMs, String error) {
  public static final String RUNNING = "RUNNING";
  public static final String COMPLETE = "COMPLETE";
  public static final String FAILED = "FAILED";
}
