package dev.streamfold.transforms.job;

import dev.streamfold.schema.StreamColumn;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformOptions;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What every job running a transformation needs, whether it fills a view version ({@link ViewJobBuilder#build})
 * or a virtual state ({@link ViewJobBuilder#buildReplay}): the transformation, its source stream, the ledger's
 * and the views' endpoints, and the checkpointing. Built with {@link #builder}.
 *
 * @param definition the transformation version the job runs
 * @param streamColumns the source stream's declared columns
 * @param topic the source stream's Pulsar topic
 * @param partitions the stream's partitions (0: unpartitioned)
 * @param watermarkDelayMs the source stream's watermark delay, ms (used by event-time windows)
 * @param serviceUrl Pulsar service URL
 * @param adminUrl Pulsar admin URL
 * @param redisUri Redis URI of the views
 * @param checkpointDir URI of the job's checkpoint directory, e.g. {@code file:///...}: the version's retained
 *     checkpoints, or a replay's scratch
 * @param checkpointInterval checkpoint (and view commit) interval
 * @param parallelism parallelism of the SQL operators
 * @param clockedStreams for a job over several streams, read in the tenant clock's order: each stream's declared
 *     columns, by name ({@code streamColumns}, {@code topic} and {@code partitions} are then unused: empty, "" and
 *     0); empty for a job over one stream
 * @param clockedWatermarkDelays for a job over several streams: each stream's watermark delay, ms, by name (used by
 *     event-time windows over that stream); empty for a job over one stream
 */
public record ViewJobSpec(TransformDefinition definition, List<StreamColumn> streamColumns, String topic,
    int partitions, long watermarkDelayMs, String serviceUrl, String adminUrl, String redisUri, String checkpointDir,
    Duration checkpointInterval, int parallelism, SortedMap<String, List<StreamColumn>> clockedStreams,
    SortedMap<String, Long> clockedWatermarkDelays) {

  public ViewJobSpec {
    Objects.requireNonNull(definition, "definition");
    clockedStreams = Collections.unmodifiableSortedMap(new TreeMap<>(clockedStreams));
    clockedWatermarkDelays = Collections.unmodifiableSortedMap(new TreeMap<>(clockedWatermarkDelays));
    if (!clockedWatermarkDelays.keySet().equals(clockedStreams.keySet())) {
      throw new IllegalArgumentException("watermark delays of streams " + clockedWatermarkDelays.keySet()
          + " for a job over streams " + clockedStreams.keySet());
    }
    if (clockedStreams.isEmpty()) {
      Objects.requireNonNull(streamColumns, "streamColumns");
      Objects.requireNonNull(topic, "topic");
    } else {
      streamColumns = List.of();
      topic = "";
    }
    Objects.requireNonNull(serviceUrl, "serviceUrl");
    Objects.requireNonNull(adminUrl, "adminUrl");
    Objects.requireNonNull(redisUri, "redisUri");
    Objects.requireNonNull(checkpointDir, "checkpointDir");
    Objects.requireNonNull(checkpointInterval, "checkpointInterval");
    if (partitions < 0 || parallelism < 1) {
      throw new IllegalArgumentException("partitions must be >= 0 and parallelism >= 1, got " + partitions + " and "
          + parallelism);
    }
  }

  /** A builder of the job of {@code definition}. */
  public static Builder builder(TransformDefinition definition) {
    return new Builder(definition);
  }

  /** Builds a {@link ViewJobSpec}; every setter returns the builder. */
  public static final class Builder {
    private final TransformDefinition definition;
    private List<StreamColumn> streamColumns;
    private String topic;
    private int partitions;
    private long watermarkDelayMs;
    private String serviceUrl;
    private String adminUrl;
    private String redisUri;
    private String checkpointDir;
    private Duration checkpointInterval = TransformOptions.DEFAULT_CHECKPOINT_INTERVAL;
    private int parallelism = TransformOptions.DEFAULT_PARALLELISM;
    private SortedMap<String, List<StreamColumn>> clockedStreams = new TreeMap<>();
    private SortedMap<String, Long> clockedWatermarkDelays = new TreeMap<>();

    private Builder(TransformDefinition definition) {
      this.definition = definition;
    }

    /**
     * The source stream.
     *
     * @param columns its declared columns
     * @param topic its Pulsar topic
     * @param partitions its partitions (0: unpartitioned)
     * @param watermarkDelayMs its watermark delay, ms
     */
    public Builder stream(List<StreamColumn> columns, String topic, int partitions, long watermarkDelayMs) {
      this.streamColumns = columns;
      this.topic = topic;
      this.partitions = partitions;
      this.watermarkDelayMs = watermarkDelayMs;
      return this;
    }

    /**
     * The streams of a job over several streams, read in the tenant clock's order (instead of {@link #stream}).
     *
     * @param columns each stream's declared columns, by stream name
     * @param watermarkDelaysMs each stream's watermark delay, ms, by stream name (the same streams)
     */
    public Builder clockedStreams(Map<String, List<StreamColumn>> columns, Map<String, Long> watermarkDelaysMs) {
      this.clockedStreams = new TreeMap<>(columns);
      this.clockedWatermarkDelays = new TreeMap<>(watermarkDelaysMs);
      return this;
    }

    /** The ledger's Pulsar service and admin URLs. */
    public Builder ledger(String serviceUrl, String adminUrl) {
      this.serviceUrl = serviceUrl;
      this.adminUrl = adminUrl;
      return this;
    }

    /** The views' Redis URI. */
    public Builder redisUri(String redisUri) {
      this.redisUri = redisUri;
      return this;
    }

    /** The job's checkpoint directory (a URI) and interval (default {@link TransformOptions#DEFAULT_CHECKPOINT_INTERVAL}). */
    public Builder checkpoints(String checkpointDir, Duration checkpointInterval) {
      this.checkpointDir = checkpointDir;
      this.checkpointInterval = checkpointInterval;
      return this;
    }

    /** The SQL operators' parallelism (default {@link TransformOptions#DEFAULT_PARALLELISM}). */
    public Builder parallelism(int parallelism) {
      this.parallelism = parallelism;
      return this;
    }

    /**
     * @return the spec
     * @throws NullPointerException naming a field that was not set
     */
    public ViewJobSpec build() {
      return new ViewJobSpec(definition, streamColumns, topic, partitions, watermarkDelayMs, serviceUrl, adminUrl,
          redisUri, checkpointDir, checkpointInterval, parallelism, clockedStreams, clockedWatermarkDelays);
    }
  }
}
