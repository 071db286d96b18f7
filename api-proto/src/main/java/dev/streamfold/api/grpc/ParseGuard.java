package dev.streamfold.api.grpc;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Attributes;
import io.grpc.KnownLength;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.SecurityLevel;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoMethodDescriptorSupplier;
import io.grpc.protobuf.StatusProto;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a request that does not parse end its call with {@code INVALID_ARGUMENT} naming the field, on every
 * method of a service: a protobuf {@code string} field that is not valid UTF-8 ({@code field
 * 'events[3].key' is not valid UTF-8: ...}), or bytes that are not a protobuf message of the request type
 * ({@code not protobuf: ... at byte 7, in field 'tenant'}). With the field known, the status also carries a
 * {@code google.rpc.BadRequest} field violation naming it.
 *
 * <p>Without this, grpc-java ends such a call with {@code UNKNOWN: Application error processing RPC} and logs a
 * stack trace per request: an exception thrown by a request marshaller's {@code parse} is an application
 * error to it, whatever its status ({@code ServerImpl.JumpToApplicationThreadServerStreamListener}). Here a
 * request is parsed by the method's own marshaller and, when that throws, read again from its bytes to find
 * the field ({@link WireProblems}); a valid request costs a {@code mark} of the transport's stream.
 *
 * <p>Where the call ends:
 * <ul>
 *   <li>a method whose client sends one request (unary, server streaming): at once; the service never sees it;
 *   <li>a client- or bidirectional-streaming method: the service gets the requests before the malformed one,
 *       then a half-close, as if the client had stopped there; once it ends the call normally (after answering
 *       those requests) the call ends with {@code INVALID_ARGUMENT} instead, the message starting with
 *       {@code request <i> of the call (counting from 0)}. The service's own error, if it ends the call with
 *       one, stands. No request after the malformed one reaches the service.
 * </ul>
 *
 * <p>Apply it outside every interceptor that reads requests (e.g. {@code ServerInterceptors.intercept(service,
 * auth)} inside it): they see the parsed requests only.
 */
public final class ParseGuard {
  /** Longest status description, characters: it travels in the trailers (8 KiB by default on a client). */
  static final int MAX_DESCRIPTION_CHARS = 600;

  private ParseGuard() {}

  /**
   * Return a service whose methods refuse malformed requests as described above.
   *
   * @param service the service, with its interceptors
   * @return the same methods, names and schema descriptors (server reflection lists them as before)
   * @throws NullPointerException if {@code service} is null
   */
  public static ServerServiceDefinition guard(ServerServiceDefinition service) {
    ServiceDescriptor descriptor = service.getServiceDescriptor();
    ServiceDescriptor.Builder guarded = ServiceDescriptor.newBuilder(descriptor.getName())
        .setSchemaDescriptor(descriptor.getSchemaDescriptor());
    List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
      ServerMethodDefinition<?, ?> g = guard(method);
      methods.add(g);
      guarded.addMethod(g.getMethodDescriptor());
    }
    ServerServiceDefinition.Builder bound = ServerServiceDefinition.builder(guarded.build());
    methods.forEach(bound::addMethod);
    return bound.build();
  }

  private static <T, R> ServerMethodDefinition<Parsed<T>, R> guard(ServerMethodDefinition<T, R> method) {
    MethodDescriptor<T, R> original = method.getMethodDescriptor();
    MethodDescriptor<Parsed<T>, R> parsed = original.toBuilder(
        new ParsingMarshaller<>(original.getRequestMarshaller(), requestType(original)),
        original.getResponseMarshaller()).build();
    return ServerMethodDefinition.create(parsed, new Handler<>(original, method.getServerCallHandler()));
  }

  /** The protobuf type of a method's requests, from its schema descriptor; null when it has none. */
  private static Descriptor requestType(MethodDescriptor<?, ?> method) {
    if (method.getSchemaDescriptor() instanceof ProtoMethodDescriptorSupplier schema) {
      return schema.getMethodDescriptor().getInputType();
    }
    if (method.getRequestMarshaller() instanceof MethodDescriptor.PrototypeMarshaller<?> p
        && p.getMessagePrototype() instanceof com.google.protobuf.Message m) {
      return m.getDescriptorForType();
    }
    return null;
  }

  /**
   * A request as parsed: the message, or the status that refuses it.
   *
   * @param request the message, null when refused
   * @param refusal the refusal, null when parsed
   * @param trailers the refusal's trailers (its details), null when parsed
   */
  record Parsed<T>(T request, Status refusal, Metadata trailers) {}

  /** Parses with the method's marshaller and never throws: a failure becomes a refusal naming the field. */
  static final class ParsingMarshaller<T> implements MethodDescriptor.Marshaller<Parsed<T>> {
    private final MethodDescriptor.Marshaller<T> delegate;
    private final Descriptor type;

    ParsingMarshaller(MethodDescriptor.Marshaller<T> delegate, Descriptor type) {
      this.delegate = delegate;
      this.type = type;
    }

    @Override
    public InputStream stream(Parsed<T> value) {
      return delegate.stream(value.request());
    }

    @Override
    public Parsed<T> parse(InputStream stream) {
      byte[] bytes = null;
      InputStream source = stream;
      try {
        if (stream.markSupported()) {
          stream.mark(Integer.MAX_VALUE); // the transport's buffers: read again only when the parse fails
        } else if (!(stream instanceof KnownLength)) {
          bytes = stream.readAllBytes(); // e.g. a decompressing stream
          source = new ByteArrayInputStream(bytes);
        } // else in-process: the client's own message stream, which parses
      } catch (IOException e) {
        return refused(Status.INTERNAL.withDescription("cannot read the request: " + e.getMessage()), null);
      }
      try {
        return new Parsed<>(delegate.parse(source), null, null);
      } catch (RuntimeException e) {
        if (bytes == null && stream.markSupported()) {
          try {
            stream.reset();
            bytes = stream.readAllBytes();
          } catch (IOException | RuntimeException unreadable) {
            bytes = null;
          }
        }
        return refusal(e, bytes);
      }
    }

    /** The refusal of a request the delegate could not parse. */
    Parsed<T> refusal(RuntimeException e, byte[] bytes) {
      String name = type == null ? "request" : type.getFullName();
      WireProblems.Found found;
      try {
        found = bytes == null ? null : WireProblems.find(type, bytes);
      } catch (RuntimeException | StackOverflowError unexpected) {
        found = null; // the parser's own error below says less, but still says it
      }
      if (found != null) {
        return refused(Status.INVALID_ARGUMENT.withDescription(shorten("malformed " + name + ": "
            + found.description())), found.field());
      }
      for (Throwable cause = e; cause != null; cause = cause.getCause()) {
        if (cause instanceof InvalidProtocolBufferException invalid) {
          return refused(Status.INVALID_ARGUMENT.withDescription(shorten("malformed " + name + ": not protobuf: "
              + invalid.getMessage())), null);
        }
      }
      if (e instanceof StatusRuntimeException s && s.getStatus().getCode() != Status.Code.UNKNOWN) {
        return new Parsed<>(null, s.getStatus(), s.getTrailers() == null ? new Metadata() : s.getTrailers());
      }
      return refused(Status.INTERNAL.withDescription(shorten("cannot parse the " + name + ": " + e)), null);
    }

    private Parsed<T> refused(Status status, String field) {
      if (field == null) {
        return new Parsed<>(null, status, new Metadata());
      }
      com.google.rpc.BadRequest bad = com.google.rpc.BadRequest.newBuilder()
          .addFieldViolations(com.google.rpc.BadRequest.FieldViolation.newBuilder()
              .setField(field).setDescription(status.getDescription()))
          .build();
      com.google.rpc.Status details = com.google.rpc.Status.newBuilder().setCode(status.getCode().value())
          .setMessage(status.getDescription()).addDetails(com.google.protobuf.Any.pack(bad)).build();
      StatusRuntimeException e = StatusProto.toStatusRuntimeException(details);
      return new Parsed<>(null, e.getStatus(), e.getTrailers());
    }
  }

  static String shorten(String description) {
    return description.length() <= MAX_DESCRIPTION_CHARS ? description
        : description.substring(0, MAX_DESCRIPTION_CHARS - 1) + "…";
  }

  /** Starts the service's handler on a call whose requests arrive parsed, and refuses the malformed ones. */
  private static final class Handler<T, R> implements ServerCallHandler<Parsed<T>, R> {
    private final MethodDescriptor<T, R> method;
    private final ServerCallHandler<T, R> next;

    Handler(MethodDescriptor<T, R> method, ServerCallHandler<T, R> next) {
      this.method = method;
      this.next = next;
    }

    @Override
    public ServerCall.Listener<Parsed<T>> startCall(ServerCall<Parsed<T>, R> call, Metadata headers) {
      GuardedCall<T, R> guarded = new GuardedCall<>(call, method);
      return new Listener<>(guarded, next.startCall(guarded, headers), method.getType().clientSendsOneMessage());
    }
  }

  /**
   * Passes parsed requests on; at a malformed one, ends the call (one-request methods) or half-closes the
   * service's side and turns the service's normal end into the refusal (streaming methods).
   */
  private static final class Listener<T, R> extends ServerCall.Listener<Parsed<T>> {
    private final GuardedCall<T, R> call;
    private final ServerCall.Listener<T> delegate;
    private final boolean oneRequest;
    /** Requests received so far. */
    private long received;
    /** A request was refused: nothing more reaches the service but its call's end. */
    private boolean refused;

    Listener(GuardedCall<T, R> call, ServerCall.Listener<T> delegate, boolean oneRequest) {
      this.call = call;
      this.delegate = delegate;
      this.oneRequest = oneRequest;
    }

    @Override
    public void onMessage(Parsed<T> message) {
      long index = received++;
      if (refused) {
        return;
      }
      if (message.refusal() == null) {
        delegate.onMessage(message.request());
        return;
      }
      refused = true;
      if (oneRequest) {
        call.refuse(message.refusal(), message.trailers());
        return;
      }
      String prefix = "request " + index + " of the call (counting from 0): ";
      String suffix = index == 0 ? "; the server processed no request of the call"
          : "; the server processed every request before it and none from it on";
      call.refuseAtEnd(withDescription(message, shorten(prefix + message.refusal().getDescription() + suffix)));
      delegate.onHalfClose();
    }

    /** The refusal with another description, in its status and in its details. */
    private static Parsed<?> withDescription(Parsed<?> message, String description) {
      Metadata trailers = message.trailers();
      com.google.rpc.Status details = StatusProto.fromStatusAndTrailers(message.refusal(), trailers);
      if (details != null && !details.getDetailsList().isEmpty()) {
        StatusRuntimeException e = StatusProto.toStatusRuntimeException(details.toBuilder().setMessage(description)
            .build());
        return new Parsed<>(null, e.getStatus(), e.getTrailers());
      }
      return new Parsed<>(null, message.refusal().withDescription(description), trailers);
    }

    @Override
    public void onHalfClose() {
      if (!refused) {
        delegate.onHalfClose();
      }
    }

    @Override
    public void onCancel() {
      delegate.onCancel();
    }

    @Override
    public void onComplete() {
      delegate.onComplete();
    }

    @Override
    public void onReady() {
      if (!refused) {
        delegate.onReady();
      }
    }

    @Override
    public void onEvent(Object event) {
      delegate.onEvent(event);
    }
  }

  /**
   * The call as the service sees it: its requests' type, the original method descriptor, and an end that the
   * refusal of a malformed request may replace. Thread-safe as to its end: a service may end the call from
   * any thread.
   */
  private static final class GuardedCall<T, R> extends ServerCall<T, R> {
    private final ServerCall<Parsed<T>, R> call;
    private final MethodDescriptor<T, R> method;
    /** The refusal that replaces the service's normal end of the call; null while every request parsed. */
    private Parsed<?> refusalAtEnd;
    private boolean closed;

    GuardedCall(ServerCall<Parsed<T>, R> call, MethodDescriptor<T, R> method) {
      this.call = call;
      this.method = method;
    }

    /** End the call with a refusal now, unless it has ended. */
    synchronized void refuse(Status status, Metadata trailers) {
      if (!closed) {
        closed = true;
        call.close(status, trailers);
      }
    }

    /** End the call with a refusal when the service ends it normally. */
    synchronized void refuseAtEnd(Parsed<?> refusal) {
      refusalAtEnd = refusal;
    }

    @Override
    public synchronized void close(Status status, Metadata trailers) {
      if (closed) {
        return; // refused already; the service ends its side late
      }
      closed = true;
      if (status.isOk() && refusalAtEnd != null) {
        call.close(refusalAtEnd.refusal(), refusalAtEnd.trailers());
      } else {
        call.close(status, trailers);
      }
    }

    @Override
    public synchronized void sendMessage(R message) {
      if (!closed) {
        call.sendMessage(message);
      }
    }

    @Override
    public void request(int numMessages) {
      call.request(numMessages);
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
      if (!closed) {
        call.sendHeaders(headers);
      }
    }

    @Override
    public boolean isReady() {
      return call.isReady();
    }

    @Override
    public boolean isCancelled() {
      return call.isCancelled();
    }

    @Override
    public void setMessageCompression(boolean enabled) {
      call.setMessageCompression(enabled);
    }

    @Override
    public void setCompression(String compressor) {
      call.setCompression(compressor);
    }

    @Override
    public void setOnReadyThreshold(int numBytes) {
      call.setOnReadyThreshold(numBytes);
    }

    @Override
    public SecurityLevel getSecurityLevel() {
      return call.getSecurityLevel();
    }

    @Override
    public Attributes getAttributes() {
      return call.getAttributes();
    }

    @Override
    public String getAuthority() {
      return call.getAuthority();
    }

    @Override
    public void triggerEvent(Object event) {
      call.triggerEvent(event);
    }

    @Override
    public MethodDescriptor<T, R> getMethodDescriptor() {
      return method;
    }
  }
}
