package dev.streamfold.query;

import java.util.Optional;

/**
 * Maps the credentials of {@code AUTH [user] <token>} and {@code HELLO 3 AUTH <user> <token>} to the tenant
 * whose views the connection then reads. Implemented by the server over its token registry; it must compare
 * token hashes, never store or log the token.
 */
@FunctionalInterface
public interface RespAuthenticator {
  /**
   * Find the tenant these credentials select.
   *
   * @param user the user name sent ({@code default} when {@code AUTH} had one argument)
   * @param token the password sent: an API token
   * @return the tenant, or empty for a wrong user/token pair (the client gets {@code WRONGPASS})
   */
  Optional<String> tenant(String user, String token);
}
