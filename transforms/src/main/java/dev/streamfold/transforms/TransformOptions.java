package dev.streamfold.transforms;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Options of the transform manager.
 *
 * @param redisUri Redis holding the views, e.g. {@code redis://127.0.0.1:6379}
 * @param dataDir directory for retained checkpoints and Flink's temporary files
 * @param checkpointInterval time between checkpoints, which is also the view commit interval (default
 *     {@link #DEFAULT_CHECKPOINT_INTERVAL}): the bound on how stale a LIVE view is
 * @param parallelism parallelism of each view job (default {@link #DEFAULT_PARALLELISM}); the source
 *     and the view sink run with parallelism 1 regardless
 * @param taskSlots task slots of the embedded Flink MiniCluster (default {@link #DEFAULT_TASK_SLOTS}):
 *     bounds how many view jobs run at once
 * @param tenants the tenants whose transformations this manager resumes at start; empty for every
 *     tenant of the Pulsar cluster (the default: one Streamfold server per cluster)
 */
public record TransformOptions(String redisUri, Path dataDir, Duration checkpointInterval, int parallelism,
    int taskSlots, java.util.Set<String> tenants) {
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(1);
  public static final int DEFAULT_PARALLELISM = 1;
  public static final int DEFAULT_TASK_SLOTS = 32;

  /**
   * Create options.
   *
   * @throws IllegalArgumentException if the interval is below 100 ms or parallelism/slots below 1
   */
  public TransformOptions {
    Objects.requireNonNull(redisUri, "redisUri");
    Objects.requireNonNull(dataDir, "dataDir");
    checkpointInterval = checkpointInterval == null ? DEFAULT_CHECKPOINT_INTERVAL : checkpointInterval;
    if (checkpointInterval.toMillis() < 100) {
      throw new IllegalArgumentException("checkpoint interval must be at least 100 ms, got "
          + checkpointInterval.toMillis() + " ms");
    }
    tenants = tenants == null ? java.util.Set.of() : java.util.Set.copyOf(tenants);
    if (parallelism < 1 || taskSlots < 1) {
      throw new IllegalArgumentException("parallelism and task slots must be >= 1, got "
          + parallelism + " and " + taskSlots);
    }
  }

  /** Options with defaults for everything but Redis and the data directory. */
  public static TransformOptions of(String redisUri, Path dataDir) {
    return new TransformOptions(redisUri, dataDir, DEFAULT_CHECKPOINT_INTERVAL, DEFAULT_PARALLELISM, DEFAULT_TASK_SLOTS,
        java.util.Set.of());
  }
}
