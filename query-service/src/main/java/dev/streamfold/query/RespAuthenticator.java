package dev.streamfold.query;

import java.util.Optional;

/**
 * Maps the credentials of {@code AUTH [user] <token>} and {@code HELLO 3 AUTH <user> <token>} to the tenant
 * whose views the connection then reads. Implemented by the server over its token registry; it must compare
 * token hashes, never store or log the token.
 *
 * <p>Credentials are checked again before each command, so a revoked token stops working on open connections.
 * That check costs a {@link #tenant} call (a SHA-256 of the token) only when {@link #generation()} changed
 * since the connection's last check; an authenticator without generations ({@link #UNVERSIONED}, the default)
 * is asked before every command.
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

  /** {@link #generation()} of an authenticator that cannot tell when its answers change. */
  long UNVERSIONED = -1;

  /**
   * Return a number that changes whenever an answer of {@link #tenant} may have changed (a token issued or
   * revoked, a tenant added or removed, a refresh from other servers). A connection whose credentials were
   * verified at generation {@code g} skips the hash while the generation is still {@code g}; a revocation is
   * then seen on the connection's next command after it becomes visible to this authenticator.
   *
   * @return the current generation, at least 0; {@link #UNVERSIONED} to be asked before every command
   */
  default long generation() {
    return UNVERSIONED;
  }
}
