package dev.streamfold.e2e;

import dev.streamfold.api.auth.AuthInterceptor;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;

/** Credentials of test clients: the bearer token of gRPC calls and the RESP URI with AUTH. */
final class TestAuth {
  private TestAuth() {}

  /** A client interceptor that sends {@code authorization: Bearer <token>} with every call. */
  static ClientInterceptor bearer(String token) {
    Metadata headers = new Metadata();
    headers.put(AuthInterceptor.AUTHORIZATION, AuthInterceptor.bearer(token));
    return MetadataUtils.newAttachHeadersInterceptor(headers);
  }

  /**
   * A lettuce URI that authenticates as {@code user} (a tenant name with the admin token, or {@code default}
   * with a tenant token).
   */
  static String respUri(String user, String token, int port) {
    return "redis://" + user + ":" + token + "@127.0.0.1:" + port;
  }
}
