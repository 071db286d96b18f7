package dev.streamfold.ledger.grpc;

import dev.streamfold.api.auth.Caller;
import dev.streamfold.api.v1.CreateTenantRequest;
import dev.streamfold.api.v1.CreateTenantResponse;
import dev.streamfold.api.v1.IssueTokenRequest;
import dev.streamfold.api.v1.IssueTokenResponse;
import dev.streamfold.api.v1.ListTenantsRequest;
import dev.streamfold.api.v1.ListTenantsResponse;
import dev.streamfold.api.v1.RevokeTokenRequest;
import dev.streamfold.api.v1.RevokeTokenResponse;
import dev.streamfold.api.v1.Tenant;
import dev.streamfold.api.v1.TenantRequest;
import dev.streamfold.api.v1.TenantServiceGrpc;
import dev.streamfold.api.v1.TokenInfo;
import dev.streamfold.ledger.tenant.TenantLimits;
import dev.streamfold.ledger.tenant.TenantRegistry;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;

/**
 * gRPC {@code TenantService}: tenants and their tokens, over a {@link TenantRegistry}. Which tenant a call
 * may name is checked by the {@link dev.streamfold.api.auth.AuthInterceptor}; creating tenants is for the
 * admin token only, checked here. A tenant token may read its own tenant and issue or revoke its own tokens.
 */
public final class TenantGrpcService extends TenantServiceGrpc.TenantServiceImplBase {
  private final TenantRegistry registry;

  public TenantGrpcService(TenantRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void createTenant(CreateTenantRequest request, StreamObserver<CreateTenantResponse> response) {
    GrpcReplies.reply(response, () -> {
      requireAdmin("CreateTenant");
      dev.streamfold.api.v1.TenantLimits l = request.getLimits();
      TenantLimits limits = TenantLimits.orDefaults(l.getMaxEventBytes(), l.getMaxEventsPerBatch(),
          l.getIngestEventsPerSecond());
      TenantRegistry.IssuedToken issued = registry.create(request.getTenant(), limits);
      return CreateTenantResponse.newBuilder().setTenant(tenant(request.getTenant()))
          .setToken(issued.token()).setTokenInfo(info(issued.record())).build();
    }, LedgerStatus::toStatus);
  }

  @Override
  public void listTenants(ListTenantsRequest request, StreamObserver<ListTenantsResponse> response) {
    GrpcReplies.reply(response, () -> {
      requireAdmin("ListTenants");
      ListTenantsResponse.Builder b = ListTenantsResponse.newBuilder();
      for (TenantRegistry.TenantRecord t : registry.list()) {
        b.addTenants(tenant(t.name()));
      }
      return b.build();
    }, LedgerStatus::toStatus);
  }

  @Override
  public void getTenant(TenantRequest request, StreamObserver<Tenant> response) {
    GrpcReplies.reply(response, () -> tenant(request.getTenant()), LedgerStatus::toStatus);
  }

  @Override
  public void issueToken(IssueTokenRequest request, StreamObserver<IssueTokenResponse> response) {
    GrpcReplies.reply(response, () -> {
      TenantRegistry.IssuedToken issued = registry.issueToken(request.getTenant(), request.getRevokeOthers());
      return IssueTokenResponse.newBuilder().setToken(issued.token()).setTokenInfo(info(issued.record()))
          .addAllRevokedIds(issued.revokedIds()).build();
    }, LedgerStatus::toStatus);
  }

  @Override
  public void revokeToken(RevokeTokenRequest request, StreamObserver<RevokeTokenResponse> response) {
    GrpcReplies.reply(response, () -> {
      if (request.getAll() == !request.getTokenId().isEmpty()) {
        throw new IllegalArgumentException("name either a token_id or all = true");
      }
      List<String> revoked = request.getAll() ? registry.revokeAll(request.getTenant())
          : List.of(registry.revoke(request.getTenant(), request.getTokenId()));
      return RevokeTokenResponse.newBuilder().addAllRevokedIds(revoked).build();
    }, LedgerStatus::toStatus);
  }

  private Tenant tenant(String name) {
    TenantRegistry.TenantRecord t = registry.get(name).orElseThrow(() ->
        new dev.streamfold.ledger.tenant.TenantException.NotFound("tenant '" + name + "' is not registered"));
    Tenant.Builder b = Tenant.newBuilder().setName(t.name()).setCreatedAtMs(t.createdAtMs())
        .setLimits(dev.streamfold.api.v1.TenantLimits.newBuilder().setMaxEventBytes(t.limits().maxEventBytes())
            .setMaxEventsPerBatch(t.limits().maxEventsPerBatch())
            .setIngestEventsPerSecond(t.limits().ingestEventsPerSecond()));
    for (TenantRegistry.TokenRecord token : registry.tokens(name)) {
      b.addTokens(info(token));
    }
    return b.build();
  }

  private static TokenInfo info(TenantRegistry.TokenRecord record) {
    return TokenInfo.newBuilder().setId(record.id()).setCreatedAtMs(record.createdAtMs()).build();
  }

  private static void requireAdmin(String method) {
    Caller caller = Caller.current();
    if (caller == null || !caller.isAdmin()) {
      throw Status.PERMISSION_DENIED.withDescription(method + " needs the admin token"
          + (caller == null ? "" : "; this token belongs to tenant '" + caller.tenant() + "'")).asRuntimeException();
    }
  }
}
