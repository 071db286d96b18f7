package dev.streamfold.ledger.grpc;

import dev.streamfold.ledger.LedgerException;
import dev.streamfold.schema.InvalidEventException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Maps ledger errors to gRPC statuses at the service boundary (the one mapper of this module). */
public final class LedgerStatus {
  private LedgerStatus() {}

  /**
   * Map an error to a gRPC status exception.
   *
   * @param error any error thrown while serving a call
   * @return INVALID_ARGUMENT for malformed input, NOT_FOUND for an unknown stream, ALREADY_EXISTS for a
   *     conflicting stream or a registered tenant, FAILED_PRECONDITION for an incompatible schema change,
   *     RESOURCE_EXHAUSTED for a tenant over its ingest rate, UNAVAILABLE when Pulsar fails, INTERNAL otherwise; the description is the
   *     error's message
   */
  public static StatusRuntimeException toStatus(Throwable error) {
    return toStatus(error, -1);
  }

  /**
   * Map an error of one request of a stream of requests (AppendStream) to a gRPC status exception.
   *
   * @param error the error
   * @param requestSeq the failed request's {@code request_seq}, or -1 for none; the description then starts
   *     with {@code request_seq N: }
   * @return as {@link #toStatus(Throwable)}
   */
  public static StatusRuntimeException toStatus(Throwable error, long requestSeq) {
    StatusRuntimeException status = map(error);
    if (requestSeq < 0) {
      return status;
    }
    com.google.rpc.Status proto = io.grpc.protobuf.StatusProto.fromThrowable(status);
    if (proto != null) {
      return io.grpc.protobuf.StatusProto.toStatusRuntimeException(proto.toBuilder()
          .setMessage("request_seq " + requestSeq + ": " + proto.getMessage()).build());
    }
    return status.getStatus().withDescription("request_seq " + requestSeq + ": " + status.getStatus().getDescription())
        .asRuntimeException();
  }

  private static StatusRuntimeException map(Throwable error) {
    while ((error instanceof CompletionException || error instanceof ExecutionException) && error.getCause() != null) {
      error = error.getCause();
    }
    if (error instanceof StatusRuntimeException sre) {
      return sre;
    }
    if (error instanceof InvalidEventException invalid) {
      return invalidEvents(invalid);
    }
    if (error instanceof dev.streamfold.ledger.tenant.TenantException.RateLimited limited) {
      return rateLimited(limited);
    }
    Status status;
    if (error instanceof IllegalArgumentException) {
      status = Status.INVALID_ARGUMENT;
    } else if (error instanceof dev.streamfold.ledger.tenant.TenantException.RateLimited) {
      status = Status.RESOURCE_EXHAUSTED;
    } else if (error instanceof dev.streamfold.ledger.tenant.TenantException.NotFound) {
      status = Status.NOT_FOUND;
    } else if (error instanceof dev.streamfold.ledger.tenant.TenantException.Exists) {
      status = Status.ALREADY_EXISTS;
    } else if (error instanceof LedgerException.StreamNotFound) {
      status = Status.NOT_FOUND;
    } else if (error instanceof LedgerException.IncompatibleSchema) {
      status = Status.FAILED_PRECONDITION;
    } else if (error instanceof LedgerException.StreamExists) {
      status = Status.ALREADY_EXISTS;
    } else if (error instanceof LedgerException.Unavailable) {
      status = Status.UNAVAILABLE;
    } else {
      status = Status.INTERNAL;
    }
    return status.withDescription(String.valueOf(error.getMessage())).withCause(error).asRuntimeException();
  }

  /**
   * RESOURCE_EXHAUSTED with the message, and as details a {@code google.rpc.RetryInfo} whose
   * {@code retry_delay} is when the refused request fits the tenant's rate again (gRPC's status model for
   * "retry after"; google/rpc/error_details.proto). Clients read it with
   * {@code io.grpc.protobuf.StatusProto.fromThrowable}.
   */
  private static StatusRuntimeException rateLimited(dev.streamfold.ledger.tenant.TenantException.RateLimited limited) {
    long ms = limited.retryAfterMs();
    com.google.rpc.RetryInfo retry = com.google.rpc.RetryInfo.newBuilder()
        .setRetryDelay(com.google.protobuf.Duration.newBuilder().setSeconds(ms / 1000).setNanos((int) (ms % 1000) * 1_000_000))
        .build();
    com.google.rpc.Status status = com.google.rpc.Status.newBuilder()
        .setCode(Status.Code.RESOURCE_EXHAUSTED.value()).setMessage(String.valueOf(limited.getMessage()))
        .addDetails(com.google.protobuf.Any.pack(retry)).build();
    return io.grpc.protobuf.StatusProto.toStatusRuntimeException(status);
  }

  /** Field violations sent with a refused request, at most. */
  static final int MAX_VIOLATIONS = 10;
  /** Characters of a violation's description, at most. */
  static final int MAX_VIOLATION_CHARS = 300;

  /**
   * INVALID_ARGUMENT with the message, and as details a {@code google.rpc.BadRequest} with one field
   * violation per invalid event listed: field {@code events[<index>].<field>} (e.g.
   * {@code events[3].payload_json.delay}), description the reason. Clients read them with
   * {@code io.grpc.protobuf.StatusProto.fromThrowable}. At most {@link #MAX_VIOLATIONS} violations, each
   * description at most {@link #MAX_VIOLATION_CHARS} characters: the details travel in the call's trailers, and
   * with 100 violations they passed the 8 KiB of metadata a gRPC client accepts by default, so the client saw an
   * HTTP/2 error instead of the refusal (the message says how many events were invalid).
   */
  private static StatusRuntimeException invalidEvents(InvalidEventException invalid) {
    com.google.rpc.BadRequest.Builder bad = com.google.rpc.BadRequest.newBuilder();
    for (InvalidEventException e : invalid.all().subList(0, Math.min(MAX_VIOLATIONS, invalid.all().size()))) {
      String reason = e.reason().length() > MAX_VIOLATION_CHARS
          ? e.reason().substring(0, MAX_VIOLATION_CHARS) + "…" : e.reason();
      bad.addFieldViolations(com.google.rpc.BadRequest.FieldViolation.newBuilder()
          .setField("events[" + e.index() + "]." + e.field()).setDescription(reason));
    }
    com.google.rpc.Status status = com.google.rpc.Status.newBuilder()
        .setCode(Status.Code.INVALID_ARGUMENT.value()).setMessage(String.valueOf(invalid.getMessage()))
        .addDetails(com.google.protobuf.Any.pack(bad.build())).build();
    return io.grpc.protobuf.StatusProto.toStatusRuntimeException(status);
  }
}
