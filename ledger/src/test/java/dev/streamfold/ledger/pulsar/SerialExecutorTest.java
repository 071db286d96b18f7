package dev.streamfold.ledger.pulsar;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class SerialExecutorTest {

  /** A pool whose tasks run only when the test says so, to control interleavings without threads. */
  private static final class ManualPool implements Executor {
    final Queue<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    void runAll() {
      while (!tasks.isEmpty()) {
        tasks.poll().run();
      }
    }
  }

  @Test
  void runsTasksOneAtATimeInSubmissionOrderWithOnePoolTaskWhileBusy() {
    ManualPool pool = new ManualPool();
    SerialExecutor serial = new SerialExecutor(pool);
    List<Integer> ran = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int n = i;
      serial.execute(() -> ran.add(n));
    }
    assertThat(pool.tasks).hasSize(1); // one drain for the whole queue
    pool.runAll();
    assertThat(ran).containsExactly(0, 1, 2, 3, 4);
    serial.execute(() -> ran.add(5));
    assertThat(pool.tasks).hasSize(1); // idle again: the next task starts a new drain
    pool.runAll();
    assertThat(ran).containsExactly(0, 1, 2, 3, 4, 5);
  }

  @Test
  void aTaskSubmittedByARunningTaskRunsAfterIt() {
    ManualPool pool = new ManualPool();
    SerialExecutor serial = new SerialExecutor(pool);
    List<String> ran = new ArrayList<>();
    serial.execute(() -> {
      serial.execute(() -> ran.add("inner"));
      ran.add("outer");
    });
    pool.runAll();
    assertThat(ran).containsExactly("outer", "inner");
  }

  @Test
  void aThrowingTaskDoesNotStopTheOnesAfterIt() {
    ManualPool pool = new ManualPool();
    SerialExecutor serial = new SerialExecutor(pool);
    List<Integer> ran = new ArrayList<>();
    Thread.UncaughtExceptionHandler previous = Thread.currentThread().getUncaughtExceptionHandler();
    List<Throwable> reported = new ArrayList<>();
    Thread.currentThread().setUncaughtExceptionHandler((t, e) -> reported.add(e));
    try {
      serial.execute(() -> ran.add(1));
      serial.execute(() -> {
        throw new IllegalStateException("boom");
      });
      serial.execute(() -> ran.add(3));
      pool.runAll();
    } finally {
      Thread.currentThread().setUncaughtExceptionHandler(previous);
    }
    assertThat(ran).containsExactly(1, 3);
    assertThat(reported).singleElement().extracting(Throwable::getMessage).isEqualTo("boom");
  }
}
