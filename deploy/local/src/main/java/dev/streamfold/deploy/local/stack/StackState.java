package dev.streamfold.deploy.local.stack;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The local stack's state file ({@code <data dir>/stack.json}): what was started, where, on which
 * ports. Written after every process start, kept after {@code down} so the next {@code up} can reuse
 * the same ports (redis-cli commands stay the same).
 *
 * @param formatVersion version of this file's layout, {@link #FORMAT_VERSION}
 * @param dataDir absolute data directory of the stack
 * @param pulsar the Pulsar standalone broker, or null when never started
 * @param redis the redis-server, or null when never started
 * @param server the Streamfold server, or null when never started
 * @param s3 the local S3 endpoint (s3proxy) that the broker offloads to, or null when never started
 *     (also in state files written before tiered storage)
 * @param updatedAtMs last write of this file, epoch milliseconds
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StackState(int formatVersion, String dataDir, ProcessRecord pulsar, ProcessRecord redis,
    ProcessRecord server, ProcessRecord s3, long updatedAtMs) {
  /** Layout version written by this code. */
  public static final int FORMAT_VERSION = 1;
  /** Name of the state file inside the data directory. */
  public static final String FILE_NAME = "stack.json";

  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * Create an empty state for a data directory.
   *
   * @param dataDir the stack's data directory
   * @return a state with no process
   */
  public static StackState empty(Path dataDir) {
    return new StackState(FORMAT_VERSION, dataDir.toAbsolutePath().toString(), null, null, null, null, 0);
  }

  /** The Pulsar binary protocol URL, e.g. {@code pulsar://127.0.0.1:6650}, or null when unknown. */
  public String pulsarServiceUrl() {
    return pulsar == null ? null : "pulsar://127.0.0.1:" + pulsar.port(ProcessRecord.PORT_BROKER);
  }

  /** The Pulsar admin REST URL, e.g. {@code http://127.0.0.1:8080}, or null when unknown. */
  public String pulsarAdminUrl() {
    return pulsar == null ? null : "http://127.0.0.1:" + pulsar.port(ProcessRecord.PORT_WEB);
  }

  /** The Redis URI, e.g. {@code redis://127.0.0.1:6379}, or null when unknown. */
  public String redisUri() {
    return redis == null ? null : "redis://127.0.0.1:" + redis.port(ProcessRecord.PORT_REDIS);
  }

  /** The local S3 endpoint URL, e.g. {@code http://127.0.0.1:9000}, or null when unknown. */
  public String s3Endpoint() {
    return s3 == null ? null : "http://127.0.0.1:" + s3.port(ProcessRecord.PORT_S3);
  }

  /** The server's gRPC port on 127.0.0.1, or 0 when unknown. */
  public int grpcPort() {
    return server == null ? 0 : server.port(ProcessRecord.PORT_GRPC);
  }

  /** The query-service's RESP port on 127.0.0.1, or 0 when unknown. */
  public int respPort() {
    return server == null ? 0 : server.port(ProcessRecord.PORT_RESP);
  }

  /**
   * The server's Prometheus metrics port on 127.0.0.1.
   *
   * @return the port, or 0 when unknown (no server, or a state file written before the stack served metrics)
   */
  public int metricsPort() {
    return server == null ? 0 : server.port(ProcessRecord.PORT_METRICS);
  }

  /**
   * The server's Prometheus scrape URL, e.g. {@code http://127.0.0.1:9464/metrics}.
   *
   * @return the URL, or null when the metrics port is unknown
   */
  public String metricsUrl() {
    int port = metricsPort();
    return port == 0 ? null : "http://127.0.0.1:" + port + "/metrics";
  }

  StackState withPulsar(ProcessRecord record) {
    return new StackState(formatVersion, dataDir, record, redis, server, s3, updatedAtMs);
  }

  StackState withRedis(ProcessRecord record) {
    return new StackState(formatVersion, dataDir, pulsar, record, server, s3, updatedAtMs);
  }

  StackState withServer(ProcessRecord record) {
    return new StackState(formatVersion, dataDir, pulsar, redis, record, s3, updatedAtMs);
  }

  StackState withS3(ProcessRecord record) {
    return new StackState(formatVersion, dataDir, pulsar, redis, server, record, updatedAtMs);
  }

  /**
   * Read a state file.
   *
   * @param file the file
   * @return the state, or empty when the file does not exist
   * @throws UncheckedIOException if the file exists but cannot be read or parsed (the message names it)
   */
  public static Optional<StackState> read(Path file) {
    try {
      return Optional.of(JSON.readValue(Files.readString(file), StackState.class));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the local stack state " + file + ": " + e.getMessage()
          + " (delete it if no stack process is running)", e);
    }
  }

  /**
   * Write this state to a file atomically (a temporary file, then a rename), stamping {@code updatedAtMs}.
   *
   * @param file the file
   * @param nowMs the time to stamp, epoch milliseconds
   * @return the state as written
   * @throws UncheckedIOException if the file cannot be written
   */
  public StackState write(Path file, long nowMs) {
    StackState stamped = new StackState(formatVersion, dataDir, pulsar, redis, server, s3, nowMs);
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, JSON.writeValueAsString(stamped) + "\n");
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return stamped;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the local stack state " + file, e);
    }
  }

  /**
   * One process of the stack as it was started.
   *
   * @param name short name: {@code pulsar}, {@code redis}, {@code server} or {@code s3}
   * @param pid operating-system process id
   * @param startedAtMs the process's start time as the OS reports it, epoch milliseconds (0 when
   *     unknown); with {@code commandMarker} it tells our process from a later one that reuses the pid
   * @param commandMarker text that the process's command line contains (e.g. its data directory)
   * @param dataDir the process's data directory
   * @param logFile the file receiving its output
   * @param ports port role (e.g. {@code broker}) to TCP port on 127.0.0.1, in a stable order
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ProcessRecord(String name, long pid, long startedAtMs, String commandMarker, String dataDir,
      String logFile, Map<String, Integer> ports) {
    public static final String PORT_BROKER = "broker";
    public static final String PORT_WEB = "web";
    public static final String PORT_BOOKIE = "bookie";
    /** BookKeeper's own admin REST API (ledger list), on while the broker offloads. */
    public static final String PORT_BOOKIE_HTTP = "bookie-http";
    public static final String PORT_S3 = "s3";
    public static final String PORT_REDIS = "redis";
    public static final String PORT_GRPC = "grpc";
    public static final String PORT_RESP = "resp";
    /** The server's Prometheus {@code /metrics} HTTP endpoint. */
    public static final String PORT_METRICS = "metrics";

    /**
     * Create a record.
     *
     * @throws NullPointerException if name or ports is null
     */
    public ProcessRecord {
      Objects.requireNonNull(name, "name");
      ports = ports == null ? Map.of() : new LinkedHashMap<>(ports);
    }

    /**
     * Return a port of this process.
     *
     * @param role the port role, e.g. {@link #PORT_GRPC}
     * @return the port, or 0 when this process has no such port
     */
    public int port(String role) {
      Integer port = ports.get(role);
      return port == null ? 0 : port;
    }
  }
}
