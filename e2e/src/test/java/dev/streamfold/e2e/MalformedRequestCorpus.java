package dev.streamfold.e2e;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.TenantServiceGrpc;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.ViewServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoMethodDescriptorSupplier;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC hostile-input corpus of requests that do not parse, sent as raw bytes over a real channel: for every
 * method the server serves (its own services, health checking and reflection), bytes that are not protobuf,
 * and one request per string field of its request type (nested and map fields included) whose value is not
 * valid UTF-8; then hand-made ones (overlong and surrogate UTF-8 forms, a cut request, a payload with a lone
 * surrogate escape). Each case names the status and a fragment of the message it must get.
 */
final class MalformedRequestCorpus {
  /** Every service of the server. */
  static final List<ServiceDescriptor> SERVICES = List.of(IngestServiceGrpc.getServiceDescriptor(),
      StreamAdminGrpc.getServiceDescriptor(), TenantServiceGrpc.getServiceDescriptor(),
      TransformServiceGrpc.getServiceDescriptor(), ReplayServiceGrpc.getServiceDescriptor(),
      ViewServiceGrpc.getServiceDescriptor(), io.grpc.health.v1.HealthGrpc.getServiceDescriptor(),
      io.grpc.reflection.v1.ServerReflectionGrpc.getServiceDescriptor());
  /** Nested message fields followed at most, levels. */
  private static final int MAX_NESTING = 3;
  /** Where a string's bytes are broken: the marker's first byte becomes 0xFF. */
  private static final String MARKER = "@MARK@";

  private MalformedRequestCorpus() {}

  /**
   * One hostile call.
   *
   * @param name what it sends, for failure messages
   * @param method the method called
   * @param requests the request messages, as bytes
   * @param code the status it must end with
   * @param fragment a text its status description must contain
   */
  record Case(String name, MethodDescriptor<?, ?> method, List<byte[]> requests, Status.Code code, String fragment) {}

  /** How a call ended: its status and the responses before it. */
  record Outcome(Status status, List<byte[]> responses) {}

  /**
   * The corpus.
   *
   * @param tenant the tenant named by requests (their parse fails before it is read)
   * @param stream a stream of the tenant, named by the hand-made append requests
   */
  static List<Case> cases(String tenant, String stream) {
    List<Case> cases = new ArrayList<>();
    for (ServiceDescriptor service : SERVICES) {
      for (MethodDescriptor<?, ?> method : service.getMethods()) {
        Descriptor type = ((ProtoMethodDescriptorSupplier) method.getSchemaDescriptor()).getMethodDescriptor()
            .getInputType();
        String prefix = (method.getType().clientSendsOneMessage() ? "" : "request 0 of the call (counting from 0): ")
            + "malformed " + type.getFullName() + ": ";
        cases.add(new Case(method.getFullMethodName() + " wire type 7", method, List.of(new byte[] {0x0F}),
            Status.Code.INVALID_ARGUMENT, prefix + "not protobuf: wire type 7 (protobuf has 0 to 5) at byte 0"));
        cases.add(new Case(method.getFullMethodName() + " JSON", method,
            List.of("{\"tenant\":\"x\"}".getBytes(StandardCharsets.US_ASCII)), Status.Code.INVALID_ARGUMENT,
            prefix + "not protobuf: "));
        for (StringField field : stringFields(type, "", List.of(), 0)) {
          Message message = field.build(type, tenant);
          cases.add(new Case(method.getFullMethodName() + " " + field.path(), method, List.of(broken(message)),
              Status.Code.INVALID_ARGUMENT, prefix + field.named() + " is not valid UTF-8: byte 0xFF at offset 0"));
        }
      }
    }
    MethodDescriptor<?, ?> append = IngestServiceGrpc.getAppendMethod();
    String malformed = "malformed streamfold.v1.AppendRequest: ";
    // UTF-8 that Java's or another decoder might take: overlong '/', an encoded surrogate, a cut 4-byte form,
    // a code point past U+10FFFF, a lone continuation byte
    for (byte[] bad : List.of(new byte[] {(byte) 0xC0, (byte) 0xAF}, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
        new byte[] {(byte) 0xF0, (byte) 0x9F, (byte) 0x98}, new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
        new byte[] {(byte) 0x80})) {
      byte[] request = withKey(tenant, stream, bad);
      cases.add(new Case("Append key " + java.util.HexFormat.of().formatHex(bad), append, List.of(request),
          Status.Code.INVALID_ARGUMENT, malformed + "field 'events[2].key' is not valid UTF-8: byte 0x"
              + String.format("%02X", bad[0] & 0xff) + " at offset 1 of its " + (bad.length + 2) + " bytes"));
    }
    byte[] whole = AppendRequest.newBuilder().setTenant(tenant).setStream(stream)
        .addEvents(Event.newBuilder().setKey("k").setPayloadJson("{\"n\":1}")).build().toByteArray();
    cases.add(new Case("Append cut short", append, List.of(java.util.Arrays.copyOf(whole, whole.length - 2)),
        Status.Code.INVALID_ARGUMENT, malformed + "not protobuf: a length of "));
    byte[] tooLong = new byte[11];
    java.util.Arrays.fill(tooLong, (byte) 0xFF);
    cases.add(new Case("Append 11-byte varint", append, List.of(tooLong), Status.Code.INVALID_ARGUMENT,
        malformed + "not protobuf: a varint longer than 10 bytes at byte 0"));
    cases.add(new Case("Append HTTP/1.1", append, List.of("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(
        StandardCharsets.US_ASCII)), Status.Code.INVALID_ARGUMENT, malformed + "not protobuf: "));
    cases.add(new Case("Append empty tag 0", append, List.of(new byte[] {0x00, 0x00}), Status.Code.INVALID_ARGUMENT,
        malformed + "not protobuf: field number 0 (no message has one) at byte 0"));
    for (String payload : List.of("{\"n\":1,\"s\":\"\\ud800\"}", "{\"s\":\"\\udc00x\"}", "{\"\\ud83d\":1}",
        "{\"s\":\"\\ude00\\ud83d\"}")) {
      byte[] request = AppendRequest.newBuilder().setTenant(tenant).setStream(stream)
          .addEvents(Event.newBuilder().setKey("k").setPayloadJson(payload)).build().toByteArray();
      cases.add(new Case("Append payload " + payload, append, List.of(request), Status.Code.INVALID_ARGUMENT,
          "event 0: field 'payload_json' holds a lone UTF-16 surrogate escape \\u"));
    }
    return cases;
  }

  /** An append request of three events whose last key is {@code k<bad>k}. */
  private static byte[] withKey(String tenant, String stream, byte[] bad) {
    byte[] bytes = AppendRequest.newBuilder().setTenant(tenant).setStream(stream)
        .addEvents(Event.newBuilder().setKey("a").setPayloadJson("{}"))
        .addEvents(Event.newBuilder().setKey("b").setPayloadJson("{}"))
        .addEvents(Event.newBuilder().setKey("k" + "#".repeat(bad.length) + "k").setPayloadJson("{}"))
        .build().toByteArray();
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int at = text.indexOf("k" + "#".repeat(bad.length) + "k") + 1;
    System.arraycopy(bad, 0, bytes, at, bad.length);
    return bytes;
  }

  /** The message's bytes with the marker's first byte made 0xFF, which UTF-8 never holds. */
  private static byte[] broken(Message message) {
    byte[] bytes = message.toByteArray();
    int at = new String(bytes, StandardCharsets.ISO_8859_1).indexOf(MARKER);
    if (at < 0) {
      throw new IllegalStateException("no marker in " + message);
    }
    bytes[at] = (byte) 0xFF;
    return bytes;
  }

  /**
   * A string field reachable from a request type.
   *
   * @param path its path as the refusal names it, e.g. {@code events[0].headers["h"]}
   * @param fields the fields from the request type down to it
   * @param mapKey true for a map's key (named as {@code a key of map field '...' (entry 0)})
   */
  private record StringField(String path, List<FieldDescriptor> fields, boolean mapKey) {
    String named() {
      return mapKey ? "a key of map field '" + path + "' (entry 0)" : "field '" + path + "'";
    }

    /** A request with this field set to the marker, its map entries keyed "h", other fields unset. */
    Message build(Descriptor type, String tenant) {
      return build(type, 0, tenant);
    }

    private Message build(Descriptor type, int level, String tenant) {
      DynamicMessage.Builder message = DynamicMessage.newBuilder(type);
      FieldDescriptor tenantField = type.findFieldByName("tenant");
      if (level == 0 && tenantField != null && tenantField.getType() == FieldDescriptor.Type.STRING
          && !tenantField.isRepeated() && fields.get(0) != tenantField) {
        message.setField(tenantField, tenant);
      }
      FieldDescriptor f = fields.get(level);
      Object value;
      if (f.isMapField()) {
        Descriptor entry = f.getMessageType();
        FieldDescriptor key = entry.findFieldByNumber(1);
        FieldDescriptor v = entry.findFieldByNumber(2);
        DynamicMessage.Builder e = DynamicMessage.newBuilder(entry);
        if (mapKey) {
          e.setField(key, MARKER);
        } else {
          e.setField(key, "h");
          e.setField(v, level + 1 == fields.size() - 1 ? MARKER : build(v.getMessageType(), level + 2, tenant));
        }
        value = e.build();
      } else if (f.getType() == FieldDescriptor.Type.STRING) {
        value = MARKER;
      } else {
        value = build(f.getMessageType(), level + 1, tenant);
      }
      if (f.isRepeated()) {
        message.addRepeatedField(f, value);
      } else {
        message.setField(f, value);
      }
      return message.build();
    }
  }

  /** Every string field of a type and of the messages it holds, down to {@link #MAX_NESTING} levels. */
  private static List<StringField> stringFields(Descriptor type, String prefix, List<FieldDescriptor> above,
      int level) {
    List<StringField> found = new ArrayList<>();
    for (FieldDescriptor f : type.getFields()) {
      List<FieldDescriptor> path = new ArrayList<>(above);
      path.add(f);
      String name = prefix + f.getName();
      if (f.isMapField()) {
        FieldDescriptor key = f.getMessageType().findFieldByNumber(1);
        FieldDescriptor value = f.getMessageType().findFieldByNumber(2);
        if (key.getType() == FieldDescriptor.Type.STRING) {
          found.add(new StringField(name, path, true));
        }
        List<FieldDescriptor> valuePath = new ArrayList<>(path);
        valuePath.add(value);
        if (value.getType() == FieldDescriptor.Type.STRING) {
          found.add(new StringField(name + "[\"h\"]", valuePath, false));
        } else if (value.getType() == FieldDescriptor.Type.MESSAGE && level < MAX_NESTING) {
          found.addAll(stringFields(value.getMessageType(), name + "[\"h\"].", valuePath, level + 1));
        }
      } else if (f.getType() == FieldDescriptor.Type.STRING) {
        found.add(new StringField(name + (f.isRepeated() ? "[0]" : ""), path, false));
      } else if (f.getType() == FieldDescriptor.Type.MESSAGE && level < MAX_NESTING) {
        found.addAll(stringFields(f.getMessageType(), name + (f.isRepeated() ? "[0]" : "") + ".", path, level + 1));
      }
    }
    return found;
  }

  /**
   * Send requests as raw bytes on one call, half-close, and wait for its end.
   *
   * @param channel a channel to the server (with credentials)
   * @param method the method, whose name and type the call takes
   * @param requests the messages, as they are sent
   * @return how the call ended
   * @throws Exception if it did not end within a minute
   */
  static Outcome call(Channel channel, MethodDescriptor<?, ?> method, List<byte[]> requests) throws Exception {
    MethodDescriptor<byte[], byte[]> raw = MethodDescriptor.<byte[], byte[]>newBuilder().setType(method.getType())
        .setFullMethodName(method.getFullMethodName()).setRequestMarshaller(RAW).setResponseMarshaller(RAW).build();
    ClientCall<byte[], byte[]> call = channel.newCall(raw, CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.MINUTES));
    List<byte[]> responses = new java.util.concurrent.CopyOnWriteArrayList<>();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(byte[] message) {
        responses.add(message);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, new Metadata());
    call.request(Integer.MAX_VALUE);
    for (byte[] request : requests) {
      call.sendMessage(request);
    }
    call.halfClose();
    return new Outcome(closed.get(1, TimeUnit.MINUTES), responses);
  }

  /** Bytes as they are, both ways. */
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
}
