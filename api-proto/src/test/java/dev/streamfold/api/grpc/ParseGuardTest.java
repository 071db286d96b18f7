package dev.streamfold.api.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.IngestServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The guard on a real in-process server and channel; requests sent as raw bytes, as a hostile client would. */
class ParseGuardTest {
  /** Sends and receives bytes as they are. */
  private static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  };

  private final List<AppendRequest> appended = new CopyOnWriteArrayList<>();
  /** Requests an interceptor inside the guard saw, all of them protobuf messages. */
  private final List<Object> intercepted = new CopyOnWriteArrayList<>();
  /** When set, the service ends AppendStream with this error at its second request. */
  private volatile Status failSecond;
  private Server server;
  private ManagedChannel channel;

  /** Appends nothing: records each request and answers it with its event count as message IDs. */
  private final class Service extends IngestServiceGrpc.IngestServiceImplBase {
    @Override
    public void append(AppendRequest request, StreamObserver<AppendResponse> response) {
      appended.add(request);
      response.onNext(AppendResponse.newBuilder().setRequestSeq(request.getRequestSeq()).build());
      response.onCompleted();
    }

    @Override
    public StreamObserver<AppendRequest> appendStream(StreamObserver<AppendResponse> response) {
      return new StreamObserver<>() {
        private int requests;

        @Override
        public void onNext(AppendRequest request) {
          if (++requests == 2 && failSecond != null) {
            response.onError(failSecond.asRuntimeException());
            return;
          }
          appended.add(request);
          response.onNext(AppendResponse.newBuilder().setRequestSeq(request.getRequestSeq()).build());
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          response.onCompleted();
        }
      };
    }
  }

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    ServerInterceptor recorder = new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
          ServerCallHandler<ReqT, RespT> next) {
        return new io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
            next.startCall(call, headers)) {
          @Override
          public void onMessage(ReqT message) {
            intercepted.add(message);
            super.onMessage(message);
          }
        };
      }
    };
    server = InProcessServerBuilder.forName(name).directExecutor()
        .addService(ParseGuard.guard(ServerInterceptors.intercept(new Service(), recorder))).build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  private static MethodDescriptor<byte[], byte[]> raw(MethodDescriptor<?, ?> method) {
    return MethodDescriptor.<byte[], byte[]>newBuilder().setType(method.getType())
        .setFullMethodName(method.getFullMethodName()).setRequestMarshaller(RAW).setResponseMarshaller(RAW).build();
  }

  private static byte[] notUtf8Key(int seq) {
    byte[] bytes = AppendRequest.newBuilder().setTenant("t").setStream("s").setRequestSeq(seq)
        .addEvents(Event.newBuilder().setKey("ok").setPayloadJson("{}"))
        .addEvents(Event.newBuilder().setKey("k@").setPayloadJson("{}")).build().toByteArray();
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '@') {
        bytes[i] = (byte) 0xC3; // a lead byte without its continuation
      }
    }
    return bytes;
  }

  private static byte[] valid(int seq) {
    return AppendRequest.newBuilder().setTenant("t").setStream("s").setRequestSeq(seq)
        .addEvents(Event.newBuilder().setKey("k").setPayloadJson("{}")).build().toByteArray();
  }

  @Test
  void aUnaryRequestThatIsNotUtf8IsRefusedNamingTheFieldAndNeverReachesTheService() {
    StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> ClientCalls.blockingUnaryCall(channel, raw(IngestServiceGrpc.getAppendMethod()), CallOptions.DEFAULT,
            notUtf8Key(1)));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(e.getStatus().getDescription()).isEqualTo("malformed streamfold.v1.AppendRequest: field 'events[1].key'"
        + " is not valid UTF-8: byte 0xC3 at offset 1 of its 2 bytes (protobuf string fields hold UTF-8 text)");
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    assertThat(details).isNotNull();
    assertThat(details.getDetailsList()).singleElement().satisfies(any -> assertThat(
        any.unpack(com.google.rpc.BadRequest.class).getFieldViolations(0).getField()).isEqualTo("events[1].key"));
    assertThat(appended).isEmpty();
    assertThat(intercepted).isEmpty();
  }

  @Test
  void aUnaryRequestThatIsNotProtobufIsRefused() {
    StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
        () -> ClientCalls.blockingUnaryCall(channel, raw(IngestServiceGrpc.getAppendMethod()), CallOptions.DEFAULT,
            "GET / HTTP/1.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(e.getStatus().getDescription()).startsWith("malformed streamfold.v1.AppendRequest: not protobuf: ");
    assertThat(appended).isEmpty();
  }

  @Test
  void validRequestsPassWhetherSentAsBytesOrAsMessages() throws Exception {
    AppendResponse fromBytes = AppendResponse.parseFrom(ClientCalls.blockingUnaryCall(channel,
        raw(IngestServiceGrpc.getAppendMethod()), CallOptions.DEFAULT, valid(7)));
    assertThat(fromBytes.getRequestSeq()).isEqualTo(7);
    AppendResponse fromStub = IngestServiceGrpc.newBlockingStub(channel)
        .append(AppendRequest.parseFrom(valid(8)));
    assertThat(fromStub.getRequestSeq()).isEqualTo(8);
    assertThat(appended).extracting(AppendRequest::getRequestSeq).containsExactly(7L, 8L);
    assertThat(intercepted).allMatch(r -> r instanceof AppendRequest);
  }

  /** A streamed call: requests 0..n-1 sent, the call's responses and how it ended. */
  private record Streamed(List<Long> acknowledged, Status end) {}

  private Streamed stream(byte[]... requests) throws Exception {
    List<Long> acknowledged = new CopyOnWriteArrayList<>();
    CompletableFuture<Status> end = new CompletableFuture<>();
    StreamObserver<byte[]> out = ClientCalls.asyncBidiStreamingCall(
        channel.newCall(raw(IngestServiceGrpc.getAppendStreamMethod()), CallOptions.DEFAULT), new StreamObserver<>() {
          @Override
          public void onNext(byte[] value) {
            try {
              acknowledged.add(AppendResponse.parseFrom(value).getRequestSeq());
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
              end.completeExceptionally(e);
            }
          }

          @Override
          public void onError(Throwable t) {
            end.complete(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            end.complete(Status.OK);
          }
        });
    for (byte[] request : requests) {
      out.onNext(request);
    }
    out.onCompleted();
    return new Streamed(acknowledged, end.get(10, TimeUnit.SECONDS));
  }

  @Test
  void aStreamEndsAtItsMalformedRequestAfterTheServiceAnsweredTheOnesBefore() throws Exception {
    Streamed s = stream(valid(1), valid(2), valid(3), notUtf8Key(4), valid(5));
    assertThat(s.acknowledged()).containsExactly(1L, 2L, 3L);
    assertThat(s.end().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.end().getDescription()).isEqualTo("request 3 of the call (counting from 0): malformed"
        + " streamfold.v1.AppendRequest: field 'events[1].key' is not valid UTF-8: byte 0xC3 at offset 1 of its 2"
        + " bytes (protobuf string fields hold UTF-8 text); the server processed every request before it and none"
        + " from it on");
    assertThat(appended).extracting(AppendRequest::getRequestSeq).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aStreamWhoseFirstRequestIsMalformedProcessesNone() throws Exception {
    Streamed s = stream(new byte[] {(byte) 0xFF}, valid(2));
    assertThat(s.acknowledged()).isEmpty();
    assertThat(s.end().getDescription()).startsWith("request 0 of the call (counting from 0): malformed"
        + " streamfold.v1.AppendRequest: not protobuf: ").endsWith("; the server processed no request of the call");
    assertThat(appended).isEmpty();
  }

  @Test
  void theServicesOwnErrorBeforeTheMalformedRequestStands() throws Exception {
    failSecond = Status.UNAVAILABLE.withDescription("ledger down");
    Streamed s = stream(valid(1), valid(2), notUtf8Key(3));
    assertThat(s.acknowledged()).containsExactly(1L);
    assertThat(s.end().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.end().getDescription()).isEqualTo("ledger down");
  }

  @Test
  void aStreamOfValidRequestsCompletes() throws Exception {
    Streamed s = stream(valid(1), valid(2));
    assertThat(s.end().isOk()).isTrue();
    assertThat(s.acknowledged()).containsExactly(1L, 2L);
  }

  @Test
  void theGuardedServiceKeepsItsMethodsAndSchema() {
    io.grpc.ServerServiceDefinition guarded = ParseGuard.guard(new Service().bindService());
    assertThat(guarded.getServiceDescriptor().getName()).isEqualTo(IngestServiceGrpc.SERVICE_NAME);
    assertThat(guarded.getServiceDescriptor().getSchemaDescriptor())
        .isSameAs(IngestServiceGrpc.getServiceDescriptor().getSchemaDescriptor());
    assertThat(guarded.getMethods()).extracting(m -> m.getMethodDescriptor().getFullMethodName())
        .containsExactlyInAnyOrder(IngestServiceGrpc.getAppendMethod().getFullMethodName(),
            IngestServiceGrpc.getAppendStreamMethod().getFullMethodName());
  }

  @Test
  void aMarshallerThatFailsWithoutBytesToReadAgainIsStillAPreciseStatus() {
    ParseGuard.ParsingMarshaller<AppendRequest> marshaller = new ParseGuard.ParsingMarshaller<>(
        new MethodDescriptor.Marshaller<>() {
          @Override
          public InputStream stream(AppendRequest value) {
            return value.toByteString().newInput();
          }

          @Override
          public AppendRequest parse(InputStream stream) {
            throw new IllegalStateException("boom");
          }
        }, AppendRequest.getDescriptor());
    ParseGuard.Parsed<AppendRequest> parsed = marshaller.parse(new ByteArrayInputStream(valid(1)));
    assertThat(parsed.request()).isNull();
    assertThat(parsed.refusal().getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(parsed.refusal().getDescription()).contains("boom");
  }
}
