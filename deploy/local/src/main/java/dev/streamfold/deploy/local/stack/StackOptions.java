package dev.streamfold.deploy.local.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Options of a local stack. Ports are TCP ports on 127.0.0.1; 0 means "the port of the previous run
 * when it is still free, else a free one". Segment sizes are the broker's defaults (50,000 entries, at
 * least 10 minutes old before a segment closes); the offload threshold is a per-tenant policy.
 *
 * @param dataDir the one directory holding all data, logs and the state file
 * @param brokerPort Pulsar binary protocol port, or 0
 * @param webPort Pulsar admin REST port, or 0
 * @param bookiePort BookKeeper bookie port, or 0
 * @param redisPort redis-server port, or 0
 * @param grpcPort Streamfold server gRPC port, or 0
 * @param respPort query-service RESP port, or 0
 * @param serverStartTimeout longest wait for the Streamfold server's ready file
 * @param detached true to start the processes from a helper in a new session (setsid), so that
 *     Ctrl-C or a closed terminal of the calling command does not reach them
 * @param s3Port the local S3 endpoint's (s3proxy) port, or 0
 * @param offloadDeletionLag time after a segment's offload to S3 at which the broker deletes its local
 *     copy, 0 or more (milliseconds precision)
 */
public record StackOptions(Path dataDir, int brokerPort, int webPort, int bookiePort, int redisPort,
    int grpcPort, int respPort, Duration serverStartTimeout, boolean detached, int s3Port,
    Duration offloadDeletionLag) {
  /** Longest wait for the Streamfold server to write its ready file (Flink MiniCluster, recovery). */
  public static final Duration DEFAULT_SERVER_START_TIMEOUT = Duration.ofSeconds(300);
  /** Local copies of offloaded segments are deleted 4 hours after the offload (Pulsar's default). */
  public static final Duration DEFAULT_OFFLOAD_DELETION_LAG = Duration.ofHours(4);

  /**
   * Create options.
   *
   * @throws NullPointerException if dataDir, serverStartTimeout or offloadDeletionLag is null
   * @throws IllegalArgumentException if a port is outside 0..65535, the timeout is not positive or the
   *     deletion lag is negative
   */
  public StackOptions {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(serverStartTimeout, "serverStartTimeout");
    Objects.requireNonNull(offloadDeletionLag, "offloadDeletionLag");
    dataDir = dataDir.toAbsolutePath().normalize();
    checkPort("broker", brokerPort);
    checkPort("web", webPort);
    checkPort("bookie", bookiePort);
    checkPort("redis", redisPort);
    checkPort("grpc", grpcPort);
    checkPort("resp", respPort);
    checkPort("s3", s3Port);
    if (serverStartTimeout.isNegative() || serverStartTimeout.isZero()) {
      throw new IllegalArgumentException("serverStartTimeout must be positive, got " + serverStartTimeout);
    }
    if (offloadDeletionLag.isNegative()) {
      throw new IllegalArgumentException("offloadDeletionLag must be 0 or more, got " + offloadDeletionLag);
    }
  }

  /**
   * Create options with the S3 endpoint on a remembered or free port and the default deletion lag.
   *
   * @throws NullPointerException if dataDir or serverStartTimeout is null
   * @throws IllegalArgumentException if a port is outside 0..65535 or the timeout is not positive
   */
  public StackOptions(Path dataDir, int brokerPort, int webPort, int bookiePort, int redisPort, int grpcPort,
      int respPort, Duration serverStartTimeout, boolean detached) {
    this(dataDir, brokerPort, webPort, bookiePort, redisPort, grpcPort, respPort, serverStartTimeout, detached, 0,
        DEFAULT_OFFLOAD_DELETION_LAG);
  }

  /**
   * Return options with every port 0 (remembered or free) and the default timeout.
   *
   * @param dataDir the data directory
   * @return the options, detached
   */
  public static StackOptions of(Path dataDir) {
    return new StackOptions(dataDir, 0, 0, 0, 0, 0, 0, DEFAULT_SERVER_START_TIMEOUT, true);
  }

  /** Return a copy with another {@code detached} flag. */
  public StackOptions withDetached(boolean value) {
    return new StackOptions(dataDir, brokerPort, webPort, bookiePort, redisPort, grpcPort, respPort,
        serverStartTimeout, value, s3Port, offloadDeletionLag);
  }

  /**
   * Return a copy with another S3 endpoint port.
   *
   * @param port TCP port on 127.0.0.1, or 0
   * @return the options
   * @throws IllegalArgumentException if the port is outside 0..65535
   */
  public StackOptions withS3Port(int port) {
    return new StackOptions(dataDir, brokerPort, webPort, bookiePort, redisPort, grpcPort, respPort,
        serverStartTimeout, detached, port, offloadDeletionLag);
  }

  /**
   * Return a copy with another deletion lag of offloaded segments.
   *
   * @param lag time after an offload at which the local copy is deleted, 0 or more
   * @return the options
   * @throws IllegalArgumentException if the lag is negative
   */
  public StackOptions withOffloadDeletionLag(Duration lag) {
    return new StackOptions(dataDir, brokerPort, webPort, bookiePort, redisPort, grpcPort, respPort,
        serverStartTimeout, detached, s3Port, lag);
  }

  private static void checkPort(String what, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(what + " port must be 0..65535, got " + port);
    }
  }
}
