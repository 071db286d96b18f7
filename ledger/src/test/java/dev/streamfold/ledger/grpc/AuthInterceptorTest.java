package dev.streamfold.ledger.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.auth.AuthInterceptor;
import dev.streamfold.api.auth.Caller;
import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.CreateTenantRequest;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.ListStreamsResponse;
import dev.streamfold.api.v1.ListTenantsRequest;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.api.v1.TenantServiceGrpc;
import dev.streamfold.ledger.SystemTable;
import dev.streamfold.ledger.tenant.TenantRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The interceptor on a real in-process server with real stubs: missing, malformed and unknown tokens, the
 * tenant check (including each message of a client stream), the admin token, admin-only methods.
 */
class AuthInterceptorTest {
  private static final String ADMIN = "sf_" + "a".repeat(43);
  private static final String TOKEN_A = "sf_" + "A".repeat(43);
  private static final String TOKEN_B = "sf_" + "B".repeat(43);

  /** Tenants the fake services were called for. */
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void setUp() throws Exception {
    String name = InProcessServerBuilder.generateName();
    Map<String, String> table = new TreeMap<>();
    TenantRegistry registry = new TenantRegistry(new SystemTable() {
      @Override
      public void put(String key, String value) {
        table.put(key, value);
      }

      @Override
      public void delete(String key) {
        table.remove(key);
      }

      @Override
      public Map<String, String> readAll() {
        return new TreeMap<>(table);
      }
    }, t -> { }, Clock.systemUTC(), new SecureRandom());
    server = InProcessServerBuilder.forName(name).directExecutor()
        .intercept(new AuthInterceptor(token -> token.equals(ADMIN) ? Optional.of(Caller.admin("admin1"))
            : token.equals(TOKEN_A) ? Optional.of(Caller.ofTenant("a", "ida"))
            : token.equals(TOKEN_B) ? Optional.of(Caller.ofTenant("b", "idb")) : Optional.empty(),
            tenant -> tenant.equals("a") || tenant.equals("b") || registry.get(tenant).isPresent()))
        .addService(new StreamAdminGrpc.StreamAdminImplBase() {
          @Override
          public void listStreams(ListStreamsRequest request, StreamObserver<ListStreamsResponse> response) {
            seen.add(request.getTenant());
            response.onNext(ListStreamsResponse.newBuilder()
                .addStreams(StreamInfo.newBuilder().setTenant(request.getTenant())).build());
            response.onCompleted();
          }
        })
        .addService(new IngestServiceGrpc.IngestServiceImplBase() {
          @Override
          public StreamObserver<AppendRequest> appendStream(StreamObserver<AppendResponse> response) {
            return new StreamObserver<>() {
              @Override
              public void onNext(AppendRequest request) {
                seen.add(request.getTenant());
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
        })
        .addService(new TenantGrpcService(registry))
        .build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  @AfterEach
  void tearDown() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  private StreamAdminGrpc.StreamAdminBlockingStub admin(String authorization) {
    StreamAdminGrpc.StreamAdminBlockingStub stub = StreamAdminGrpc.newBlockingStub(channel);
    if (authorization != null) {
      Metadata headers = new Metadata();
      headers.put(AuthInterceptor.AUTHORIZATION, authorization);
      stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    return stub;
  }

  private static ListStreamsRequest list(String tenant) {
    return ListStreamsRequest.newBuilder().setTenant(tenant).build();
  }

  @Test
  void missingMalformedAndUnknownTokensAreUnauthenticatedWithoutEchoingThem() {
    for (String authorization : new String[] {null, "", "Basic abc", "Bearer ", "Bearer sf_unknown-token-text",
        "Bearer " + TOKEN_A + "x"}) {
      assertThatThrownBy(() -> admin(authorization).listStreams(list("a"))).as("authorization %s", authorization)
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(e.getStatus().getDescription()).doesNotContain("sf_unknown").doesNotContain(TOKEN_A);
          });
    }
    assertThat(seen).isEmpty();
  }

  @Test
  void aTenantTokenActsOnlyForItsTenantAndFillsAnEmptyTenant() {
    assertThat(admin("Bearer " + TOKEN_A).listStreams(list("a")).getStreams(0).getTenant()).isEqualTo("a");
    assertThat(admin("bearer " + TOKEN_A).listStreams(list("")).getStreams(0).getTenant()).isEqualTo("a");
    assertThatThrownBy(() -> admin("Bearer " + TOKEN_A).listStreams(list("b")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
          assertThat(e.getStatus().getDescription()).contains("tenant 'a'").contains("tenant 'b'");
        });
    assertThat(seen).containsExactly("a", "a");
  }

  @Test
  void theAdminTokenActsForAnyNamedTenant() {
    assertThat(admin("Bearer " + ADMIN).listStreams(list("b")).getStreams(0).getTenant()).isEqualTo("b");
    assertThatThrownBy(() -> admin("Bearer " + ADMIN).listStreams(list("")))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    assertThat(seen).containsExactly("b");
  }

  @Test
  void theAdminTokenDoesNotActForATenantTheServerDoesNotKnowButRegistersOne() {
    assertThatThrownBy(() -> admin("Bearer " + ADMIN).listStreams(list("c")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
          assertThat(e.getStatus().getDescription()).startsWith("tenant 'c' is not registered");
        });
    assertThat(seen).isEmpty();
    Metadata adminHeaders = new Metadata();
    adminHeaders.put(AuthInterceptor.AUTHORIZATION, AuthInterceptor.bearer(ADMIN));
    TenantServiceGrpc.newBlockingStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(adminHeaders))
        .createTenant(CreateTenantRequest.newBuilder().setTenant("c").build());
    assertThat(admin("Bearer " + ADMIN).listStreams(list("c")).getStreams(0).getTenant()).isEqualTo("c");
  }

  @Test
  void everyMessageOfAClientStreamIsChecked() throws Exception {
    Metadata headers = new Metadata();
    headers.put(AuthInterceptor.AUTHORIZATION, AuthInterceptor.bearer(TOKEN_A));
    LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
    StreamObserver<AppendRequest> requests = IngestServiceGrpc.newStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
        .appendStream(new StreamObserver<>() {
          @Override
          public void onNext(AppendResponse value) {
            events.add(value.getRequestSeq());
          }

          @Override
          public void onError(Throwable t) {
            events.add(Status.fromThrowable(t).getCode());
          }

          @Override
          public void onCompleted() {
            events.add("completed");
          }
        });
    requests.onNext(AppendRequest.newBuilder().setTenant("a").setRequestSeq(1).build());
    assertThat(events.poll(5, TimeUnit.SECONDS)).isEqualTo(1L);
    requests.onNext(AppendRequest.newBuilder().setTenant("b").setRequestSeq(2).build());
    assertThat(events.poll(5, TimeUnit.SECONDS)).isEqualTo(Status.Code.PERMISSION_DENIED);
    requests.onNext(AppendRequest.newBuilder().setTenant("a").setRequestSeq(3).build());
    assertThat(seen).containsExactly("a");
  }

  @Test
  void adminOnlyMethodsRefuseTenantTokens() {
    Metadata headers = new Metadata();
    headers.put(AuthInterceptor.AUTHORIZATION, AuthInterceptor.bearer(TOKEN_A));
    TenantServiceGrpc.TenantServiceBlockingStub asA = TenantServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    assertThatThrownBy(() -> asA.listTenants(ListTenantsRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
    assertThatThrownBy(() -> asA.createTenant(CreateTenantRequest.newBuilder().setTenant("a").build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));

    Metadata adminHeaders = new Metadata();
    adminHeaders.put(AuthInterceptor.AUTHORIZATION, AuthInterceptor.bearer(ADMIN));
    TenantServiceGrpc.TenantServiceBlockingStub asAdmin = TenantServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(adminHeaders));
    assertThat(asAdmin.createTenant(CreateTenantRequest.newBuilder().setTenant("c").build()).getToken()).startsWith("sf_");
    assertThat(asAdmin.listTenants(ListTenantsRequest.getDefaultInstance()).getTenantsList()).hasSize(1);
  }
}
