package dev.streamfold.ledger.grpc;

import dev.streamfold.core.StreamRef;
import io.grpc.Status;

/**
 * Told the outcome of each append request of {@link IngestGrpcService} (one {@code Append} call, or one
 * request of an {@code AppendStream} call), for metrics. Called on gRPC or Pulsar client threads: keep it
 * cheap and non-blocking, and never throw.
 */
public interface IngestListener {
  /** A listener that does nothing. */
  IngestListener NONE = new IngestListener() {
    @Override
    public void appended(StreamRef stream, int events, long latencyNanos) {}

    @Override
    public void refused(String tenant, int events, Status.Code code, long latencyNanos) {}
  };

  /**
   * Record an append request whose events are all in the ledger.
   *
   * @param stream where they were appended
   * @param events events in the request (repeats of earlier appends included)
   * @param latencyNanos from the request's arrival at the service to the ledger's acknowledgement, nanoseconds
   */
  void appended(StreamRef stream, int events, long latencyNanos);

  /**
   * Record an append request that failed: refused by validation or a limit, or failed in the ledger.
   *
   * @param tenant the tenant the request names ("" when it names none)
   * @param events events in the request (0 when it was refused for holding more than {@link IngestGrpcService#MAX_EVENTS_PER_REQUEST}, which are not parsed)
   * @param code the gRPC status code the client gets
   * @param latencyNanos from the request's arrival to the failure, nanoseconds
   */
  void refused(String tenant, int events, Status.Code code, long latencyNanos);
}
