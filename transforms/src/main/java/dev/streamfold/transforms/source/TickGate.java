package dev.streamfold.transforms.source;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lockstep between a bounded {@link ClockedLedgerSource} and the operator at the end of its job that needs each
 * tick whole before the next one starts: the source waits, before it emits a gated tick, until that operator has
 * {@link #completed} the tick before it.
 *
 * <p>Why: an operator with several inputs (a join, a union) takes records from whichever input has some, so its
 * output mixes the effects of consecutive events in any order; watermarks say only that everything up to an event
 * has arrived, never that nothing later has. A training set's feature from a view over several streams must be the
 * view's state at the end of a tick exactly, so nothing of the next tick may enter the job before that state has
 * been read (docs/training-sets.md, "As served").
 *
 * <p>Both ends run in one JVM: a training job runs with parallelism 1, so all its tasks share one slot. A gate is
 * named by a random id the job builder gives both ends; {@link #close} forgets it.
 */
public final class TickGate {
  private static final Map<String, TickGate> GATES = new ConcurrentHashMap<>();

  private long completed;
  private boolean opened;
  private boolean closed;

  private TickGate() {}

  /**
   * The gate of this id, created on first use.
   *
   * @param id the gate's id
   * @return the gate
   */
  public static TickGate of(String id) {
    return GATES.computeIfAbsent(id, k -> new TickGate());
  }

  /** Say that the operator the source waits for is running (in this JVM). */
  public synchronized void opened() {
    opened = true;
    notifyAll();
  }

  /**
   * Say that every effect of the ticks up to {@code tick} has been taken.
   *
   * @param tick the tick
   */
  public synchronized void completed(long tick) {
    completed = Math.max(completed, tick);
    notifyAll();
  }

  /**
   * Wait until the ticks up to {@code tick} are complete.
   *
   * @param tick the tick
   * @param opening the longest wait for the other end to say it {@link #opened} (it may not run in this JVM)
   * @throws IllegalStateException if the gate was closed (the other end ended), or not opened within {@code opening}
   * @throws InterruptedException if the waiting thread is interrupted (the job is cancelled)
   */
  public synchronized void await(long tick, Duration opening) throws InterruptedException {
    long deadline = System.nanoTime() + opening.toNanos();
    while (completed < tick) {
      if (closed) {
        throw new IllegalStateException("the operator this source waits for ended before tick " + tick + " completed");
      }
      long left = deadline - System.nanoTime();
      if (!opened && left <= 0) {
        throw new IllegalStateException("the operator this source waits for did not start within " + opening.toMillis()
            + " ms in this JVM (a training job must run with parallelism 1, in one slot)");
      }
      wait(opened ? 1_000 : Math.max(1, left / 1_000_000));
    }
  }

  /**
   * Forget a gate; a source still waiting on it fails.
   *
   * @param id the gate's id
   */
  public static void close(String id) {
    TickGate gate = GATES.remove(id);
    if (gate != null) {
      synchronized (gate) {
        gate.closed = true;
        gate.notifyAll();
      }
    }
  }
}
