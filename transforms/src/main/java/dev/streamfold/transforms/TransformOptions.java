package dev.streamfold.transforms;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * Options of the transform manager. Build them with {@link #builder(String, Path)}: every option but Redis and
 * the data directory has a default.
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
 *     tenant of the Pulsar cluster (the default, {@link #DEFAULT_TENANTS}: one Streamfold server per cluster)
 * @param flinkRestAddress {@code host:port} of a Flink session cluster's REST API (its JobManager) to run
 *     the jobs on; null for the embedded MiniCluster (the default). The cluster needs Streamfold's job
 *     classes on its class path, and for training sets a file system shared with the server (they write
 *     their output and progress files under {@code dataDir})
 * @param checkpointsUri base URI of the views' retained checkpoints, e.g. {@code s3://bucket/checkpoints}
 *     (through Flink's S3 file system plugin, on the server and the cluster) or {@code file:///...}; null for
 *     {@code <dataDir>/checkpoints} (the default). A remote cluster must be able to write it and the server to
 *     list it
 * @param stallAfter how long a backfilling view's job may run without a commit, with events still to apply,
 *     before its status says it is stalled and where the events it waits for are stored; null for
 *     {@link #defaultStallAfter} of the checkpoint interval (the default). A backfill commits at every
 *     checkpoint it makes progress in, so a silence of many intervals means the job's source reads nothing
 *     (e.g. offloaded segments while the S3 endpoint is down: the broker retries such reads and the consumer
 *     just waits)
 */
public record TransformOptions(String redisUri, Path dataDir, Duration checkpointInterval, int parallelism,
    int taskSlots, Set<String> tenants, String flinkRestAddress, String checkpointsUri,
    Duration stallAfter) {
  /** Default time between checkpoints and view commits: 1 s. */
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(1);
  /** Default parallelism of each view job: 1. */
  public static final int DEFAULT_PARALLELISM = 1;
  /** Default task slots of the embedded Flink MiniCluster: 32. */
  public static final int DEFAULT_TASK_SLOTS = 32;
  /** Default tenants to resume: none named, which means every tenant of the Pulsar cluster. */
  public static final Set<String> DEFAULT_TENANTS = Set.of();

  /**
   * Create options; a null checkpoint interval, tenant set, checkpoints URI or stall time takes its default.
   *
   * @throws NullPointerException if {@code redisUri} or {@code dataDir} is null
   * @throws IllegalArgumentException if the checkpoint interval is below 100 ms, the Flink REST address is not
   *     {@code host:port}, parallelism or task slots are below 1, or the stall time is not positive
   */
  public TransformOptions {
    Objects.requireNonNull(redisUri, "redisUri");
    Objects.requireNonNull(dataDir, "dataDir");
    checkpointInterval = checkpointInterval == null ? DEFAULT_CHECKPOINT_INTERVAL : checkpointInterval;
    if (checkpointInterval.toMillis() < 100) {
      throw new IllegalArgumentException("checkpoint interval must be at least 100 ms, got "
          + checkpointInterval.toMillis() + " ms");
    }
    tenants = tenants == null ? Set.of() : Set.copyOf(tenants);
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

  /**
   * Return a builder of options with every default but Redis and the data directory; {@link Builder#build()}
   * validates them.
   *
   * @param redisUri Redis holding the views, e.g. {@code redis://127.0.0.1:6379}
   * @param dataDir directory for retained checkpoints and Flink's temporary files
   * @return the builder
   */
  public static Builder builder(String redisUri, Path dataDir) {
    return new Builder(redisUri, dataDir);
  }

  /** Builder of {@link TransformOptions}: one setter per option, each option its default until set. */
  public static final class Builder {
    private final String redisUri;
    private final Path dataDir;
    private Duration checkpointInterval = DEFAULT_CHECKPOINT_INTERVAL;
    private int parallelism = DEFAULT_PARALLELISM;
    private int taskSlots = DEFAULT_TASK_SLOTS;
    private Set<String> tenants = DEFAULT_TENANTS;
    private String flinkRestAddress;
    private String checkpointsUri;
    private Duration stallAfter;

    private Builder(String redisUri, Path dataDir) {
      this.redisUri = redisUri;
      this.dataDir = dataDir;
    }

    /**
     * Set the time between checkpoints, which is also the view commit interval.
     *
     * @param checkpointInterval at least 100 ms; null for {@link TransformOptions#DEFAULT_CHECKPOINT_INTERVAL}
     *     (the default)
     * @return this builder
     */
    public Builder checkpointInterval(Duration checkpointInterval) {
      this.checkpointInterval = checkpointInterval;
      return this;
    }

    /**
     * Set the parallelism of each view job (its source and view sink run with parallelism 1 regardless).
     *
     * @param parallelism at least 1 (default {@link TransformOptions#DEFAULT_PARALLELISM})
     * @return this builder
     */
    public Builder parallelism(int parallelism) {
      this.parallelism = parallelism;
      return this;
    }

    /**
     * Set the task slots of the embedded Flink MiniCluster: the bound on how many view jobs run at once.
     *
     * @param taskSlots at least 1 (default {@link TransformOptions#DEFAULT_TASK_SLOTS})
     * @return this builder
     */
    public Builder taskSlots(int taskSlots) {
      this.taskSlots = taskSlots;
      return this;
    }

    /**
     * Set the tenants whose transformations the manager resumes at start.
     *
     * @param tenants tenant names; empty or null for every tenant of the Pulsar cluster
     *     ({@link TransformOptions#DEFAULT_TENANTS}, the default)
     * @return this builder
     */
    public Builder tenants(Set<String> tenants) {
      this.tenants = tenants;
      return this;
    }

    /**
     * Set the Flink session cluster to run the jobs on.
     *
     * @param flinkRestAddress {@code host:port} of its REST API (its JobManager); null for the embedded
     *     MiniCluster (the default)
     * @return this builder
     */
    public Builder flinkRestAddress(String flinkRestAddress) {
      this.flinkRestAddress = flinkRestAddress;
      return this;
    }

    /**
     * Set the base URI of the views' retained checkpoints.
     *
     * @param checkpointsUri e.g. {@code s3://bucket/checkpoints} or {@code file:///...}, trailing slashes
     *     dropped; null for {@code <dataDir>/checkpoints} (the default)
     * @return this builder
     */
    public Builder checkpointsUri(String checkpointsUri) {
      this.checkpointsUri = checkpointsUri;
      return this;
    }

    /**
     * Set how long a backfilling view's job may run without a commit, with events still to apply, before its
     * status says it is stalled.
     *
     * @param stallAfter positive; null for {@link TransformOptions#defaultStallAfter} of the checkpoint interval
     *     (the default)
     * @return this builder
     */
    public Builder stallAfter(Duration stallAfter) {
      this.stallAfter = stallAfter;
      return this;
    }

    /**
     * Create the options.
     *
     * @return the options, nulls replaced by their defaults
     * @throws NullPointerException if {@code redisUri} or {@code dataDir} is null
     * @throws IllegalArgumentException if the checkpoint interval is below 100 ms, the Flink REST address is not
     *     {@code host:port}, parallelism or task slots are below 1, or the stall time is not positive
     */
    public TransformOptions build() {
      return new TransformOptions(redisUri, dataDir, checkpointInterval, parallelism, taskSlots, tenants,
          flinkRestAddress, checkpointsUri, stallAfter);
    }
  }
}
