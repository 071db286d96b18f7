package dev.streamfold.transforms.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one line a failed job's status shows ({@link JobFailures#rootCause}). */
class JobFailuresTest {
  @Test
  void theDeepestCauseSaysWhatWentWrong() {
    String trace = "org.apache.flink.runtime.JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy\n"
        + "\tat org.apache.flink.runtime.executiongraph.failover.ExecutionFailureHandler.handleFailure(X.java:1)\n"
        + "Caused by: java.lang.IllegalArgumentException: bad value\n"
        + "\tat some.Where(Where.java:2)\n";
    assertThat(JobFailures.rootCause(trace)).isEqualTo("java.lang.IllegalArgumentException: bad value");
  }

  @Test
  void aJavaFoldsFailureKeepsTheClassEventAndRowKey() {
    String trace = "org.apache.flink.runtime.JobException: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy\n"
        + "Caused by: dev.streamfold.transforms.job.FoldStage$FoldFailure: tf.AcctFold failed on event 8:26:1:13"
        + " (row key 'acct28'): java.lang.IllegalStateException: boom at 2100\n"
        + "\tat dev.streamfold.transforms.job.FoldStage$Apply.processElement(FoldStage.java:189)\n"
        + "Caused by: java.lang.IllegalStateException: boom at 2100\n"
        + "\tat tf.AcctFold.apply(AcctFold.java:12)\n";
    assertThat(JobFailures.rootCause(trace)).isEqualTo("tf.AcctFold failed on event 8:26:1:13 (row key 'acct28'):"
        + " java.lang.IllegalStateException: boom at 2100");
  }
}
