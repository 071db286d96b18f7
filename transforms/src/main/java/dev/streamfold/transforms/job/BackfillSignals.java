package dev.streamfold.transforms.job;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-process hand-over of "this view job's {@link PositionTracker} has applied its backfill target", from
 * the job's task to the transform manager that submitted it, so that the manager can trigger a checkpoint
 * at once: the commit that makes a view LIVE is the first one after the target, and with periodic
 * checkpoints alone it waited up to a checkpoint interval plus the min pause after the last event.
 *
 * <p>It is a hint only. The sink still decides LIVE from the committed position vector against the
 * message-ID target ({@code RedisViewSink.phase}); an early signal just adds a checkpoint that commits
 * BACKFILLING, and a missing one (a job on a remote Flink cluster, whose tasks run in another JVM, or a
 * restored job already past its target) leaves LIVE to the next periodic checkpoint, as before.
 */
public final class BackfillSignals {
  private static final Logger LOG = LoggerFactory.getLogger(BackfillSignals.class);
  private static final Map<JobID, Runnable> LISTENERS = new ConcurrentHashMap<>();

  private BackfillSignals() {}

  /**
   * Call {@code onTargetReached} (once) when a tracker of job {@code job} in this JVM reaches its target.
   *
   * @param job the job, registered before it is submitted
   * @param onTargetReached runs on the task's thread: it must not block (e.g. request a checkpoint
   *     asynchronously)
   */
  public static void register(JobID job, Runnable onTargetReached) {
    LISTENERS.put(job, onTargetReached);
  }

  /**
   * Forget a job's listener (when the job ended or was replaced).
   *
   * @param job the job
   */
  public static void unregister(JobID job) {
    LISTENERS.remove(job);
  }

  /**
   * Signal that job {@code job} applied its backfill target; runs and removes its listener, if any.
   *
   * @param job the job
   * @return true when a listener ran
   */
  static boolean reached(JobID job) {
    Runnable listener = LISTENERS.remove(job);
    if (listener == null) {
      return false;
    }
    try {
      listener.run();
    } catch (RuntimeException e) {
      LOG.warn("backfill target listener of job {} failed (the next periodic checkpoint makes the view LIVE)", job, e);
    }
    return true;
  }
}
