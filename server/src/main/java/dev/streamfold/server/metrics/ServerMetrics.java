package dev.streamfold.server.metrics;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.grpc.IngestListener;
import dev.streamfold.query.RespListener;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewStore;
import io.grpc.Status;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.util.Objects;

/**
 * The server's Prometheus metrics: one registry, the listeners the services report to, and the
 * {@code /metrics} HTTP endpoint. Names follow Prometheus conventions (base units, {@code _total} on
 * counters); labels are bounded: tenant, stream, view, gRPC service/method/code, RESP command (only the
 * commands served, else {@code OTHER}) and error kind; never keys, tokens or message IDs.
 *
 * <ul>
 *   <li>{@code streamfold_ingest_events_appended_total{tenant,stream}}: events in acknowledged append requests
 *   <li>{@code streamfold_ingest_append_duration_seconds{outcome}}: append request latency (histogram),
 *       outcome {@code appended} or {@code refused}
 *   <li>{@code streamfold_ingest_refused_requests_total{tenant,code}},
 *       {@code streamfold_ingest_refused_events_total{tenant,code}}: failed append requests and their events
 *       by gRPC status code
 *   <li>{@code streamfold_grpc_server_calls_total{service,method,code}}: every gRPC call, when it closes:
 *       those authentication or the transport refuses (a request over 4 MiB) included, and those the client
 *       cancels (CANCELLED); a method the server does not serve counts as service and method {@code other}
 *   <li>{@code streamfold_resp_commands_total{command}}, {@code streamfold_resp_command_duration_seconds{command}},
 *       {@code streamfold_resp_errors_total{command,kind}}
 *   <li>{@code streamfold_view_*{tenant,view}}: see {@link ViewCollector}, computed at scrape time
 *   <li>the Prometheus Java client's JVM and process metrics ({@link JvmMetrics}): {@code jvm_memory_used_bytes{area}},
 *       {@code jvm_memory_pool_used_bytes{pool}}, {@code jvm_gc_collection_seconds{gc}}, {@code jvm_threads_*},
 *       {@code jvm_classes_*}, {@code jvm_buffer_pool_*}, {@code jvm_runtime_info}, {@code process_cpu_seconds_total},
 *       {@code process_resident_memory_bytes}, {@code process_open_fds}, ...
 * </ul>
 */
public final class ServerMetrics implements AutoCloseable {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter eventsAppended = Counter.builder()
      .name("streamfold_ingest_events_appended_total")
      .help("Events appended to the ledger by acknowledged append requests (repeats of an idempotent append included)")
      .labelNames("tenant", "stream")
      .register(registry);
  private final Histogram appendDuration = Histogram.builder()
      .name("streamfold_ingest_append_duration_seconds")
      .help("Latency of append requests, from arrival at the service to the ledger's acknowledgement or the refusal")
      .labelNames("outcome")
      .classicOnly()
      .register(registry);
  private final Counter refusedRequests = Counter.builder()
      .name("streamfold_ingest_refused_requests_total")
      .help("Append requests that failed, by the gRPC status code the client got")
      .labelNames("tenant", "code")
      .register(registry);
  private final Counter refusedEvents = Counter.builder()
      .name("streamfold_ingest_refused_events_total")
      .help("Events of append requests that failed, by gRPC status code")
      .labelNames("tenant", "code")
      .register(registry);
  private final GrpcCallCounter grpcCallCounter;
  private final Counter grpcCalls = Counter.builder()
      .name("streamfold_grpc_server_calls_total")
      .help("Finished gRPC calls by service, method and status code (unauthenticated and refused calls included)")
      .labelNames("service", "method", "code")
      .register(registry);
  private final Counter respCommands = Counter.builder()
      .name("streamfold_resp_commands_total")
      .help("RESP commands run, by command name (OTHER for commands not served)")
      .labelNames("command")
      .register(registry);
  private final Histogram respDuration = Histogram.builder()
      .name("streamfold_resp_command_duration_seconds")
      .help("Latency of RESP commands, from dispatch to the reply being ready")
      .labelNames("command")
      .classicOnly()
      .register(registry);
  private final Counter respErrors = Counter.builder()
      .name("streamfold_resp_errors_total")
      .help("RESP commands answered with an error, by command and error kind (the error's first word)")
      .labelNames("command", "kind")
      .register(registry);
  private HTTPServer http;

  /**
   * Create the metrics, with per-view gauges read at each scrape.
   *
   * @param ledger lists the tenants
   * @param tenants the tenants whose views this server runs (its {@code --tenants}); empty for all of the ledger's
   * @param transforms each tenant's views, and the events in their source streams
   * @param views each view's metadata
   * @throws NullPointerException if an argument is null
   */
  public ServerMetrics(Ledger ledger, java.util.Set<String> tenants, TransformManager transforms, ViewStore views) {
    this(ViewCollector.source(Objects.requireNonNull(ledger, "ledger"), java.util.Set.copyOf(tenants),
        Objects.requireNonNull(transforms, "transforms"), Objects.requireNonNull(views, "views")));
  }

  /** Create the metrics with the per-view gauges read from {@code views} at each scrape. */
  ServerMetrics(ViewCollector.Source views) {
    grpcCallCounter = new GrpcCallCounter(grpcCalls);
    registry.register(new ViewCollector(Objects.requireNonNull(views, "views")));
    JvmMetrics.builder().register(registry);
  }

  /** The registry, for tests and embedders that expose it their own way. */
  public PrometheusRegistry registry() {
    return registry;
  }

  /** The listener of the ingest service. */
  public IngestListener ingest() {
    return new IngestListener() {
      @Override
      public void appended(StreamRef stream, int events, long latencyNanos) {
        eventsAppended.labelValues(stream.tenant(), stream.stream()).inc(events);
        appendDuration.labelValues("appended").observe(latencyNanos / 1e9);
      }

      @Override
      public void refused(String tenant, int events, Status.Code code, long latencyNanos) {
        refusedRequests.labelValues(tenant, code.name()).inc();
        refusedEvents.labelValues(tenant, code.name()).inc(events);
        appendDuration.labelValues("refused").observe(latencyNanos / 1e9);
      }
    };
  }

  /** The listener of the RESP query-service. */
  public RespListener resp() {
    // The data points of each command name, looked up once: labelValues builds and hashes a label list on
    // every call (about 4 % of the RESP threads' CPU in a pipelined serving profile). Command names are
    // bounded: the served commands' names and RespListener.OTHER.
    java.util.Map<String, RespPoints> points = new java.util.concurrent.ConcurrentHashMap<>();
    return (command, latencyNanos, errorKind) -> {
      RespPoints point = points.get(command);
      if (point == null) {
        point = points.computeIfAbsent(command,
            name -> new RespPoints(respCommands.labelValues(name), respDuration.labelValues(name)));
      }
      point.commands().inc();
      point.duration().observe(latencyNanos / 1e9);
      if (errorKind != null) {
        respErrors.labelValues(command, errorKind).inc();
      }
    };
  }

  /**
   * Return a stream tracer factory that counts every finished gRPC call by service, method and status code,
   * also the calls gRPC closes before any interceptor or service sees them (a request over the largest
   * inbound message; an unknown method) and those authentication refuses. Add it with
   * {@code ServerBuilder.addStreamTracerFactory}.
   */
  public io.grpc.ServerStreamTracer.Factory grpcCallCounter() {
    return grpcCallCounter;
  }

  /**
   * Tell the call counter which methods the server serves (calls of any other name count as service and
   * method {@code other}: the names come from clients, and labels must stay bounded).
   *
   * @param server the built server
   */
  public void servedMethods(io.grpc.Server server) {
    java.util.Set<String> names = new java.util.HashSet<>();
    for (io.grpc.ServerServiceDefinition service : server.getServices()) {
      service.getMethods().forEach(m -> names.add(m.getMethodDescriptor().getFullMethodName()));
    }
    grpcCallCounter.served(names);
  }

  /**
   * Serve {@code /metrics} over HTTP.
   *
   * @param host address to bind
   * @param port port, 0 for a free one
   * @return the bound port
   * @throws IllegalStateException if the port cannot be bound (the message names it) or the endpoint already runs
   */
  public synchronized int serve(String host, int port) {
    if (http != null) {
      throw new IllegalStateException("the metrics endpoint already runs on port " + http.getPort());
    }
    try {
      http = HTTPServer.builder().hostname(host).port(port).registry(registry).buildAndStart();
    } catch (IOException e) {
      throw new IllegalStateException("cannot serve /metrics on " + host + ":" + port + " (port in use?): "
          + e.getMessage(), e);
    }
    return http.getPort();
  }

  /** The port of the {@code /metrics} endpoint, -1 when it is not served. */
  public synchronized int port() {
    return http == null ? -1 : http.getPort();
  }

  /** Stop the HTTP endpoint. */
  @Override
  public synchronized void close() {
    if (http != null) {
      http.close();
      http = null;
    }
  }

  /** The counter and latency data points of one RESP command name. */
  private record RespPoints(io.prometheus.metrics.core.datapoints.CounterDataPoint commands,
      io.prometheus.metrics.core.datapoints.DistributionDataPoint duration) {}
}
