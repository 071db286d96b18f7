package dev.streamfold.ledger.grpc;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.Ledger;
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
 *
 * <p>What the server buffers per call: one request of at most {@value #MAX_REQUEST_BYTES} bytes (the
 * transport refuses a longer one from its length prefix, RESOURCE_EXHAUSTED, before reading it), then
 * its events as objects only once they are counted on the wire (at most {@value #MAX_EVENTS_PER_REQUEST}:
 * a 4 MiB request of empty events would otherwise become two million objects), and for AppendStream at
 * most {@value #MAX_IN_FLIGHT_REQUESTS} requests awaiting the ledger.
 */
public final class IngestGrpcService extends IngestServiceGrpc.IngestServiceImplBase {
  /** Most events accepted in one AppendRequest. Ours. */
  public static final int MAX_EVENTS_PER_REQUEST = 10_000;
  /**
   * Largest AppendRequest, bytes on the wire: gRPC's default maximum inbound message size (4 MiB,
   * {@code GrpcUtil.DEFAULT_MAX_MESSAGE_SIZE}), set explicitly on the server
   * ({@code ServerBuilder.maxInboundMessageSize}). Clients batch by bytes as well as by events.
   */
  public static final int MAX_REQUEST_BYTES = 4 * 1024 * 1024;
  /** Unknown field of a request whose events were not parsed because there were too many; holds the count. */
  private static final int TOO_MANY_EVENTS_FIELD = 536_870_911;
  /** Most AppendStream requests awaiting acknowledgement from the ledger per call (flow control). */
  public static final int MAX_IN_FLIGHT_REQUESTS = 64;

  private final Ledger ledger;
  private final IngestLimiter limiter;
  private final IngestListener listener;

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
    this(ledger, limiter, IngestListener.NONE);
  }

  /**
   * Create the service.
   *
   * @param ledger where events are appended
   * @param limiter each tenant's event size, batch size and ingest rate limits
   * @param listener told the outcome and latency of each append request (metrics)
   * @throws NullPointerException if an argument is null
   */
  public IngestGrpcService(Ledger ledger, IngestLimiter limiter, IngestListener listener) {
    this.ledger = java.util.Objects.requireNonNull(ledger, "ledger");
    this.limiter = java.util.Objects.requireNonNull(limiter, "limiter");
    this.listener = java.util.Objects.requireNonNull(listener, "listener");
  }

  /**
   * Tell the listener how an append request ended, once it has.
   *
   * @param startNanos {@link System#nanoTime()} when the request arrived
   * @return {@code append}, unchanged (the listener only watches it)
   */
  private CompletableFuture<AppendResponse> observe(AppendRequest request, long startNanos,
      CompletableFuture<AppendResponse> append) {
    append.whenComplete((response, error) -> {
      long latencyNanos = System.nanoTime() - startNanos;
      if (error == null) {
        listener.appended(new StreamRef(request.getTenant(), request.getStream()), request.getEventsCount(),
            latencyNanos);
      } else {
        listener.refused(request.getTenant(), request.getEventsCount(),
            LedgerStatus.toStatus(error).getStatus().getCode(), latencyNanos);
      }
    });
    return append;
  }

  private CompletableFuture<AppendResponse> appendAsync(AppendRequest request) {
    long events = request.getUnknownFields().hasField(TOO_MANY_EVENTS_FIELD)
        ? request.getUnknownFields().getField(TOO_MANY_EVENTS_FIELD).getVarintList().get(0)
        : request.getEventsCount();
    if (events > MAX_EVENTS_PER_REQUEST) {
      throw Status.INVALID_ARGUMENT.withDescription("events: " + events
          + " events in one request; at most " + MAX_EVENTS_PER_REQUEST + " (split it into several requests)")
          .asRuntimeException();
    }
    StreamRef stream = new StreamRef(request.getTenant(), request.getStream());
    // The exact size encodes every text to count its UTF-8 (a sixth of a call's thread, docs/performance.md):
    // only for events whose cheap upper bound is over the limit.
    limiter.check(stream.tenant(), request.getEventsCount(), i -> Protos.sizeAtMost(request.getEvents(i)),
        i -> request.getEvents(i).getSerializedSize());
    return ledger.append(stream, Protos.events(request.getEventsList())).thenApply(ids -> response(request, ids));
  }

  /**
   * Build the reply to a request: per event its message ID text ({@link MessageId#toString()}) and repeat
   * flag, in event order. Events of one batched entry share {@code ledgerId:entryId:partition:} (up to 1,000 of
   * them), so that prefix is formatted once per entry rather than once per event.
   */
  static AppendResponse response(AppendRequest request, List<Appended> appended) {
    AppendResponse.Builder b = AppendResponse.newBuilder().setRequestSeq(request.getRequestSeq());
    MessageId prefixOf = null;
    String prefix = null;
    for (Appended a : appended) {
      MessageId id = a.messageId();
      if (prefixOf == null || id.ledgerId() != prefixOf.ledgerId() || id.entryId() != prefixOf.entryId()
          || id.partition() != prefixOf.partition()) {
        prefixOf = id;
        prefix = id.ledgerId() + ":" + id.entryId() + ":" + id.partition() + ":";
      }
      b.addMessageIds(prefix + id.batchIndex());
      b.addRepeat(a.repeat());
    }
    return b.build();
  }

  /**
   * Bind the service with a request marshaller that counts events on the wire before building them: add
   * this to a server rather than the service itself (which would build every event of a request first).
   *
   * @return the service definition
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public io.grpc.ServerServiceDefinition definition() {
    io.grpc.ServerServiceDefinition generated = bindService();
    io.grpc.ServiceDescriptor descriptor = generated.getServiceDescriptor();
    List<io.grpc.ServerMethodDefinition<?, ?>> methods = new java.util.ArrayList<>();
    io.grpc.ServiceDescriptor.Builder service = io.grpc.ServiceDescriptor.newBuilder(descriptor.getName())
        .setSchemaDescriptor(descriptor.getSchemaDescriptor());
    for (io.grpc.ServerMethodDefinition<?, ?> method : generated.getMethods()) {
      io.grpc.MethodDescriptor md = method.getMethodDescriptor();
      if (md.getRequestMarshaller() instanceof io.grpc.MethodDescriptor.PrototypeMarshaller p
          && p.getMessagePrototype() instanceof AppendRequest) {
        io.grpc.MethodDescriptor counted = md.toBuilder(new CountingMarshaller(md.getRequestMarshaller()),
            md.getResponseMarshaller()).build();
        method = io.grpc.ServerMethodDefinition.create(counted, (io.grpc.ServerCallHandler) method.getServerCallHandler());
      }
      methods.add(method);
      service.addMethod(method.getMethodDescriptor());
    }
    io.grpc.ServerServiceDefinition.Builder bound = io.grpc.ServerServiceDefinition.builder(service.build());
    methods.forEach(bound::addMethod);
    return bound.build();
  }

  /**
   * Parses an AppendRequest only after counting its events on the wire; with more than
   * {@link #MAX_EVENTS_PER_REQUEST} it returns the request without events, marked with the count, which
   * {@link #appendAsync} refuses. Bytes that are not an AppendRequest (a string that is not UTF-8 included)
   * make it throw INVALID_ARGUMENT: grpc-java answers an exception from a marshaller with UNKNOWN, so the
   * server wraps the service in {@code dev.streamfold.api.grpc.ParseGuard}, which reads the bytes again and
   * refuses the request naming the field.
   */
  static final class CountingMarshaller implements io.grpc.MethodDescriptor.Marshaller<AppendRequest> {
    private final io.grpc.MethodDescriptor.Marshaller<AppendRequest> delegate;

    CountingMarshaller(io.grpc.MethodDescriptor.Marshaller<AppendRequest> delegate) {
      this.delegate = delegate;
    }

    @Override
    public java.io.InputStream stream(AppendRequest value) {
      return delegate.stream(value);
    }

    @Override
    public AppendRequest parse(java.io.InputStream stream) {
      try {
        return parse(readAll(stream));
      } catch (java.io.IOException e) {
        throw Status.INTERNAL.withDescription("cannot read the request: " + e.getMessage()).withCause(e)
            .asRuntimeException();
      }
    }

    /**
     * Read a whole stream into one array of the size the stream announces ({@code available()}, exact for
     * gRPC's message streams), instead of {@code readAllBytes}' chunks and copies.
     */
    static byte[] readAll(java.io.InputStream stream) throws java.io.IOException {
      int announced = stream.available();
      if (announced <= 0) {
        return stream.readAllBytes();
      }
      byte[] bytes = new byte[announced];
      int read = stream.readNBytes(bytes, 0, announced);
      if (read < announced) {
        return java.util.Arrays.copyOf(bytes, read);
      }
      int next = stream.read();
      if (next < 0) {
        return bytes;
      }
      byte[] rest = stream.readAllBytes();
      byte[] all = java.util.Arrays.copyOf(bytes, announced + 1 + rest.length);
      all[announced] = (byte) next;
      System.arraycopy(rest, 0, all, announced + 1, rest.length);
      return all;
    }

    static AppendRequest parse(byte[] bytes) throws java.io.IOException {
      try {
        com.google.protobuf.CodedInputStream in = com.google.protobuf.CodedInputStream.newInstance(bytes);
        long events = 0;
        AppendRequest.Builder header = AppendRequest.newBuilder();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
          switch (com.google.protobuf.WireFormat.getTagFieldNumber(tag)) {
            case AppendRequest.EVENTS_FIELD_NUMBER -> {
              events++;
              in.skipField(tag);
            }
            case AppendRequest.TENANT_FIELD_NUMBER -> header.setTenant(in.readStringRequireUtf8());
            case AppendRequest.STREAM_FIELD_NUMBER -> header.setStream(in.readStringRequireUtf8());
            case AppendRequest.REQUEST_SEQ_FIELD_NUMBER -> header.setRequestSeq(in.readInt64());
            default -> in.skipField(tag);
          }
        }
        if (events > MAX_EVENTS_PER_REQUEST) {
          return header.setUnknownFields(com.google.protobuf.UnknownFieldSet.newBuilder()
              .addField(TOO_MANY_EVENTS_FIELD, com.google.protobuf.UnknownFieldSet.Field.newBuilder()
                  .addVarint(events).build()).build()).build();
        }
        return AppendRequest.parseFrom(bytes);
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        throw Status.INVALID_ARGUMENT.withDescription("malformed AppendRequest: " + e.getMessage()).withCause(e)
            .asRuntimeException();
      }
    }
  }

  @Override
  public void append(AppendRequest request, StreamObserver<AppendResponse> responseObserver) {
    long startNanos = System.nanoTime();
    CompletableFuture<AppendResponse> append;
    try {
      append = appendAsync(request);
    } catch (RuntimeException e) {
      observe(request, startNanos, CompletableFuture.failedFuture(e));
      responseObserver.onError(LedgerStatus.toStatus(e));
      return;
    }
    observe(request, startNanos, append).whenComplete((response, error) -> {
      if (error != null) {
        responseObserver.onError(LedgerStatus.toStatus(error));
      } else {
        responseObserver.onNext(response);
        responseObserver.onCompleted();
      }
    });
  }

  @Override
  public StreamObserver<AppendRequest> appendStream(StreamObserver<AppendResponse> responseObserver) {
    ServerCallStreamObserver<AppendResponse> call = (ServerCallStreamObserver<AppendResponse>) responseObserver;
    call.disableAutoRequest();
    call.request(MAX_IN_FLIGHT_REQUESTS);
    return new StreamObserver<>() {
      // Responses go out in request order: each append's response waits for the previous one's.
      private CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);
      /** The call ended with an error (sent, or the client's). */
      private boolean failed;
      /** A request was refused before anything of it was appended: later requests are not appended. */
      private boolean refused;

      @Override
      public synchronized void onNext(AppendRequest request) {
        if (failed || refused) {
          return; // after a refused request nothing more is appended: the call ends with its error
        }
        CompletableFuture<AppendResponse> append;
        long startNanos = System.nanoTime();
        try {
          append = appendAsync(request);
        } catch (RuntimeException e) {
          refused = true;
          append = CompletableFuture.failedFuture(e);
        }
        observe(request, startNanos, append);
        CompletableFuture<AppendResponse> thisAppend = append;
        long seq = request.getRequestSeq();
        previous = previous.thenCompose(ignored -> thisAppend.handle((response, error) -> {
          synchronized (this) {
            if (failed) {
              return null;
            }
            if (error != null) {
              failed = true;
              call.onError(LedgerStatus.toStatus(error, seq));
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
      // A request refused by validation ends the call after the responses to the requests before it, and
      // no request after it is appended. A request that fails in Pulsar (UNAVAILABLE) ends the call too,
      // but requests sent after it may already be appending: retry them with their idempotency keys.
    };
  }
}
