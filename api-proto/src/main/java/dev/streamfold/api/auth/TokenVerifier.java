package dev.streamfold.api.auth;

import java.util.Optional;

/** Maps an API token to its caller. Implementations compare hashes, never store or log the token. */
@FunctionalInterface
public interface TokenVerifier {
  /**
   * Find who a token belongs to.
   *
   * @param token the token as sent by the client (not trusted: any text)
   * @return the caller, or empty when the token is unknown, malformed or revoked
   */
  Optional<Caller> verify(String token);
}
