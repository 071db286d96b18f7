package dev.streamfold.api.auth;

import io.grpc.Context;
import java.util.Objects;

/**
 * Who a gRPC call is made by, as its token proved: one tenant, or the admin (who may act for any tenant).
 * The {@link AuthInterceptor} puts it in the call's {@link Context} under {@link #CONTEXT_KEY}.
 *
 * @param tenant the token's tenant; null for the admin
 * @param tokenId public id of the token (never the token itself)
 */
public record Caller(String tenant, String tokenId) {
  /** The context key under which the authenticated caller of the current call is found. */
  public static final Context.Key<Caller> CONTEXT_KEY = Context.key("streamfold-caller");

  /**
   * Create a caller.
   *
   * @throws NullPointerException if {@code tokenId} is null
   */
  public Caller {
    Objects.requireNonNull(tokenId, "tokenId");
  }

  /**
   * Return a caller acting for one tenant.
   *
   * @param tenant tenant name
   * @param tokenId public id of its token
   * @return the caller
   * @throws NullPointerException if an argument is null
   */
  public static Caller ofTenant(String tenant, String tokenId) {
    return new Caller(Objects.requireNonNull(tenant, "tenant"), tokenId);
  }

  /**
   * Return the admin caller, who may act for any tenant.
   *
   * @param tokenId public id of the admin token
   * @return the caller
   */
  public static Caller admin(String tokenId) {
    return new Caller(null, tokenId);
  }

  /** True for the admin token. */
  public boolean isAdmin() {
    return tenant == null;
  }

  /**
   * Return the caller of the current gRPC call.
   *
   * @return the caller, or null when the call did not pass through an {@link AuthInterceptor}
   */
  public static Caller current() {
    return CONTEXT_KEY.get();
  }

  @Override
  public String toString() {
    return isAdmin() ? "admin (token " + tokenId + ")" : "tenant '" + tenant + "' (token " + tokenId + ")";
  }
}
