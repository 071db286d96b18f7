package dev.streamfold.api.auth;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.streamfold.core.ClientText;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Authenticates every gRPC call by its bearer token and confines it to the token's tenant.
 *
 * <p>A call must carry the metadata {@code authorization: Bearer <token>}; a missing, malformed, unknown or
 * revoked token ends it with {@code UNAUTHENTICATED} before the service sees it (the token is never echoed).
 * The caller is put in the call's {@link Context} ({@link Caller#CONTEXT_KEY}).
 *
 * <p>The tenant check is done here, once for every method of every service, on each request message
 * (each message of a client stream too): a request's string field {@code tenant} must name the token's
 * tenant ({@code PERMISSION_DENIED} otherwise); an empty {@code tenant} is replaced by the token's tenant
 * before the service sees the request. The admin token acts for any tenant the server knows (see
 * {@link #AuthInterceptor(TokenVerifier, Predicate)}; {@code NOT_FOUND} for another, so that a mistyped
 * tenant is not provisioned by its first stream) but must name one ({@code INVALID_ARGUMENT} for an empty
 * {@code tenant}); {@code TenantService.CreateTenant} names the tenant it registers. A request type without a {@code tenant} field is
 * admin-only ({@code PERMISSION_DENIED} for a tenant token): new methods fail closed. Services whose
 * requests have a tenant field therefore need no check of their own; admin-only methods of a service with
 * a tenant field (e.g. {@code TenantService.CreateTenant}) check {@link Caller#isAdmin()} themselves.
 *
 * <p>Health checking ({@value #HEALTH_SERVICE}) and server reflection need no token.
 */
public final class AuthInterceptor implements ServerInterceptor {
  /** The metadata key of the credentials: {@code authorization: Bearer <token>}. */
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  /** The gRPC health service, open without a token. */
  public static final String HEALTH_SERVICE = "grpc.health.v1.Health";
  private static final Set<String> OPEN_SERVICES = Set.of(HEALTH_SERVICE, "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection");
  private static final String BEARER = "Bearer ";

  /** The method whose request names a tenant that is not registered yet: the one it registers. */
  private static final String CREATE_TENANT = dev.streamfold.api.v1.TenantServiceGrpc.getCreateTenantMethod()
      .getFullMethodName();

  private final TokenVerifier verifier;
  private final Predicate<String> adminTenants;

  /**
   * Create an interceptor whose admin token acts for any tenant.
   *
   * @param verifier maps tokens to callers
   * @throws NullPointerException if {@code verifier} is null
   */
  public AuthInterceptor(TokenVerifier verifier) {
    this(verifier, tenant -> true);
  }

  /**
   * Create an interceptor.
   *
   * @param verifier maps tokens to callers
   * @param adminTenants the tenants the admin token acts for (e.g. the registered ones); a request of the
   *     admin naming another ends with {@code NOT_FOUND}, except {@code TenantService.CreateTenant}
   * @throws NullPointerException if an argument is null
   */
  public AuthInterceptor(TokenVerifier verifier, Predicate<String> adminTenants) {
    this.verifier = Objects.requireNonNull(verifier, "verifier");
    this.adminTenants = Objects.requireNonNull(adminTenants, "adminTenants");
  }

  /**
   * Return the metadata value for a token.
   *
   * @param token the API token
   * @return {@code Bearer <token>}
   */
  public static String bearer(String token) {
    return BEARER + token;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
      ServerCallHandler<ReqT, RespT> next) {
    if (OPEN_SERVICES.contains(call.getMethodDescriptor().getServiceName())) {
      return next.startCall(call, headers);
    }
    String header = headers.get(AUTHORIZATION);
    if (header == null || header.isBlank()) {
      return refuse(call, Status.UNAUTHENTICATED.withDescription(
          "missing credentials: send the metadata 'authorization: Bearer <token>' (streamfold --token or"
              + " STREAMFOLD_TOKEN)"));
    }
    if (header.length() <= BEARER.length() || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return refuse(call, Status.UNAUTHENTICATED.withDescription(
          "malformed credentials: the 'authorization' metadata must be 'Bearer <token>'"));
    }
    Optional<Caller> caller = verifier.verify(header.substring(BEARER.length()).trim());
    if (caller.isEmpty()) {
      return refuse(call, Status.UNAUTHENTICATED.withDescription("invalid or revoked token"));
    }
    Context context = Context.current().withValue(Caller.CONTEXT_KEY, caller.get());
    ServerCall.Listener<ReqT> delegate = Contexts.interceptCall(context, call, headers, next);
    return new TenantCheck<>(delegate, call, caller.get(), adminTenants);
  }

  private static <ReqT, RespT> ServerCall.Listener<ReqT> refuse(ServerCall<ReqT, RespT> call, Status status) {
    call.close(status, new Metadata());
    return new ServerCall.Listener<>() {};
  }

  /**
   * Decide what a request may do.
   *
   * @param request the request message
   * @param caller its caller
   * @param method full method name, for messages
   * @return the request to pass on (with the caller's tenant filled in when it was empty)
   * @throws io.grpc.StatusRuntimeException PERMISSION_DENIED, INVALID_ARGUMENT or NOT_FOUND as described above
   */
  static Object check(Object request, Caller caller, String method) {
    return check(request, caller, method, tenant -> true);
  }

  static Object check(Object request, Caller caller, String method, Predicate<String> adminTenants) {
    if (!(request instanceof Message message)) {
      throw Status.INTERNAL.withDescription("cannot check the tenant of a non-protobuf request to " + method)
          .asRuntimeException();
    }
    FieldDescriptor field = message.getDescriptorForType().findFieldByName("tenant");
    if (field == null || field.isRepeated() || field.getJavaType() != FieldDescriptor.JavaType.STRING) {
      if (!caller.isAdmin()) {
        throw Status.PERMISSION_DENIED.withDescription(method + " needs the admin token; a tenant token"
            + " (of tenant '" + caller.tenant() + "') cannot call it").asRuntimeException();
      }
      return request;
    }
    String requested = (String) message.getField(field);
    if (caller.isAdmin()) {
      if (requested.isEmpty()) {
        throw Status.INVALID_ARGUMENT.withDescription("the admin token acts for any tenant: name one in the"
            + " request's 'tenant' field (streamfold --tenant NAME)").asRuntimeException();
      }
      if (!method.equals(CREATE_TENANT) && !adminTenants.test(requested)) {
        throw Status.NOT_FOUND.withDescription("tenant '" + ClientText.printableAscii(requested) + "' is not registered"
            + " (create it with: streamfold tenant create NAME; list them with: streamfold tenant list)")
            .asRuntimeException();
      }
      return request;
    }
    if (requested.isEmpty()) {
      return message.toBuilder().setField(field, caller.tenant()).build();
    }
    if (!requested.equals(caller.tenant())) {
      throw Status.PERMISSION_DENIED.withDescription("this token belongs to tenant '" + caller.tenant()
          + "'; it cannot act on tenant '" + ClientText.printableAscii(requested) + "'").asRuntimeException();
    }
    return request;
  }

  /** Checks each request message and ends the call at the first one the caller may not send. */
  private static final class TenantCheck<ReqT, RespT>
      extends ForwardingServerCallListener.SimpleForwardingServerCallListener<ReqT> {
    private final ServerCall<ReqT, RespT> call;
    private final Caller caller;
    private final Predicate<String> adminTenants;
    private boolean refused;

    TenantCheck(ServerCall.Listener<ReqT> delegate, ServerCall<ReqT, RespT> call, Caller caller,
        Predicate<String> adminTenants) {
      super(delegate);
      this.call = call;
      this.caller = caller;
      this.adminTenants = adminTenants;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void onMessage(ReqT message) {
      if (refused) {
        return;
      }
      Object checked;
      try {
        checked = check(message, caller, call.getMethodDescriptor().getFullMethodName(), adminTenants);
      } catch (io.grpc.StatusRuntimeException e) {
        refused = true;
        call.close(e.getStatus(), new Metadata());
        return;
      }
      super.onMessage((ReqT) checked);
    }

    @Override
    public void onHalfClose() {
      if (!refused) {
        super.onHalfClose();
      }
    }

    @Override
    public void onReady() {
      if (!refused) {
        super.onReady();
      }
    }
  }
}
