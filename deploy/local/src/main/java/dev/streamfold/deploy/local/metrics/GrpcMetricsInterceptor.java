package dev.streamfold.deploy.local.metrics;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.prometheus.metrics.core.metrics.Counter;

/** Counts each finished gRPC call by service, method and status code, when the call is closed. */
final class GrpcMetricsInterceptor implements ServerInterceptor {
  private final Counter calls;

  GrpcMetricsInterceptor(Counter calls) {
    this.calls = calls;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    String service = call.getMethodDescriptor().getServiceName();
    String method = call.getMethodDescriptor().getBareMethodName();
    return next.startCall(new SimpleForwardingServerCall<>(call) {
      @Override
      public void close(Status status, Metadata trailers) {
        calls.labelValues(String.valueOf(service), String.valueOf(method), status.getCode().name()).inc();
        super.close(status, trailers);
      }
    }, headers);
  }
}
