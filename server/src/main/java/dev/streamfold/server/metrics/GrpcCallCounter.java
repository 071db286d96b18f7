package dev.streamfold.server.metrics;

import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.prometheus.metrics.core.metrics.Counter;

/**
 * Counts each finished gRPC call by service, method and status code, when its stream closes. A stream
 * tracer, not an interceptor: gRPC closes some calls below every interceptor (a request over the server's
 * largest inbound message, RESOURCE_EXHAUSTED from the deframer; an unknown method, UNIMPLEMENTED), and
 * {@link ServerStreamTracer#streamClosed} sees those too (grpc-java {@code ServerImpl}).
 */
final class GrpcCallCounter extends ServerStreamTracer.Factory {
  /** The label values of a method the server does not serve: clients choose those names, so they stay out. */
  static final String OTHER = "other";

  private final Counter calls;
  private volatile java.util.Set<String> served = java.util.Set.of();

  GrpcCallCounter(Counter calls) {
    this.calls = calls;
  }

  /** The full method names ({@code service/method}) the server serves; calls of others count as {@link #OTHER}. */
  void served(java.util.Set<String> fullMethodNames) {
    served = java.util.Set.copyOf(fullMethodNames);
  }

  @Override
  public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
    if (!served.contains(fullMethodName)) {
      return new ServerStreamTracer() {
        @Override
        public void streamClosed(Status status) {
          calls.labelValues(OTHER, OTHER, status.getCode().name()).inc();
        }
      };
    }
    int slash = fullMethodName.lastIndexOf('/');
    String service = slash < 0 ? "" : fullMethodName.substring(0, slash);
    String method = fullMethodName.substring(slash + 1);
    return new ServerStreamTracer() {
      @Override
      public void streamClosed(Status status) {
        calls.labelValues(service, method, status.getCode().name()).inc();
      }
    };
  }
}
