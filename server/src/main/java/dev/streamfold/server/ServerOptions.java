package dev.streamfold.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Options of the Streamfold server, resolved from command-line flags by {@link StreamfoldServerMain}.
 *
 * @param dataDir directory for retained checkpoints and Flink temporary files
 * @param pulsarServiceUrl Pulsar binary protocol URL
 * @param pulsarAdminUrl Pulsar admin REST URL
 * @param redisUri Redis URI of the views
 * @param grpcPort gRPC port on the bind host, 0 for a free one
 * @param respPort Redis-protocol (query-service) port, 0 for a free one
 * @param bindHost address both servers bind (default {@link #DEFAULT_BIND_HOST})
 * @param defaultTenant default tenant of embedders (default {@link #DEFAULT_TENANT}); the query-service no
 *     longer serves it without AUTH (the token selects the tenant)
 * @param checkpointInterval checkpoint and view-commit interval (default 1 s)
 * @param tenants tenants whose transformations this server runs; empty for all tenants of the cluster
 * @param bookieAdminUrl BookKeeper's admin REST URL, or null (then `ledger info` cannot tell whether an
 *     offloaded segment's local copy was deleted)
 * @param flinkRestAddress {@code host:port} of a Flink session cluster's REST API to run the view jobs on
 *     ({@code --flink-rest-address}, env {@code STREAMFOLD_FLINK_REST_ADDRESS}); null for the embedded
 *     MiniCluster
 * @param checkpointsUri base URI of retained view checkpoints ({@code --checkpoints-uri}, env
 *     {@code STREAMFOLD_CHECKPOINTS_URI}), e.g. {@code s3://bucket/checkpoints}; null for
 *     {@code <dataDir>/checkpoints}
 * @param metricsPort port of the Prometheus {@code /metrics} HTTP endpoint on the bind host ({@code --metrics-port}),
 *     0 for a free one, {@link #METRICS_DISABLED} (the default) for none
 */
public record ServerOptions(Path dataDir, String pulsarServiceUrl, String pulsarAdminUrl, String redisUri,
    int grpcPort, int respPort, String bindHost, String defaultTenant, Duration checkpointInterval,
    java.util.Set<String> tenants, String bookieAdminUrl, String flinkRestAddress, String checkpointsUri,
    int metricsPort) {
  public static final String DEFAULT_BIND_HOST = "127.0.0.1";
  public static final String DEFAULT_TENANT = "demo";
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(1);
  /** {@link #metricsPort()} when no {@code /metrics} endpoint is served (the default). */
  public static final int METRICS_DISABLED = -1;

  public ServerOptions {
    Objects.requireNonNull(dataDir, "dataDir (--data-dir)");
    Objects.requireNonNull(pulsarServiceUrl, "pulsarServiceUrl (--pulsar-service-url)");
    Objects.requireNonNull(pulsarAdminUrl, "pulsarAdminUrl (--pulsar-admin-url)");
    Objects.requireNonNull(redisUri, "redisUri (--redis-uri)");
    bindHost = bindHost == null ? DEFAULT_BIND_HOST : bindHost;
    defaultTenant = defaultTenant == null ? DEFAULT_TENANT : defaultTenant;
    checkpointInterval = checkpointInterval == null ? DEFAULT_CHECKPOINT_INTERVAL : checkpointInterval;
    tenants = tenants == null ? java.util.Set.of() : java.util.Set.copyOf(tenants);
    if (metricsPort < METRICS_DISABLED || metricsPort > 65_535) {
      throw new IllegalArgumentException("metricsPort (--metrics-port) must be 0 (a free port) to 65535, or "
          + METRICS_DISABLED + " for none: " + metricsPort);
    }
  }

  /** Options without a {@code /metrics} endpoint. */
  public ServerOptions(Path dataDir, String pulsarServiceUrl, String pulsarAdminUrl, String redisUri, int grpcPort,
      int respPort, String bindHost, String defaultTenant, Duration checkpointInterval, java.util.Set<String> tenants,
      String bookieAdminUrl, String flinkRestAddress, String checkpointsUri) {
    this(dataDir, pulsarServiceUrl, pulsarAdminUrl, redisUri, grpcPort, respPort, bindHost, defaultTenant,
        checkpointInterval, tenants, bookieAdminUrl, flinkRestAddress, checkpointsUri, METRICS_DISABLED);
  }

  /** Options with the embedded MiniCluster and checkpoints under the data directory. */
  public ServerOptions(Path dataDir, String pulsarServiceUrl, String pulsarAdminUrl, String redisUri, int grpcPort,
      int respPort, String bindHost, String defaultTenant, Duration checkpointInterval, java.util.Set<String> tenants,
      String bookieAdminUrl) {
    this(dataDir, pulsarServiceUrl, pulsarAdminUrl, redisUri, grpcPort, respPort, bindHost, defaultTenant,
        checkpointInterval, tenants, bookieAdminUrl, null, null);
  }
}
