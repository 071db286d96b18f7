package dev.streamfold.ledger.grpc;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.StreamRef;
import dev.streamfold.ledger.tenant.IngestLimiter;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * gRPC {@code IngestService}: appends events to the ledger. A request is all-or-nothing as to
 * validation: an invalid event rejects its whole request (INVALID_ARGUMENT naming the event index
 * and field) and appends nothing of it.
 */
public final class IngestGrpcService extends IngestServiceGrpc.IngestServiceImplBase {
  /** Most events accepted in one AppendRequest. */
  public static final int MAX_EVENTS_PER_REQUEST = 10_000;
  /** Most AppendStream requests awaiting acknowledgement from the ledger per call (flow control). */
  public static final int MAX_IN_FLIGHT_REQUESTS = 64;

  private final Ledger ledger;
  private final IngestLimiter limiter;

  /**
   * Create the service with {@link dev.streamfold.ledger.tenant.TenantLimits#defaults()} for every tenant.
   *
   * @param ledger where events are appended
   */
  public IngestGrpcService(Ledger ledger) {
    this(ledger, IngestLimiter.defaults());
  }

  /**
   * Create the service.
   *
   * @param ledger where events are appended
   * @param limiter each tenant's event size, batch size and ingest rate limits
   */
  public IngestGrpcService(Ledger ledger, IngestLimiter limiter) {
    this.ledger = ledger;
    this.limiter = limiter;
  }

  private CompletableFuture<AppendResponse> appendAsync(AppendRequest request) {
    if (request.getEventsCount() > MAX_EVENTS_PER_REQUEST) {
      throw Status.INVALID_ARGUMENT.withDescription("events: " + request.getEventsCount()
          + " events in one request; at most " + MAX_EVENTS_PER_REQUEST).asRuntimeException();
    }
    StreamRef stream = new StreamRef(request.getTenant(), request.getStream());
    limiter.check(stream.tenant(), request.getEventsCount(), i -> request.getEvents(i).getSerializedSize());
    return ledger.append(stream, Protos.events(request.getEventsList())).thenApply(ids -> response(request, ids));
  }

  private static AppendResponse response(AppendRequest request, List<Appended> appended) {
    AppendResponse.Builder b = AppendResponse.newBuilder().setRequestSeq(request.getRequestSeq());
    for (Appended a : appended) {
      b.addMessageIds(a.messageId().toString());
      b.addRepeat(a.repeat());
    }
    return b.build();
  }

  @Override
  public void append(AppendRequest request, StreamObserver<AppendResponse> responseObserver) {
    try {
      appendAsync(request).whenComplete((response, error) -> {
        if (error != null) {
          responseObserver.onError(LedgerStatus.toStatus(error));
        } else {
          responseObserver.onNext(response);
          responseObserver.onCompleted();
        }
      });
    } catch (RuntimeException e) {
      responseObserver.onError(LedgerStatus.toStatus(e));
    }
  }

  @Override
  public StreamObserver<AppendRequest> appendStream(StreamObserver<AppendResponse> responseObserver) {
    ServerCallStreamObserver<AppendResponse> call = (ServerCallStreamObserver<AppendResponse>) responseObserver;
    call.disableAutoRequest();
    call.request(MAX_IN_FLIGHT_REQUESTS);
    return new StreamObserver<>() {
      // Responses go out in request order: each append's response waits for the previous one's.
      private CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);
      private boolean failed;

      @Override
      public synchronized void onNext(AppendRequest request) {
        if (failed) {
          return;
        }
        CompletableFuture<AppendResponse> append;
        try {
          append = appendAsync(request);
        } catch (RuntimeException e) {
          append = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<AppendResponse> thisAppend = append;
        previous = previous.thenCompose(ignored -> thisAppend.handle((response, error) -> {
          synchronized (this) {
            if (failed) {
              return null;
            }
            if (error != null) {
              failed = true;
              call.onError(LedgerStatus.toStatus(error));
            } else {
              call.onNext(response);
              call.request(1);
            }
          }
          return null;
        }));
      }

      @Override
      public synchronized void onError(Throwable t) {
        failed = true;
      }

      @Override
      public synchronized void onCompleted() {
        previous.whenComplete((ignored, error) -> {
          synchronized (this) {
            if (!failed) {
              call.onCompleted();
            }
          }
        });
      }
    };
  }
}
