package dev.streamfold.cli;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** Progress bars on stderr: live on a terminal, a line every few seconds otherwise (CI logs). */
final class Progress {
  private Progress() {}

  static boolean interactive() {
    return System.console() != null;
  }

  /**
   * Create a progress bar.
   *
   * @param task what progresses, e.g. "ingest flights"
   * @param max the total, or -1 when unknown
   * @return the bar; close it when done
   */
  static ProgressBar bar(String task, long max) {
    return new ProgressBarBuilder()
        .setTaskName(task)
        .setInitialMax(max)
        .setStyle(interactive() ? ProgressBarStyle.COLORFUL_UNICODE_BLOCK : ProgressBarStyle.ASCII)
        .setUpdateIntervalMillis(interactive() ? 250 : 5_000)
        .setMaxRenderedLength(110)
        .showSpeed(new java.text.DecimalFormat("#,##0"))
        .setUnit(" ev", 1)
        .continuousUpdate()
        .build();
  }
}
