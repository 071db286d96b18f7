package dev.streamfold.deploy.process;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Offload of closed ledger segments from a {@link PulsarStandaloneProcess} to an S3-compatible endpoint
 * (AWS S3, Google Cloud Storage's XML API with HMAC keys, MinIO, the local {@link S3ProxyProcess}) with
 * Pulsar's {@code jcloud} offloader and its {@code S3} driver (docs/stack.md "Tiered storage to S3").
 *
 * <p>Credentials never reach the broker's config file or command line: they are passed as the broker's
 * environment variables {@value #ENV_ACCESS_KEY_ID} and {@value #ENV_ACCESS_KEY_SECRET}, taken from
 * {@link Builder#credentials(String, String)} or else from the environment of the JVM that starts the
 * broker. {@link #toString()} does not show the secret.
 *
 * @param endpoint S3 endpoint URL, e.g. {@code http://127.0.0.1:9000} or {@code https://s3.eu-west-1.amazonaws.com}
 * @param bucket the bucket that receives offloaded segments (it must exist)
 * @param region the bucket's region, e.g. {@code us-east-1}
 * @param accessKeyId access key id, or null to take {@value #ENV_ACCESS_KEY_ID} from the environment
 * @param secretAccessKey secret access key, or null to take {@value #ENV_ACCESS_KEY_SECRET} from the environment
 * @param maxBlockSizeBytes size of one uploaded block (one multipart part), at least
 *     {@link #MIN_BLOCK_SIZE_BYTES}
 * @param deletionLagMs time after a segment's offload at which its local (BookKeeper) copy is deleted,
 *     in milliseconds, 0 or more
 * @param retentionCheckIntervalSeconds how often the broker looks for segments to delete, in seconds,
 *     1 or more
 * @param maxEntriesPerLedger entries after which a segment is closed, or {@link #BROKER_DEFAULT} for the
 *     broker's default (50,000)
 * @param minLedgerRolloverTimeMinutes minimum age of a segment before it is closed, in minutes, or
 *     {@link #BROKER_DEFAULT} for the broker's default (10)
 * @param readPriority where reads of an offloaded segment go while its local copy still exists
 */
public record TieredStorage(URI endpoint, String bucket, String region, String accessKeyId,
    String secretAccessKey, long maxBlockSizeBytes, long deletionLagMs, int retentionCheckIntervalSeconds,
    int maxEntriesPerLedger, int minLedgerRolloverTimeMinutes, ReadPriority readPriority) {

  /** Environment variable of the broker holding the access key id (read by the jcloud S3 driver). */
  public static final String ENV_ACCESS_KEY_ID = "ACCESS_KEY_ID";
  /** Environment variable of the broker holding the secret access key (read by the jcloud S3 driver). */
  public static final String ENV_ACCESS_KEY_SECRET = "ACCESS_KEY_SECRET";
  /** Offloader driver name: the generic S3 API, honouring the endpoint (the {@code aws-s3} driver does not). */
  public static final String DRIVER = "S3";
  /** Region when none is given. */
  public static final String DEFAULT_REGION = "us-east-1";
  /** Block size when none is given: Pulsar's default, 64 MiB. */
  public static final long DEFAULT_MAX_BLOCK_SIZE_BYTES = 64L * 1024 * 1024;
  /** Smallest block size: S3's minimum multipart part, 5 MiB. */
  public static final long MIN_BLOCK_SIZE_BYTES = 5L * 1024 * 1024;
  /** Deletion lag when none is given: Pulsar's default, 4 hours. */
  public static final long DEFAULT_DELETION_LAG_MS = Duration.ofHours(4).toMillis();
  /** Retention check interval when none is given: Pulsar's default, 120 s. */
  public static final int DEFAULT_RETENTION_CHECK_INTERVAL_SECONDS = 120;
  /** Value of a segment setting that leaves the broker's default in place. */
  public static final int BROKER_DEFAULT = -1;
  /** Read priority when none is given. */
  public static final ReadPriority DEFAULT_READ_PRIORITY = ReadPriority.BOOKKEEPER_FIRST;

  /** Where the broker reads an offloaded segment whose local copy has not been deleted yet. */
  public enum ReadPriority {
    /**
     * Read the local copy until the deletion lag removes it, then S3: reads stay local and keep working
     * when S3 is unreachable during the lag; once the local copy is gone every read of the segment needs S3.
     */
    BOOKKEEPER_FIRST("bookkeeper-first"),
    /** Read S3 as soon as the segment is offloaded (Pulsar's default), even while a local copy exists. */
    TIERED_STORAGE_FIRST("tiered-storage-first");

    private final String configValue;

    ReadPriority(String configValue) {
      this.configValue = configValue;
    }

    /** The value of the broker key {@code managedLedgerDataReadPriority}. */
    public String configValue() {
      return configValue;
    }
  }

  /**
   * Create options; prefer {@link #builder(URI, String)}.
   *
   * @throws NullPointerException if endpoint, bucket, region or readPriority is null
   * @throws IllegalArgumentException if a value is out of range (the message names it and its value)
   */
  public TieredStorage {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(readPriority, "readPriority");
    String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null) {
      throw new IllegalArgumentException("endpoint must be an http(s) URL with a host, got " + endpoint);
    }
    if (!S3ProxyProcess.isValidBucketName(bucket)) {
      throw new IllegalArgumentException("bucket must be an S3 bucket name (3-63 characters: a-z, 0-9, '-', '.'),"
          + " got '" + bucket + "'");
    }
    if (region.isBlank() || !region.equals(region.strip())) {
      throw new IllegalArgumentException("region must be a region name such as us-east-1, got '" + region + "'");
    }
    if ((accessKeyId == null) != (secretAccessKey == null)) {
      throw new IllegalArgumentException("give both the access key id and the secret, or neither (to take "
          + ENV_ACCESS_KEY_ID + " and " + ENV_ACCESS_KEY_SECRET + " from the environment)");
    }
    if (maxBlockSizeBytes < MIN_BLOCK_SIZE_BYTES || maxBlockSizeBytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("maxBlockSizeBytes must be " + MIN_BLOCK_SIZE_BYTES + ".." + Integer.MAX_VALUE
          + ", got " + maxBlockSizeBytes);
    }
    if (deletionLagMs < 0) {
      throw new IllegalArgumentException("deletionLagMs must be 0 or more, got " + deletionLagMs);
    }
    if (retentionCheckIntervalSeconds < 1) {
      throw new IllegalArgumentException("retentionCheckIntervalSeconds must be 1 or more, got "
          + retentionCheckIntervalSeconds);
    }
    if (maxEntriesPerLedger != BROKER_DEFAULT && maxEntriesPerLedger < 1) {
      throw new IllegalArgumentException("maxEntriesPerLedger must be 1 or more (or BROKER_DEFAULT), got "
          + maxEntriesPerLedger);
    }
    if (minLedgerRolloverTimeMinutes != BROKER_DEFAULT && minLedgerRolloverTimeMinutes < 0) {
      throw new IllegalArgumentException("minLedgerRolloverTimeMinutes must be 0 or more (or BROKER_DEFAULT), got "
          + minLedgerRolloverTimeMinutes);
    }
  }

  /**
   * Start options for an endpoint and bucket, with every other value at its default.
   *
   * @param endpoint S3 endpoint URL
   * @param bucket existing bucket
   * @return a builder
   */
  public static Builder builder(URI endpoint, String bucket) {
    return new Builder(endpoint, bucket);
  }

  /**
   * Start options that offload to a running s3proxy, with its bucket and credentials.
   *
   * @param s3 the endpoint
   * @return a builder
   */
  public static Builder builder(S3ProxyProcess s3) {
    return new Builder(URI.create(s3.endpoint()), s3.bucket()).credentials(s3.accessKeyId(), s3.secretAccessKey());
  }

  /**
   * Return the broker configuration lines of this offload (no credentials).
   *
   * @param offloadersDir absolute directory holding the offloader NAR
   * @param narExtractionDir absolute directory where the broker unpacks NARs
   * @return {@code key=value} lines
   * @throws IllegalArgumentException if a directory is not absolute
   */
  List<String> brokerConfig(Path offloadersDir, Path narExtractionDir) {
    if (!offloadersDir.isAbsolute() || !narExtractionDir.isAbsolute()) {
      throw new IllegalArgumentException("offloader directories must be absolute, got " + offloadersDir + " and "
          + narExtractionDir);
    }
    List<String> lines = new ArrayList<>(List.of(
        "managedLedgerOffloadDriver=" + DRIVER,
        "managedLedgerOffloadServiceEndpoint=" + endpoint,
        "managedLedgerOffloadRegion=" + region,
        "managedLedgerOffloadBucket=" + bucket,
        "managedLedgerOffloadMaxBlockSizeInBytes=" + maxBlockSizeBytes,
        "managedLedgerOffloadDeletionLagMs=" + deletionLagMs,
        "managedLedgerDataReadPriority=" + readPriority.configValue(),
        "offloadersDirectory=" + offloadersDir,
        "narExtractionDirectory=" + narExtractionDir,
        "retentionCheckIntervalInSeconds=" + retentionCheckIntervalSeconds));
    if (maxEntriesPerLedger != BROKER_DEFAULT) {
      lines.add("managedLedgerMaxEntriesPerLedger=" + maxEntriesPerLedger);
    }
    if (minLedgerRolloverTimeMinutes != BROKER_DEFAULT) {
      lines.add("managedLedgerMinLedgerRolloverTimeMinutes=" + minLedgerRolloverTimeMinutes);
    }
    return lines;
  }

  /**
   * Return the environment variables the broker needs: the credentials of these options, else those of
   * {@code inherited}.
   *
   * @param inherited the environment the broker would inherit
   * @return {@value #ENV_ACCESS_KEY_ID} and {@value #ENV_ACCESS_KEY_SECRET}
   * @throws IllegalStateException if neither these options nor {@code inherited} hold both (non-blank):
   *     without them the broker would accept offloads and never finish them
   */
  Map<String, String> brokerEnvironment(Map<String, String> inherited) {
    String id = accessKeyId != null ? accessKeyId : inherited.get(ENV_ACCESS_KEY_ID);
    String secret = secretAccessKey != null ? secretAccessKey : inherited.get(ENV_ACCESS_KEY_SECRET);
    if (id == null || id.isBlank() || secret == null || secret.isBlank()) {
      throw new IllegalStateException("tiered storage to " + endpoint + " (bucket " + bucket + ") needs credentials:"
          + " set " + ENV_ACCESS_KEY_ID + " and " + ENV_ACCESS_KEY_SECRET + " in the environment (or pass them to"
          + " TieredStorage.Builder.credentials); missing: " + missing(id, secret)
          + " (without them the broker accepts offloads and never finishes them)");
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put(ENV_ACCESS_KEY_ID, id);
    env.put(ENV_ACCESS_KEY_SECRET, secret);
    return env;
  }

  private static String missing(String id, String secret) {
    List<String> names = new ArrayList<>();
    if (id == null || id.isBlank()) {
      names.add(ENV_ACCESS_KEY_ID);
    }
    if (secret == null || secret.isBlank()) {
      names.add(ENV_ACCESS_KEY_SECRET);
    }
    return String.join(", ", names);
  }

  /** The options without the secret access key. */
  @Override
  public String toString() {
    return "TieredStorage[driver=" + DRIVER + ", endpoint=" + endpoint + ", bucket=" + bucket + ", region=" + region
        + ", accessKeyId=" + (accessKeyId == null ? "(from environment)" : accessKeyId)
        + ", secretAccessKey=" + (secretAccessKey == null ? "(from environment)" : "****")
        + ", maxBlockSizeBytes=" + maxBlockSizeBytes + ", deletionLagMs=" + deletionLagMs
        + ", retentionCheckIntervalSeconds=" + retentionCheckIntervalSeconds
        + ", maxEntriesPerLedger=" + (maxEntriesPerLedger == BROKER_DEFAULT ? "broker default" : maxEntriesPerLedger)
        + ", minLedgerRolloverTimeMinutes="
        + (minLedgerRolloverTimeMinutes == BROKER_DEFAULT ? "broker default" : minLedgerRolloverTimeMinutes)
        + ", readPriority=" + readPriority + "]";
  }

  /** Builder of {@link TieredStorage}; every value but the endpoint and bucket has a default. */
  public static final class Builder {
    private final URI endpoint;
    private final String bucket;
    private String region = DEFAULT_REGION;
    private String accessKeyId;
    private String secretAccessKey;
    private long maxBlockSizeBytes = DEFAULT_MAX_BLOCK_SIZE_BYTES;
    private long deletionLagMs = DEFAULT_DELETION_LAG_MS;
    private int retentionCheckIntervalSeconds = DEFAULT_RETENTION_CHECK_INTERVAL_SECONDS;
    private int maxEntriesPerLedger = BROKER_DEFAULT;
    private int minLedgerRolloverTimeMinutes = BROKER_DEFAULT;
    private ReadPriority readPriority = DEFAULT_READ_PRIORITY;

    private Builder(URI endpoint, String bucket) {
      this.endpoint = endpoint;
      this.bucket = bucket;
    }

    /** Set the bucket's region (default {@value TieredStorage#DEFAULT_REGION}). */
    public Builder region(String value) {
      this.region = value;
      return this;
    }

    /**
     * Set the credentials passed to the broker's environment (default: none, the broker inherits
     * {@value TieredStorage#ENV_ACCESS_KEY_ID} and {@value TieredStorage#ENV_ACCESS_KEY_SECRET}).
     */
    public Builder credentials(String id, String secret) {
      this.accessKeyId = id;
      this.secretAccessKey = secret;
      return this;
    }

    /** Set the size of one uploaded block, in bytes (default 64 MiB, at least 5 MiB). */
    public Builder maxBlockSizeBytes(long value) {
      this.maxBlockSizeBytes = value;
      return this;
    }

    /** Set the time after an offload at which the local copy is deleted, in milliseconds (default 4 h). */
    public Builder deletionLagMs(long value) {
      this.deletionLagMs = value;
      return this;
    }

    /** Set the time after an offload at which the local copy is deleted (default 4 h). */
    public Builder deletionLag(Duration value) {
      return deletionLagMs(value.toMillis());
    }

    /** Set how often the broker looks for local copies to delete, in seconds (default 120). */
    public Builder retentionCheckIntervalSeconds(int value) {
      this.retentionCheckIntervalSeconds = value;
      return this;
    }

    /** Set the entries after which a segment closes (default: the broker's, 50,000). */
    public Builder maxEntriesPerLedger(int value) {
      this.maxEntriesPerLedger = value;
      return this;
    }

    /** Set the minimum age of a segment before it closes, in minutes (default: the broker's, 10). */
    public Builder minLedgerRolloverTimeMinutes(int value) {
      this.minLedgerRolloverTimeMinutes = value;
      return this;
    }

    /**
     * Close segments after {@code entries} entries, whatever their age: small segments for tests.
     *
     * @param entries entries per segment, 1 or more
     */
    public Builder smallSegments(int entries) {
      return maxEntriesPerLedger(entries).minLedgerRolloverTimeMinutes(0);
    }

    /** Set where reads go while an offloaded segment still has its local copy (default BOOKKEEPER_FIRST). */
    public Builder readPriority(ReadPriority value) {
      this.readPriority = value;
      return this;
    }

    /**
     * Build the options.
     *
     * @return the options
     * @throws NullPointerException if the endpoint, bucket, region or read priority is null
     * @throws IllegalArgumentException if a value is out of range (the message names it and its value)
     */
    public TieredStorage build() {
      return new TieredStorage(endpoint, bucket, region, accessKeyId, secretAccessKey, maxBlockSizeBytes,
          deletionLagMs, retentionCheckIntervalSeconds, maxEntriesPerLedger, minLedgerRolloverTimeMinutes,
          readPriority);
    }
  }
}
