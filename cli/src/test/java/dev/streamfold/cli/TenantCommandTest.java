package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.auth.AuthInterceptor;
import dev.streamfold.api.v1.CreateTenantRequest;
import dev.streamfold.api.v1.CreateTenantResponse;
import dev.streamfold.api.v1.IssueTokenRequest;
import dev.streamfold.api.v1.IssueTokenResponse;
import dev.streamfold.api.v1.RevokeTokenRequest;
import dev.streamfold.api.v1.RevokeTokenResponse;
import dev.streamfold.api.v1.Tenant;
import dev.streamfold.api.v1.TenantLimits;
import dev.streamfold.api.v1.TenantServiceGrpc;
import dev.streamfold.api.v1.TokenInfo;
import dev.streamfold.cli.CliRunner.CliRun;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code streamfold tenant ...} against a fake TenantService: requests, the bearer token sent, the output. */
class TenantCommandTest {
  private static final String TOKEN = "sf_" + "t".repeat(43);
  private final List<Object> received = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private Server server;
  private CliRunner cli;

  private final class Tenants extends TenantServiceGrpc.TenantServiceImplBase {
    @Override
    public void createTenant(CreateTenantRequest request, StreamObserver<CreateTenantResponse> response) {
      received.add(request);
      response.onNext(CreateTenantResponse.newBuilder().setToken("sf_new-token")
          .setTokenInfo(TokenInfo.newBuilder().setId("abcdef012345"))
          .setTenant(Tenant.newBuilder().setName(request.getTenant()).setLimits(TenantLimits.newBuilder()
              .setMaxEventBytes(1000).setMaxEventsPerBatch(10).setIngestEventsPerSecond(5))).build());
      response.onCompleted();
    }

    @Override
    public void issueToken(IssueTokenRequest request, StreamObserver<IssueTokenResponse> response) {
      received.add(request);
      response.onNext(IssueTokenResponse.newBuilder().setToken("sf_rotated").addRevokedIds("old111111111")
          .setTokenInfo(TokenInfo.newBuilder().setId("new222222222")).build());
      response.onCompleted();
    }

    @Override
    public void revokeToken(RevokeTokenRequest request, StreamObserver<RevokeTokenResponse> response) {
      received.add(request);
      response.onNext(RevokeTokenResponse.newBuilder().addRevokedIds(request.getTokenId()).build());
      response.onCompleted();
    }
  }

  @BeforeEach
  void start() throws Exception {
    ServerInterceptor recordAuth = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        authorizations.add(String.valueOf(headers.get(AuthInterceptor.AUTHORIZATION)));
        return next.startCall(call, headers);
      }
    };
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerInterceptors.intercept(new Tenants(), recordAuth)).build().start();
    cli = new CliRunner("--server", "127.0.0.1:" + server.getPort(), "--token", TOKEN);
  }

  @AfterEach
  void stop() {
    server.shutdownNow();
  }

  @Test
  void createSendsTheLimitsAndTheTokenAndPrintsTheNewTokenOnce() {
    CliRun r = cli.run("tenant", "create", "acme", "--max-event-bytes", "1000", "--max-batch", "10", "--ingest-rate", "5");
    assertThat(r.exitCode()).isEqualTo(0);
    assertThat(authorizations).containsExactly("Bearer " + TOKEN);
    assertThat(received).singleElement().isInstanceOfSatisfying(CreateTenantRequest.class, q -> {
      assertThat(q.getTenant()).isEqualTo("acme");
      assertThat(q.getLimits().getMaxEventBytes()).isEqualTo(1000);
      assertThat(q.getLimits().getMaxEventsPerBatch()).isEqualTo(10);
      assertThat(q.getLimits().getIngestEventsPerSecond()).isEqualTo(5);
    });
    assertThat(r.out()).contains("Created tenant acme (max event 1,000 bytes, max batch 10 events, ingest 5 events/s)")
        .contains("\nsf_new-token\n").doesNotContain(TOKEN);
  }

  /** 0 is refused, not sent: the request's 0 means "the default", so --ingest-rate 0 gave 1,000,000 events/s. */
  @Test
  void zeroLimitsAreRefusedAndLeftOutLimitsAreTheDefaults() {
    for (String option : java.util.List.of("--max-event-bytes", "--max-batch", "--ingest-rate")) {
      CliRun r = cli.run("tenant", "create", "acme", option, "0");
      assertThat(r.exitCode()).as(option).isEqualTo(1);
      assertThat(r.err()).contains(option + " must be at least 1, got 0 (leave it out for the default)");
    }
    assertThat(received).as("nothing sent").isEmpty();
    assertThat(cli.run("tenant", "create", "acme").exitCode()).isEqualTo(0);
    assertThat(received).singleElement().isInstanceOfSatisfying(CreateTenantRequest.class,
        q -> assertThat(q.getLimits()).isEqualTo(dev.streamfold.api.v1.TenantLimits.getDefaultInstance()));
  }

  @Test
  void rotateIssuesWithRevokeOthersAndRevokeNamesTheId() {
    CliRun rotated = cli.run("tenant", "token", "rotate", "acme");
    assertThat(rotated.exitCode()).isEqualTo(0);
    assertThat(rotated.out()).contains("Revoked tokens [old111111111]").contains("sf_rotated");
    CliRun revoked = cli.run("tenant", "token", "revoke", "acme", "--id", "new222222222");
    assertThat(revoked.exitCode()).isEqualTo(0);
    assertThat(revoked.out()).contains("Revoked tokens [new222222222] of tenant acme.");
    assertThat(received).hasSize(2);
    assertThat(((IssueTokenRequest) received.get(0)).getRevokeOthers()).isTrue();
    assertThat(((RevokeTokenRequest) received.get(1)).getTokenId()).isEqualTo("new222222222");
    assertThat(cli.run("tenant", "token", "revoke", "acme").exitCode()).as("--id or --all is required").isEqualTo(2);
  }
}
