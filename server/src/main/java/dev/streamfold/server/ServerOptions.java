package dev.streamfold.server;

import dev.streamfold.ledger.LedgerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * Options of the Streamfold server, resolved from command-line flags by {@link StreamfoldServerMain}. Build them
 * with {@link #builder(Path, String, String, String)}: every option but the data directory, Pulsar and Redis has a
 * default.
 *
 * @param dataDir directory for retained checkpoints and Flink temporary files
 * @param pulsarServiceUrl Pulsar binary protocol URL
 * @param pulsarAdminUrl Pulsar admin REST URL
 * @param redisUri Redis URI of the views
 * @param grpcPort gRPC port on the bind host, 0 for a free one (the default, {@link #DEFAULT_GRPC_PORT})
 * @param respPort Redis-protocol (query-service) port, 0 for a free one (the default, {@link #DEFAULT_RESP_PORT})
 * @param bindHost address both servers bind (default {@link #DEFAULT_BIND_HOST})
 * @param defaultTenant default tenant of embedders (default {@link #DEFAULT_TENANT}); the query-service no
 *     longer serves it without AUTH (the token selects the tenant)
 * @param checkpointInterval checkpoint and view-commit interval (default {@link #DEFAULT_CHECKPOINT_INTERVAL})
 * @param tenants tenants whose transformations this server runs; empty for all tenants of the cluster (the
 *     default, {@link #DEFAULT_TENANTS})
 * @param bookieAdminUrl BookKeeper's admin REST URL, or null (the default; then `ledger info` cannot tell whether
 *     an offloaded segment's local copy was deleted)
 * @param flinkRestAddress {@code host:port} of a Flink session cluster's REST API to run the view jobs on
 *     ({@code --flink-rest-address}, env {@code STREAMFOLD_FLINK_REST_ADDRESS}); null for the embedded
 *     MiniCluster (the default)
 * @param checkpointsUri base URI of retained view checkpoints ({@code --checkpoints-uri}, env
 *     {@code STREAMFOLD_CHECKPOINTS_URI}), e.g. {@code s3://bucket/checkpoints}; null for
 *     {@code <dataDir>/checkpoints} (the default)
 * @param metricsPort port of the Prometheus {@code /metrics} HTTP endpoint on the bind host ({@code --metrics-port}),
 *     0 for a free one, {@link #METRICS_DISABLED} for none (the default, {@link #DEFAULT_METRICS_PORT})
 * @param clockInterval how often this server's writer of each tenant's clock reads the streams' positions for a
 *     tick ({@code --clock-interval-ms}; default {@link #DEFAULT_CLOCK_INTERVAL}); {@link Duration#ZERO} writes
 *     no clock (as for a comparison of ingest with and without it)
 */
public record ServerOptions(Path dataDir, String pulsarServiceUrl, String pulsarAdminUrl, String redisUri,
    int grpcPort, int respPort, String bindHost, String defaultTenant, Duration checkpointInterval,
    Set<String> tenants, String bookieAdminUrl, String flinkRestAddress, String checkpointsUri,
    int metricsPort, Duration clockInterval) {
  /** {@link #metricsPort()} when no {@code /metrics} endpoint is served (the default). */
  public static final int METRICS_DISABLED = -1;
  /** Default gRPC port: 0, a free one. */
  public static final int DEFAULT_GRPC_PORT = 0;
  /** Default Redis-protocol (query-service) port: 0, a free one. */
  public static final int DEFAULT_RESP_PORT = 0;
  /** Default address both servers bind: loopback only. */
  public static final String DEFAULT_BIND_HOST = "127.0.0.1";
  /** Default tenant of embedders. */
  public static final String DEFAULT_TENANT = "demo";
  /** Default checkpoint and view-commit interval: 1 s. */
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(1);
  /** Default tenants to run: none named, which means every tenant of the cluster. */
  public static final Set<String> DEFAULT_TENANTS = Set.of();
  /** Default {@code /metrics} port: {@link #METRICS_DISABLED}, no endpoint. */
  public static final int DEFAULT_METRICS_PORT = METRICS_DISABLED;
  /** Default clock interval: {@link LedgerOptions#DEFAULT_CLOCK_INTERVAL}, 100 ms. */
  public static final Duration DEFAULT_CLOCK_INTERVAL = LedgerOptions.DEFAULT_CLOCK_INTERVAL;

  /**
   * Create options; a null bind host, default tenant, checkpoint interval, tenant set or clock interval takes its
   * default.
   *
   * @throws NullPointerException if {@code dataDir}, {@code pulsarServiceUrl}, {@code pulsarAdminUrl} or
   *     {@code redisUri} is null (the message names the flag)
   * @throws IllegalArgumentException if {@code metricsPort} is neither {@link #METRICS_DISABLED} nor 0 to 65535, or
   *     the clock interval is negative
   */
  public ServerOptions {
    Objects.requireNonNull(dataDir, "dataDir (--data-dir)");
    Objects.requireNonNull(pulsarServiceUrl, "pulsarServiceUrl (--pulsar-service-url)");
    Objects.requireNonNull(pulsarAdminUrl, "pulsarAdminUrl (--pulsar-admin-url)");
    Objects.requireNonNull(redisUri, "redisUri (--redis-uri)");
    bindHost = bindHost == null ? DEFAULT_BIND_HOST : bindHost;
    defaultTenant = defaultTenant == null ? DEFAULT_TENANT : defaultTenant;
    checkpointInterval = checkpointInterval == null ? DEFAULT_CHECKPOINT_INTERVAL : checkpointInterval;
    tenants = tenants == null ? Set.of() : Set.copyOf(tenants);
    if (metricsPort < METRICS_DISABLED || metricsPort > 65_535) {
      throw new IllegalArgumentException("metricsPort (--metrics-port) must be 0 (a free port) to 65535, or "
          + METRICS_DISABLED + " for none: " + metricsPort);
    }
    clockInterval = clockInterval == null ? DEFAULT_CLOCK_INTERVAL : clockInterval;
    if (clockInterval.isNegative()) {
      throw new IllegalArgumentException("clockInterval (--clock-interval-ms) must be >= 0 (0: no clock): "
          + clockInterval.toMillis() + " ms");
    }
  }

  /**
   * Return a builder of options with every default but the data directory, Pulsar and Redis;
   * {@link Builder#build()} validates them.
   *
   * @param dataDir directory for retained checkpoints and Flink temporary files ({@code --data-dir})
   * @param pulsarServiceUrl Pulsar binary protocol URL ({@code --pulsar-service-url})
   * @param pulsarAdminUrl Pulsar admin REST URL ({@code --pulsar-admin-url})
   * @param redisUri Redis URI of the views ({@code --redis-uri})
   * @return the builder
   */
  public static Builder builder(Path dataDir, String pulsarServiceUrl, String pulsarAdminUrl, String redisUri) {
    return new Builder(dataDir, pulsarServiceUrl, pulsarAdminUrl, redisUri);
  }

  /** Builder of {@link ServerOptions}: one setter per option, each option its default until set. */
  public static final class Builder {
    private final Path dataDir;
    private final String pulsarServiceUrl;
    private final String pulsarAdminUrl;
    private final String redisUri;
    private int grpcPort = DEFAULT_GRPC_PORT;
    private int respPort = DEFAULT_RESP_PORT;
    private String bindHost = DEFAULT_BIND_HOST;
    private String defaultTenant = DEFAULT_TENANT;
    private Duration checkpointInterval = DEFAULT_CHECKPOINT_INTERVAL;
    private Set<String> tenants = DEFAULT_TENANTS;
    private String bookieAdminUrl;
    private String flinkRestAddress;
    private String checkpointsUri;
    private int metricsPort = DEFAULT_METRICS_PORT;
    private Duration clockInterval = DEFAULT_CLOCK_INTERVAL;

    private Builder(Path dataDir, String pulsarServiceUrl, String pulsarAdminUrl, String redisUri) {
      this.dataDir = dataDir;
      this.pulsarServiceUrl = pulsarServiceUrl;
      this.pulsarAdminUrl = pulsarAdminUrl;
      this.redisUri = redisUri;
    }

    /**
     * Set the gRPC port on the bind host.
     *
     * @param grpcPort TCP port, 0 for a free one (the default, {@link ServerOptions#DEFAULT_GRPC_PORT})
     * @return this builder
     */
    public Builder grpcPort(int grpcPort) {
      this.grpcPort = grpcPort;
      return this;
    }

    /**
     * Set the Redis-protocol (query-service) port on the bind host.
     *
     * @param respPort TCP port, 0 for a free one (the default, {@link ServerOptions#DEFAULT_RESP_PORT})
     * @return this builder
     */
    public Builder respPort(int respPort) {
      this.respPort = respPort;
      return this;
    }

    /**
     * Set the address both servers bind.
     *
     * @param bindHost e.g. {@code 0.0.0.0}; null for {@link ServerOptions#DEFAULT_BIND_HOST} (the default)
     * @return this builder
     */
    public Builder bindHost(String bindHost) {
      this.bindHost = bindHost;
      return this;
    }

    /**
     * Set the default tenant of embedders.
     *
     * @param defaultTenant tenant name; null for {@link ServerOptions#DEFAULT_TENANT} (the default)
     * @return this builder
     */
    public Builder defaultTenant(String defaultTenant) {
      this.defaultTenant = defaultTenant;
      return this;
    }

    /**
     * Set the checkpoint and view-commit interval.
     *
     * @param checkpointInterval the interval; null for {@link ServerOptions#DEFAULT_CHECKPOINT_INTERVAL} (the
     *     default)
     * @return this builder
     */
    public Builder checkpointInterval(Duration checkpointInterval) {
      this.checkpointInterval = checkpointInterval;
      return this;
    }

    /**
     * Set the tenants whose transformations this server runs.
     *
     * @param tenants tenant names; empty or null for every tenant of the cluster
     *     ({@link ServerOptions#DEFAULT_TENANTS}, the default)
     * @return this builder
     */
    public Builder tenants(Set<String> tenants) {
      this.tenants = tenants;
      return this;
    }

    /**
     * Set BookKeeper's admin REST URL.
     *
     * @param bookieAdminUrl e.g. {@code http://127.0.0.1:8000}; null for none (the default)
     * @return this builder
     */
    public Builder bookieAdminUrl(String bookieAdminUrl) {
      this.bookieAdminUrl = bookieAdminUrl;
      return this;
    }

    /**
     * Set the Flink session cluster to run the view jobs on.
     *
     * @param flinkRestAddress {@code host:port} of its REST API; null for the embedded MiniCluster (the default)
     * @return this builder
     */
    public Builder flinkRestAddress(String flinkRestAddress) {
      this.flinkRestAddress = flinkRestAddress;
      return this;
    }

    /**
     * Set the base URI of retained view checkpoints.
     *
     * @param checkpointsUri e.g. {@code s3://bucket/checkpoints}; null for {@code <dataDir>/checkpoints} (the
     *     default)
     * @return this builder
     */
    public Builder checkpointsUri(String checkpointsUri) {
      this.checkpointsUri = checkpointsUri;
      return this;
    }

    /**
     * Set the port of the Prometheus {@code /metrics} HTTP endpoint on the bind host.
     *
     * @param metricsPort TCP port, 0 for a free one, {@link ServerOptions#METRICS_DISABLED} for none (the
     *     default, {@link ServerOptions#DEFAULT_METRICS_PORT})
     * @return this builder
     */
    public Builder metricsPort(int metricsPort) {
      this.metricsPort = metricsPort;
      return this;
    }

    /**
     * Set how often this server's clock writers read the streams' positions for a tick.
     *
     * @param clockInterval the interval; {@link Duration#ZERO} for no clock; null for
     *     {@link ServerOptions#DEFAULT_CLOCK_INTERVAL} (the default)
     * @return this builder
     */
    public Builder clockInterval(Duration clockInterval) {
      this.clockInterval = clockInterval;
      return this;
    }

    /**
     * Create the options.
     *
     * @return the options, nulls replaced by their defaults
     * @throws NullPointerException if the data directory, a Pulsar URL or the Redis URI is null (the message
     *     names the flag)
     * @throws IllegalArgumentException if the metrics port is neither {@link ServerOptions#METRICS_DISABLED} nor
     *     0 to 65535
     */
    public ServerOptions build() {
      return new ServerOptions(dataDir, pulsarServiceUrl, pulsarAdminUrl, redisUri, grpcPort, respPort, bindHost,
          defaultTenant, checkpointInterval, tenants, bookieAdminUrl, flinkRestAddress, checkpointsUri, metricsPort,
          clockInterval);
    }
  }
}
