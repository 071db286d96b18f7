package dev.streamfold.ledger.pulsar;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.Executor;

/**
 * Runs tasks one at a time, in the order they were submitted, on threads of a shared executor (like
 * gRPC's {@code SerializingExecutor}). A task that throws does not stop the ones after it. Thread-safe.
 *
 * <p>Used to hand a stream's validated append requests to a sender thread in order, so that the caller
 * (a gRPC call's thread) parses and validates the next request while the previous one is being sent.
 */
final class SerialExecutor implements Executor {
  private final Executor pool;
  private final Queue<Runnable> queue = new ArrayDeque<>();
  private boolean running;

  /**
   * Create a serial executor.
   *
   * @param pool where the tasks run
   * @throws NullPointerException if {@code pool} is null
   */
  SerialExecutor(Executor pool) {
    this.pool = Objects.requireNonNull(pool, "pool");
  }

  /**
   * Run a task after every task submitted before it.
   *
   * @param task the task
   * @throws NullPointerException if {@code task} is null
   * @throws java.util.concurrent.RejectedExecutionException if the pool refuses to run the queue (the task
   *     stays queued and runs with the next accepted submission)
   */
  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    synchronized (queue) {
      queue.add(task);
      if (running) {
        return;
      }
      running = true;
    }
    try {
      pool.execute(this::drain);
    } catch (RuntimeException e) {
      synchronized (queue) {
        running = false;
      }
      throw e;
    }
  }

  private void drain() {
    while (true) {
      Runnable task;
      synchronized (queue) {
        task = queue.poll();
        if (task == null) {
          running = false;
          return;
        }
      }
      try {
        task.run();
      } catch (RuntimeException e) {
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t, e);
      }
    }
  }
}
