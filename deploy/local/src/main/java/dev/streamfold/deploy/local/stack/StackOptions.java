package dev.streamfold.deploy.local.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Options of a local stack. Ports are TCP ports on 127.0.0.1; 0 means "the port of the previous run
 * when it is still free, else a free one".
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
 */
public record StackOptions(Path dataDir, int brokerPort, int webPort, int bookiePort, int redisPort,
    int grpcPort, int respPort, Duration serverStartTimeout, boolean detached) {
  /** Longest wait for the Streamfold server to write its ready file (Flink MiniCluster, recovery). */
  public static final Duration DEFAULT_SERVER_START_TIMEOUT = Duration.ofSeconds(300);

  /**
   * Create options.
   *
   * @throws NullPointerException if dataDir or serverStartTimeout is null
   * @throws IllegalArgumentException if a port is outside 0..65535 or the timeout is not positive
   */
  public StackOptions {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(serverStartTimeout, "serverStartTimeout");
    dataDir = dataDir.toAbsolutePath().normalize();
    checkPort("broker", brokerPort);
    checkPort("web", webPort);
    checkPort("bookie", bookiePort);
    checkPort("redis", redisPort);
    checkPort("grpc", grpcPort);
    checkPort("resp", respPort);
    if (serverStartTimeout.isNegative() || serverStartTimeout.isZero()) {
      throw new IllegalArgumentException("serverStartTimeout must be positive, got " + serverStartTimeout);
    }
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
        serverStartTimeout, value);
  }

  private static void checkPort(String what, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(what + " port must be 0..65535, got " + port);
    }
  }
}
