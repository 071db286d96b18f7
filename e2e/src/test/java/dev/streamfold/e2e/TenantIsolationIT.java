package dev.streamfold.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateTenantRequest;
import dev.streamfold.api.v1.CreateTenantResponse;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.GetRowRequest;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.IssueTokenRequest;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.ListTenantsRequest;
import dev.streamfold.api.v1.ListTransformsRequest;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.RevokeTokenRequest;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.TenantLimits;
import dev.streamfold.api.v1.TenantRequest;
import dev.streamfold.api.v1.TenantServiceGrpc;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.ViewServiceGrpc;
import dev.streamfold.server.ServerOptions;
import dev.streamfold.server.StreamfoldServer;
import dev.streamfold.testkit.Testkit;
import dev.streamfold.testkit.resp.RawRespClient;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Guarantee 7 (isolation): a tenant's token cannot read, write or list another tenant's streams or views.
 * Two tenants, each with a stream and a LIVE view, on a real server (Pulsar, Redis, Flink); tenant A's token
 * is used against tenant B's resources on every gRPC method of every service and on every RESP read
 * command. Also: missing, wrong and revoked tokens, the admin token, and per-tenant limits.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TenantIsolationIT {
  private static final String A = Testkit.uniqueName("iso-a");
  private static final String B = Testkit.uniqueName("iso-b");
  private static final String LIMITED = Testkit.uniqueName("iso-lim");
  private static final String STREAM = "events";
  private static final String VIEW_A = "va";
  private static final String VIEW_B = "vb";
  private static final String SQL = "SELECT k, COUNT(*) AS n FROM events GROUP BY k";

  private static StreamfoldServer server;
  private static ManagedChannel channel;
  private static String tokenA;
  private static String tokenB;
  private static String lastIdB;

  @BeforeAll
  static void start() {
    String name = InProcessServerBuilder.generateName();
    server = new StreamfoldServer(ServerOptions.builder(Testkit.workDir().resolve("isolation-server"),
        Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl(), Testkit.redis().uri()).defaultTenant(A)
        .checkpointInterval(Duration.ofMillis(300)).tenants(java.util.Set.of(A, B, LIMITED)).build())
        .start(InProcessServerBuilder.forName(name));
    channel = InProcessChannelBuilder.forName(name).build();
    TenantServiceGrpc.TenantServiceBlockingStub admin = tenants(server.adminToken());
    tokenA = admin.createTenant(CreateTenantRequest.newBuilder().setTenant(A).build()).getToken();
    tokenB = admin.createTenant(CreateTenantRequest.newBuilder().setTenant(B).build()).getToken();
    setUpTenant(tokenA, VIEW_A, List.of("x", "y", "z"));
    lastIdB = setUpTenant(tokenB, VIEW_B, List.of("x", "y", "z", "w"));
    awaitLive(tokenA, VIEW_A, 3);
    awaitLive(tokenB, VIEW_B, 4);
  }

  @AfterAll
  static void stop() {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  private static io.grpc.Channel as(String token) {
    return ClientInterceptors.intercept(channel, TestAuth.bearer(token));
  }

  private static TenantServiceGrpc.TenantServiceBlockingStub tenants(String token) {
    return TenantServiceGrpc.newBlockingStub(as(token)).withDeadlineAfter(1, TimeUnit.MINUTES);
  }

  private static TransformServiceGrpc.TransformServiceBlockingStub transforms(String token) {
    return TransformServiceGrpc.newBlockingStub(as(token)).withDeadlineAfter(1, TimeUnit.MINUTES);
  }

  private static Event event(String key) {
    return Event.newBuilder().setKey(key).setType("e").setEventTimeMs(1_000).setPayloadJson("{\"k\":\"" + key + "\"}")
        .build();
  }

  /** With the tenant's own token and an empty tenant field: stream, events, view. Returns the last message ID. */
  private static String setUpTenant(String token, String view, List<String> keys) {
    StreamAdminGrpc.newBlockingStub(as(token)).createStream(CreateStreamRequest.newBuilder().setName(STREAM)
        .addColumns(Column.newBuilder().setName("k").setType("STRING")).build());
    AppendResponse appended = IngestServiceGrpc.newBlockingStub(as(token)).append(AppendRequest.newBuilder()
        .setStream(STREAM).addAllEvents(keys.stream().map(TenantIsolationIT::event).toList()).build());
    transforms(token).create(CreateTransformRequest.newBuilder().setName(view).setSql(SQL).addKeyColumns("k").build());
    return appended.getMessageIds(appended.getMessageIdsCount() - 1);
  }

  /** Wait until the view of the token's tenant (no tenant named in the requests) is LIVE with the events applied. */
  private static void awaitLive(String token, String view, long events) {
    new GrpcClients(() -> as(token), "").awaitLive(view, events);
  }

  private static Status.Code code(Runnable call) {
    try {
      call.run();
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  /** Every method of every service the server offers, with its request message prototype. */
  private static List<MethodDescriptor<?, ?>> allMethods() {
    List<MethodDescriptor<?, ?>> methods = new ArrayList<>();
    for (ServiceDescriptor service : List.of(IngestServiceGrpc.getServiceDescriptor(),
        StreamAdminGrpc.getServiceDescriptor(), TransformServiceGrpc.getServiceDescriptor(),
        ReplayServiceGrpc.getServiceDescriptor(), ViewServiceGrpc.getServiceDescriptor(),
        TenantServiceGrpc.getServiceDescriptor())) {
      methods.addAll(service.getMethods());
    }
    return methods;
  }

  /** A request naming tenant B and B's resources in every field that names one. */
  private static Message requestAgainstB(MethodDescriptor<?, ?> method) {
    Message prototype = (Message) ((MethodDescriptor.PrototypeMarshaller<?>) method.getRequestMarshaller())
        .getMessagePrototype();
    Message.Builder b = prototype.toBuilder();
    Map<String, Object> values = Map.of("tenant", B, "stream", STREAM, "view", VIEW_B, "name", VIEW_B,
        "source_view", VIEW_B, "label_stream", STREAM, "key", "x", "to", "latest", "sql", SQL,
        "revoke_others", true);
    for (FieldDescriptor f : prototype.getDescriptorForType().getFields()) {
      Object value = values.get(f.getName());
      if (value != null && !f.isRepeated() && f.getJavaType() == (value instanceof Boolean
          ? FieldDescriptor.JavaType.BOOLEAN : FieldDescriptor.JavaType.STRING)) {
        b.setField(f, value);
      }
    }
    if (b instanceof AppendRequest.Builder append) {
      append.addEvents(event("from-a"));
    }
    if (b instanceof RevokeTokenRequest.Builder revoke) {
      revoke.setAll(true);
    }
    return b.build();
  }

  /** Make one call of any kind (unary or streaming) with one request message; return its final status. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Status callOnce(io.grpc.Channel on, MethodDescriptor method, Message request) throws Exception {
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall call = on.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    call.start(new ClientCall.Listener() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, new Metadata());
    call.request(Integer.MAX_VALUE);
    call.sendMessage(request);
    call.halfClose();
    return closed.get(1, TimeUnit.MINUTES);
  }

  @Test
  void tenantAsTokenIsDeniedOnEveryGrpcMethodAgainstTenantB() throws Exception {
    List<MethodDescriptor<?, ?>> methods = allMethods();
    assertThat(methods).as("Ingest 2, StreamAdmin 8, Transform 6, Replay 8, View 1, Tenant 5").hasSize(30);
    List<String> notDenied = new ArrayList<>();
    for (MethodDescriptor<?, ?> method : methods) {
      Status status = callOnce(as(tokenA), method, requestAgainstB(method));
      if (status.getCode() != Status.Code.PERMISSION_DENIED) {
        notDenied.add(method.getFullMethodName() + " -> " + status);
      } else {
        assertThat(status.getDescription()).as(method.getFullMethodName()).doesNotContain(tokenA);
      }
    }
    assertThat(notDenied).isEmpty();

    // nothing of B changed: its events, views, tokens
    assertThat(StreamAdminGrpc.newBlockingStub(as(tokenB)).listStreams(ListStreamsRequest.getDefaultInstance())
        .getStreams(0).getEventCount()).isEqualTo(4);
    assertThat(transforms(tokenB).list(ListTransformsRequest.getDefaultInstance()).getTransformsList())
        .extracting(t -> t.getName()).containsExactly(VIEW_B);
    assertThat(tenants(tokenB).getTenant(TenantRequest.getDefaultInstance()).getTokensCount()).isEqualTo(1);
  }

  @Test
  void theSameRequestsWithTenantBsTokenReachTheServices() throws Exception {
    // the control of the test above: B's token on B's resources is not denied (read-only methods only)
    for (MethodDescriptor<?, ?> method : List.of(StreamAdminGrpc.getListStreamsMethod(),
        TransformServiceGrpc.getGetMethod(), TransformServiceGrpc.getStatusMethod(), ViewServiceGrpc.getGetRowMethod(),
        ReplayServiceGrpc.getListVirtualStatesMethod(), TenantServiceGrpc.getGetTenantMethod())) {
      assertThat(callOnce(as(tokenB), method, requestAgainstB(method)).getCode()).as(method.getFullMethodName())
          .isEqualTo(Status.Code.OK);
    }
  }

  @Test
  void tenantBsNamesReadAsMissingInTenantA() {
    ViewServiceGrpc.ViewServiceBlockingStub viewsA = ViewServiceGrpc.newBlockingStub(as(tokenA));
    assertThat(code(() -> viewsA.getRow(GetRowRequest.newBuilder().setView(VIEW_B).setKey("x").build())))
        .isEqualTo(Status.Code.NOT_FOUND);
    assertThat(viewsA.getRow(GetRowRequest.newBuilder().setView(VIEW_A).setKey("x").build()).getRowMap())
        .containsEntry("n", "1");
    assertThat(code(() -> transforms(tokenA).get(GetTransformRequest.newBuilder().setName(VIEW_B).build())))
        .isEqualTo(Status.Code.NOT_FOUND);
    assertThat(transforms(tokenA).list(ListTransformsRequest.getDefaultInstance()).getTransformsList())
        .extracting(t -> t.getName()).containsExactly(VIEW_A);
    assertThat(StreamAdminGrpc.newBlockingStub(as(tokenA)).listStreams(ListStreamsRequest.getDefaultInstance())
        .getStreams(0).getEventCount()).isEqualTo(3);
  }

  @Test
  void missingWrongAndRevokedTokensAreUnauthenticated() {
    TransformServiceGrpc.TransformServiceBlockingStub none = TransformServiceGrpc.newBlockingStub(channel);
    ListTransformsRequest list = ListTransformsRequest.newBuilder().setTenant(A).build();
    assertThat(code(() -> none.list(list))).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(code(() -> transforms("sf_" + "x".repeat(43)).list(list))).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(code(() -> transforms(tokenA.substring(0, 20)).list(list))).isEqualTo(Status.Code.UNAUTHENTICATED);

    var issued = tenants(tokenA).issueToken(IssueTokenRequest.getDefaultInstance());
    String extra = issued.getToken();
    assertThat(code(() -> transforms(extra).list(list))).isEqualTo(Status.Code.OK);
    try (RawRespClient open = new RawRespClient(server.respPort())) {
      assertThat(open.call("AUTH", extra)).isEqualTo("+OK\r\n");
      assertThat(open.call("HGET", VIEW_A + ":x", "n")).isEqualTo("$1\r\n1\r\n");
      tenants(tokenA).revokeToken(RevokeTokenRequest.newBuilder().setTokenId(issued.getTokenInfo().getId()).build());
      assertThat(code(() -> transforms(extra).list(list))).as("the next call after revocation")
          .isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(open.call("HGET", VIEW_A + ":x", "n")).as("an open RESP connection").startsWith("-NOAUTH");
      assertThat(open.call("AUTH", extra)).startsWith("-WRONGPASS");
    }
    assertThat(code(() -> transforms(tokenA).list(list))).isEqualTo(Status.Code.OK);

    // health needs no token
    assertThat(io.grpc.health.v1.HealthGrpc.newBlockingStub(channel)
        .check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void onlyTheAdminCreatesAndListsTenants() {
    assertThat(code(() -> tenants(tokenA).createTenant(CreateTenantRequest.newBuilder().setTenant(A + "x").build())))
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(code(() -> tenants(tokenA).listTenants(ListTenantsRequest.getDefaultInstance())))
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(tenants(server.adminToken()).listTenants(ListTenantsRequest.getDefaultInstance()).getTenantsList())
        .extracting(t -> t.getName()).contains(A, B);
    assertThat(code(() -> tenants(server.adminToken()).createTenant(CreateTenantRequest.newBuilder().setTenant(A)
        .build()))).isEqualTo(Status.Code.ALREADY_EXISTS);
    // the admin reads any tenant it names, and must name one
    assertThat(transforms(server.adminToken()).list(ListTransformsRequest.newBuilder().setTenant(B).build())
        .getTransformsList()).extracting(t -> t.getName()).containsExactly(VIEW_B);
    assertThat(code(() -> transforms(server.adminToken()).list(ListTransformsRequest.getDefaultInstance())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  /**
   * The admin token acts for registered tenants and the server's configured ones, not any name: a mistyped
   * --tenant created the stream, and with it a Pulsar tenant that was neither registered nor listed.
   */
  @Test
  void theAdminTokenDoesNotActForATenantNobodyRegistered() throws Exception {
    String typo = A + "x";
    io.grpc.StatusRuntimeException refused = org.assertj.core.api.Assertions.catchThrowableOfType(
        () -> StreamAdminGrpc.newBlockingStub(as(server.adminToken())).createStream(CreateStreamRequest.newBuilder()
            .setTenant(typo).setName("orders").build()), io.grpc.StatusRuntimeException.class);
    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(refused.getStatus().getDescription()).isEqualTo("tenant '" + typo + "' is not registered (create it"
        + " with: streamfold tenant create NAME; list them with: streamfold tenant list)");
    assertThat(code(() -> StreamAdminGrpc.newBlockingStub(as(server.adminToken())).listStreams(
        ListStreamsRequest.newBuilder().setTenant(typo).build()))).isEqualTo(Status.Code.NOT_FOUND);
    try (RawRespClient resp = new RawRespClient(server.respPort())) {
      assertThat(resp.call("AUTH", typo, server.adminToken())).startsWith("-WRONGPASS");
    }
    // registered, it is served at once
    tenants(server.adminToken()).createTenant(CreateTenantRequest.newBuilder().setTenant(typo).build());
    assertThat(StreamAdminGrpc.newBlockingStub(as(server.adminToken())).listStreams(
        ListStreamsRequest.newBuilder().setTenant(typo).build()).getStreamsList()).isEmpty();
    try (RawRespClient resp = new RawRespClient(server.respPort())) {
      assertThat(resp.call("AUTH", typo, server.adminToken())).isEqualTo("+OK\r\n");
    }
  }

  /** Read commands with tenant B's names: as A they answer exactly like names that exist nowhere. */
  @Test
  void everyRespReadCommandOfTenantAAnswersTenantBsKeysAsMissing() {
    List<String[]> reads = List.of(
        new String[] {"GET", "vb:x"}, new String[] {"MGET", "vb:x", "vb:y"}, new String[] {"HGET", "vb:x", "n"},
        new String[] {"HGETALL", "vb:x"}, new String[] {"HMGET", "vb:x", "n", "k"}, new String[] {"HEXISTS", "vb:x", "n"},
        new String[] {"HLEN", "vb:x"}, new String[] {"HKEYS", "vb:x"}, new String[] {"HVALS", "vb:x"},
        new String[] {"EXISTS", "vb:x", "vb:y"}, new String[] {"TYPE", "vb:x"}, new String[] {"VIEW.INFO", "vb"},
        new String[] {"VIEW.WAIT", "vb", lastIdB, "0"}, new String[] {"SCAN", "0", "MATCH", "vb:*", "COUNT", "1000"});
    try (RawRespClient a = new RawRespClient(server.respPort()); RawRespClient b = new RawRespClient(server.respPort())) {
      assertThat(a.call("GET", "vb:x")).as("before AUTH").isEqualTo("-NOAUTH Authentication required.\r\n");
      assertThat(a.call("AUTH", "wrong")).startsWith("-WRONGPASS");
      assertThat(a.call("AUTH", tokenA)).isEqualTo("+OK\r\n");
      assertThat(b.call("HELLO", "2", "AUTH", B, tokenB)).startsWith("*14\r\n");
      for (String[] read : reads) {
        String[] missing = java.util.Arrays.stream(read).map(s -> s.replace("vb", "nope")).toArray(String[]::new);
        String asA = a.call(read);
        assertThat(asA.replace("vb", "nope")).as("A: %s", String.join(" ", read)).isEqualTo(a.call(missing));
        assertThat(b.call(read)).as("B (the control): %s", String.join(" ", read)).isNotEqualTo(asA);
      }
      // listings show only the connection's own tenant
      assertThat(a.call("SCAN", "0", "COUNT", "1000")).contains("va:x").doesNotContain("vb:");
      assertThat(b.call("SCAN", "0", "COUNT", "1000")).contains("vb:w").doesNotContain("va:");
      assertThat(a.call("DBSIZE")).isEqualTo(":3\r\n");
      assertThat(b.call("DBSIZE")).isEqualTo(":4\r\n");
      assertThat(a.call("VIEW.LIST")).contains(VIEW_A).doesNotContain(VIEW_B);
      assertThat(b.call("VIEW.LIST")).contains(VIEW_B).doesNotContain(VIEW_A);
      assertThat(a.call("KEYS", "*")).as("KEYS is not served").startsWith("-ERR unknown command");
      // a tenant token cannot pick another tenant as user; the admin token reads the tenant it names
      assertThat(a.call("AUTH", B, tokenA)).startsWith("-WRONGPASS");
      assertThat(a.call("HGET", "vb:x", "n")).isEqualTo("$-1\r\n");
      assertThat(a.call("AUTH", B, server.adminToken())).isEqualTo("+OK\r\n");
      assertThat(a.call("HGET", "vb:x", "n")).isEqualTo("$1\r\n1\r\n");
      assertThat(a.call("AUTH", server.adminToken())).as("admin without a tenant").startsWith("-WRONGPASS");
    }
  }

  @Test
  void perTenantLimitsRefuseLargeEventsLargeBatchesAndFastIngest() {
    CreateTenantResponse created = tenants(server.adminToken()).createTenant(CreateTenantRequest.newBuilder()
        .setTenant(LIMITED).setLimits(TenantLimits.newBuilder().setMaxEventBytes(200).setMaxEventsPerBatch(3)
            .setIngestEventsPerSecond(1)).build());
    assertThat(created.getTenant().getLimits().getMaxEventBytes()).isEqualTo(200);
    String token = created.getToken();
    StreamAdminGrpc.newBlockingStub(as(token)).createStream(CreateStreamRequest.newBuilder().setName(STREAM)
        .addColumns(Column.newBuilder().setName("k").setType("STRING")).build());
    IngestServiceGrpc.IngestServiceBlockingStub ingest = IngestServiceGrpc.newBlockingStub(as(token));

    AppendRequest four = AppendRequest.newBuilder().setStream(STREAM)
        .addAllEvents(List.of(event("a"), event("b"), event("c"), event("d"))).build();
    assertThatThrownBy(() -> ingest.append(four)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(e.getStatus().getDescription()).contains("4 events").contains("at most 3");
    });
    AppendRequest large = AppendRequest.newBuilder().setStream(STREAM).addEvents(event("a"))
        .addEvents(event("b".repeat(300))).build();
    assertThatThrownBy(() -> ingest.append(large)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(e.getStatus().getDescription()).contains("event 1").contains("at most 200 bytes");
    });

    AppendRequest three = AppendRequest.newBuilder().setStream(STREAM)
        .addAllEvents(List.of(event("a"), event("b"), event("c"))).build();
    assertThat(ingest.append(three).getMessageIdsCount()).isEqualTo(3);
    assertThatThrownBy(() -> ingest.append(three)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(e.getStatus().getDescription()).contains("1 events/s");
      // when it fits again, as gRPC's RetryInfo detail too (what clients such as the CLI wait for)
      com.google.rpc.Status details = io.grpc.protobuf.StatusProto.fromThrowable(e);
      assertThat(details).isNotNull();
      com.google.rpc.RetryInfo retry = details.getDetailsList().stream()
          .filter(any -> any.is(com.google.rpc.RetryInfo.class)).findFirst().map(any -> {
            try {
              return any.unpack(com.google.rpc.RetryInfo.class);
            } catch (com.google.protobuf.InvalidProtocolBufferException bad) {
              throw new AssertionError(bad);
            }
          }).orElseThrow(() -> new AssertionError("no RetryInfo in " + details));
      long ms = retry.getRetryDelay().getSeconds() * 1000 + retry.getRetryDelay().getNanos() / 1_000_000;
      assertThat(ms).isBetween(1L, 3_000L);
      assertThat(e.getStatus().getDescription()).contains("fits again in about " + ms + " ms");
    });
    assertThat(StreamAdminGrpc.newBlockingStub(as(token)).listStreams(ListStreamsRequest.getDefaultInstance())
        .getStreams(0).getEventCount()).as("refused requests appended nothing").isEqualTo(3);
    assertThat(tenants(token).getTenant(TenantRequest.getDefaultInstance()).getLimits().getIngestEventsPerSecond())
        .isEqualTo(1);
  }
}
