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
 * @param flinkRestAddress {@code host:port} of a Flink session cluster's REST API (its JobManager) to run
 *     the jobs on; null for the embedded MiniCluster (the default). The cluster needs Streamfold's job
 *     classes on its class path, and for training sets a file system shared with the server (they write
 *     their output and progress files under {@code dataDir})
 * @param checkpointsUri base URI of the views' retained checkpoints, e.g. {@code s3://bucket/checkpoints}
 *     (through Flink's S3 file system plugin, on the server and the cluster) or {@code file:///...}; null for
 *     {@code <dataDir>/checkpoints}. A remote cluster must be able to write it and the server to list it
 * @param stallAfter how long a backfilling view's job may run without a commit, with events still to apply,
 *     before its status says it is stalled and where the events it waits for are stored; null for
 *     {@link #defaultStallAfter} of the checkpoint interval. A backfill commits at every checkpoint it makes
 *     progress in, so a silence of many intervals means the job's source reads nothing (e.g. offloaded
 *     segments while the S3 endpoint is down: the broker retries such reads and the consumer just waits)
 */
public record TransformOptions(String redisUri, Path dataDir, Duration checkpointInterval, int parallelism,
    int taskSlots, java.util.Set<String> tenants, String flinkRestAddress, String checkpointsUri,
    Duration stallAfter) {
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
    if (flinkRestAddress != null && !flinkRestAddress.matches("[^:\\s]+:\\d{1,5}")) {
      throw new IllegalArgumentException("Flink REST address must be host:port, got '" + flinkRestAddress + "'");
    }
    checkpointsUri = checkpointsUri != null ? checkpointsUri.replaceAll("/+$", "")
        : dataDir.toAbsolutePath().resolve("checkpoints").toUri().toString().replaceAll("/+$", "");
    if (parallelism < 1 || taskSlots < 1) {
      throw new IllegalArgumentException("parallelism and task slots must be >= 1, got "
          + parallelism + " and " + taskSlots);
    }
    stallAfter = stallAfter == null ? defaultStallAfter(checkpointInterval) : stallAfter;
    if (stallAfter.isNegative() || stallAfter.isZero()) {
      throw new IllegalArgumentException("stall time must be positive, got " + stallAfter.toMillis() + " ms");
    }
  }

  /**
   * The default stall time for a checkpoint interval: 30 intervals, at least 60 s (a checkpoint of a large
   * state under backpressure can take many intervals without anything being wrong).
   *
   * @param checkpointInterval the checkpoint interval
   * @return the stall time
   */
  public static Duration defaultStallAfter(Duration checkpointInterval) {
    Duration thirty = checkpointInterval.multipliedBy(30);
    return thirty.compareTo(Duration.ofSeconds(60)) > 0 ? thirty : Duration.ofSeconds(60);
  }

  /** Options with the default stall time. */
  public TransformOptions(String redisUri, Path dataDir, Duration checkpointInterval, int parallelism, int taskSlots,
      java.util.Set<String> tenants, String flinkRestAddress, String checkpointsUri) {
    this(redisUri, dataDir, checkpointInterval, parallelism, taskSlots, tenants, flinkRestAddress, checkpointsUri,
        null);
  }

  /** Options of an embedded MiniCluster with checkpoints under the data directory. */
  public TransformOptions(String redisUri, Path dataDir, Duration checkpointInterval, int parallelism, int taskSlots,
      java.util.Set<String> tenants) {
    this(redisUri, dataDir, checkpointInterval, parallelism, taskSlots, tenants, null, null, null);
  }

  /**
   * Return a copy running jobs on a Flink session cluster.
   *
   * @param address the JobManager's REST address {@code host:port}, or null for the embedded MiniCluster
   * @return the copy
   */
  public TransformOptions withFlinkRestAddress(String address) {
    return new TransformOptions(redisUri, dataDir, checkpointInterval, parallelism, taskSlots, tenants, address,
        checkpointsUri, stallAfter);
  }

  /**
   * Return a copy with another stall time.
   *
   * @param after the stall time, positive; null for the default
   * @return the copy
   * @throws IllegalArgumentException if {@code after} is zero or negative
   */
  public TransformOptions withStallAfter(Duration after) {
    return new TransformOptions(redisUri, dataDir, checkpointInterval, parallelism, taskSlots, tenants,
        flinkRestAddress, checkpointsUri, after);
  }

  /** Options with defaults for everything but Redis and the data directory. */
  public static TransformOptions of(String redisUri, Path dataDir) {
    return new TransformOptions(redisUri, dataDir, DEFAULT_CHECKPOINT_INTERVAL, DEFAULT_PARALLELISM, DEFAULT_TASK_SLOTS,
        java.util.Set.of());
  }
}
