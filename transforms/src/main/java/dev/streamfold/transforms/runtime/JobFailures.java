package dev.streamfold.transforms.runtime;

import dev.streamfold.transforms.job.FoldStage;

/** The text a user is shown for a failed job or a failed call: its most telling cause, one line. */
public final class JobFailures {
  /** How a Java fold's failure starts in a stack trace ({@code FoldStage.FoldFailure}). */
  private static final String FOLD_FAILURE = FoldStage.class.getName() + "$FoldFailure: ";

  private JobFailures() {}

  /**
   * The most telling line of a failed job's stack trace: its deepest cause ("Recovery is suppressed by
   * ..." on top says only that Flink gave up), e.g. {@code IllegalArgumentException: ...}; a Java fold's
   * failure without its exception class (it names the fold class, the event and the row key itself).
   *
   * @param stackTrace a stack trace as Flink serializes it
   * @return one line
   */
  public static String rootCause(String stackTrace) {
    String[] lines = stackTrace.split("\n");
    String cause = lines[0];
    for (String line : lines) {
      if (line.startsWith("Caused by: ")) {
        cause = line.substring("Caused by: ".length());
      }
      if (cause.startsWith(FOLD_FAILURE)) {
        return cause.substring(FOLD_FAILURE.length()).trim();
      }
    }
    return cause.trim();
  }

  /**
   * The message of an exception's deepest cause.
   *
   * @param e the exception
   * @return the message, "null" when it has none
   */
  public static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return String.valueOf(root.getMessage());
  }
}
