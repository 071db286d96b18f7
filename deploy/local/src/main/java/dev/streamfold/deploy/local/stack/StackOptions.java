package dev.streamfold.deploy.local.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Options of a local stack. Build them with {@link #builder(Path)}: every option but the data directory has a
 * default. Ports are TCP ports on 127.0.0.1; 0 ({@link #DEFAULT_PORT}) means "the port of the previous run
 * when it is still free, else a free one". Segment sizes are the broker's defaults (50,000 entries, at
 * least 10 minutes old before a segment closes); the offload threshold is a per-tenant policy.
 *
 * @param dataDir the one directory holding all data, logs and the state file
 * @param brokerPort Pulsar binary protocol port, or 0 (the default)
 * @param webPort Pulsar admin REST port, or 0 (the default)
 * @param bookiePort BookKeeper bookie port, or 0 (the default)
 * @param redisPort redis-server port, or 0 (the default)
 * @param grpcPort Streamfold server gRPC port, or 0 (the default)
 * @param respPort query-service RESP port, or 0 (the default)
 * @param serverStartTimeout longest wait for the Streamfold server's ready file (default
 *     {@link #DEFAULT_SERVER_START_TIMEOUT})
 * @param detached true to start the processes from a helper in a new session (setsid), so that
 *     Ctrl-C or a closed terminal of the calling command does not reach them (default {@link #DEFAULT_DETACHED})
 * @param s3Port the local S3 endpoint's (s3proxy) port, or 0 (the default)
 * @param offloadDeletionLag time after a segment's offload to S3 at which the broker deletes its local
 *     copy, 0 or more (milliseconds precision; default {@link #DEFAULT_OFFLOAD_DELETION_LAG})
 */
public record StackOptions(Path dataDir, int brokerPort, int webPort, int bookiePort, int redisPort,
    int grpcPort, int respPort, Duration serverStartTimeout, boolean detached, int s3Port,
    Duration offloadDeletionLag) {
  /** Default of every port: 0, the port of the previous run when it is still free, else a free one. */
  public static final int DEFAULT_PORT = 0;
  /** Longest wait for the Streamfold server to write its ready file (Flink MiniCluster, recovery). */
  public static final Duration DEFAULT_SERVER_START_TIMEOUT = Duration.ofSeconds(300);
  /** The processes are started from a helper in a new session, out of reach of the calling terminal. */
  public static final boolean DEFAULT_DETACHED = true;
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
   * Return a builder of options with every default but the data directory; {@link Builder#build()} validates
   * them.
   *
   * @param dataDir the one directory holding all data, logs and the state file
   * @return the builder
   */
  public static Builder builder(Path dataDir) {
    return new Builder(dataDir);
  }

  /**
   * Return a builder holding these options, to change some of them.
   *
   * @return the builder
   */
  public Builder toBuilder() {
    return new Builder(dataDir).brokerPort(brokerPort).webPort(webPort).bookiePort(bookiePort).redisPort(redisPort)
        .grpcPort(grpcPort).respPort(respPort).serverStartTimeout(serverStartTimeout).detached(detached)
        .s3Port(s3Port).offloadDeletionLag(offloadDeletionLag);
  }

  /**
   * Return a copy with another {@code detached} flag.
   *
   * @param value true to start the processes from a helper in a new session
   * @return the options
   */
  public StackOptions withDetached(boolean value) {
    return toBuilder().detached(value).build();
  }

  /**
   * Return a copy with another S3 endpoint port.
   *
   * @param port TCP port on 127.0.0.1, or 0
   * @return the options
   * @throws IllegalArgumentException if the port is outside 0..65535
   */
  public StackOptions withS3Port(int port) {
    return toBuilder().s3Port(port).build();
  }

  /**
   * Return a copy with another deletion lag of offloaded segments.
   *
   * @param lag time after an offload at which the local copy is deleted, 0 or more
   * @return the options
   * @throws IllegalArgumentException if the lag is negative
   */
  public StackOptions withOffloadDeletionLag(Duration lag) {
    return toBuilder().offloadDeletionLag(lag).build();
  }

  private static void checkPort(String what, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(what + " port must be 0..65535, got " + port);
    }
  }

  /** Builder of {@link StackOptions}: one setter per option, each option its default until set. */
  public static final class Builder {
    private final Path dataDir;
    private int brokerPort = DEFAULT_PORT;
    private int webPort = DEFAULT_PORT;
    private int bookiePort = DEFAULT_PORT;
    private int redisPort = DEFAULT_PORT;
    private int grpcPort = DEFAULT_PORT;
    private int respPort = DEFAULT_PORT;
    private Duration serverStartTimeout = DEFAULT_SERVER_START_TIMEOUT;
    private boolean detached = DEFAULT_DETACHED;
    private int s3Port = DEFAULT_PORT;
    private Duration offloadDeletionLag = DEFAULT_OFFLOAD_DELETION_LAG;

    private Builder(Path dataDir) {
      this.dataDir = dataDir;
    }

    /**
     * Set the Pulsar binary protocol port.
     *
     * @param brokerPort TCP port on 127.0.0.1, 0..65535; 0 (the default) for the previous run's or a free one
     * @return this builder
     */
    public Builder brokerPort(int brokerPort) {
      this.brokerPort = brokerPort;
      return this;
    }

    /**
     * Set the Pulsar admin REST port.
     *
     * @param webPort TCP port on 127.0.0.1, 0..65535; 0 (the default) for the previous run's or a free one
     * @return this builder
     */
    public Builder webPort(int webPort) {
      this.webPort = webPort;
      return this;
    }

    /**
     * Set the BookKeeper bookie port.
     *
     * @param bookiePort TCP port on 127.0.0.1, 0..65535; 0 (the default) for the previous run's or a free one
     * @return this builder
     */
    public Builder bookiePort(int bookiePort) {
      this.bookiePort = bookiePort;
      return this;
    }

    /**
     * Set the redis-server port.
     *
     * @param redisPort TCP port on 127.0.0.1, 0..65535; 0 (the default) for the previous run's or a free one
     * @return this builder
     */
    public Builder redisPort(int redisPort) {
      this.redisPort = redisPort;
      return this;
    }

    /**
     * Set the Streamfold server's gRPC port.
     *
     * @param grpcPort TCP port on 127.0.0.1, 0..65535; 0 (the default) for the previous run's or a free one
     * @return this builder
     */
    public Builder grpcPort(int grpcPort) {
      this.grpcPort = grpcPort;
      return this;
    }

    /**
     * Set the query-service RESP port.
     *
     * @param respPort TCP port on 127.0.0.1, 0..65535; 0 (the default) for the previous run's or a free one
     * @return this builder
     */
    public Builder respPort(int respPort) {
      this.respPort = respPort;
      return this;
    }

    /**
     * Set the longest wait for the Streamfold server's ready file.
     *
     * @param serverStartTimeout positive (default {@link StackOptions#DEFAULT_SERVER_START_TIMEOUT})
     * @return this builder
     */
    public Builder serverStartTimeout(Duration serverStartTimeout) {
      this.serverStartTimeout = serverStartTimeout;
      return this;
    }

    /**
     * Set whether the processes start from a helper in a new session (setsid), out of reach of Ctrl-C or a
     * closed terminal of the calling command.
     *
     * @param detached true to detach them (default {@link StackOptions#DEFAULT_DETACHED})
     * @return this builder
     */
    public Builder detached(boolean detached) {
      this.detached = detached;
      return this;
    }

    /**
     * Set the local S3 endpoint's (s3proxy) port.
     *
     * @param s3Port TCP port on 127.0.0.1, 0..65535; 0 (the default) for the previous run's or a free one
     * @return this builder
     */
    public Builder s3Port(int s3Port) {
      this.s3Port = s3Port;
      return this;
    }

    /**
     * Set the time after a segment's offload to S3 at which the broker deletes its local copy.
     *
     * @param offloadDeletionLag 0 or more, milliseconds precision (default
     *     {@link StackOptions#DEFAULT_OFFLOAD_DELETION_LAG})
     * @return this builder
     */
    public Builder offloadDeletionLag(Duration offloadDeletionLag) {
      this.offloadDeletionLag = offloadDeletionLag;
      return this;
    }

    /**
     * Create the options.
     *
     * @return the options, the data directory absolute and normalized
     * @throws NullPointerException if the data directory, the server start timeout or the deletion lag is null
     * @throws IllegalArgumentException if a port is outside 0..65535, the timeout is not positive or the
     *     deletion lag is negative
     */
    public StackOptions build() {
      return new StackOptions(dataDir, brokerPort, webPort, bookiePort, redisPort, grpcPort, respPort,
          serverStartTimeout, detached, s3Port, offloadDeletionLag);
    }
  }
}
