package dev.streamfold.query;

/**
 * The state of one client connection: protocol version, names, and whether it is closing. Owned
 * by the connection's {@link CommandHandler}: read on its event loop, and changed only by a blocking command
 * that runs alone (no other command of the connection in flight; the hand-over to and from the command
 * thread orders the accesses), so it needs no locking.
 */
final class Session {
  private final long id;
  private String tenant;
  private String authUser;
  private String authToken;
  /** The authenticator's generation when the credentials were last verified; UNVERSIONED when never. */
  private long authGeneration = RespAuthenticator.UNVERSIONED;
  private final String remoteAddress;
  private final String localAddress;
  private int protocol = 2;
  private String clientName;
  private String libName;
  private String libVersion;
  private boolean closing;

  /**
   * Create the state of a new connection.
   *
   * @param id connection id, unique within the server, from 1
   * @param tenant tenant whose views this connection reads; null until it authenticates
   * @param remoteAddress client address as {@code ip:port}
   * @param localAddress server address as {@code ip:port}
   */
  Session(long id, String tenant, String remoteAddress, String localAddress) {
    this.id = id;
    this.tenant = tenant;
    this.remoteAddress = remoteAddress;
    this.localAddress = localAddress;
  }

  long id() {
    return id;
  }

  /** The tenant whose views this connection reads; null before AUTH when authentication is required. */
  String tenant() {
    return tenant;
  }

  /**
   * Select the tenant (a successful AUTH), or forget it (RESET on a server that requires AUTH).
   *
   * @param tenant the tenant, or null
   */
  void tenant(String tenant) {
    this.tenant = tenant;
    if (tenant == null) {
      authUser = null;
      authToken = null;
      authGeneration = RespAuthenticator.UNVERSIONED;
    }
  }

  /**
   * Select the tenant with the credentials that proved it; they are checked again before each command, so a
   * revoked token stops working on open connections too. The token stays in this connection's memory only.
   *
   * @param tenant the tenant
   * @param user the AUTH user
   * @param token the AUTH token
   */
  void authenticated(String tenant, String user, String token) {
    this.tenant = tenant;
    this.authUser = user;
    this.authToken = token;
    this.authGeneration = RespAuthenticator.UNVERSIONED;
  }

  /** The authenticator's generation at the last successful check of the credentials; UNVERSIONED when none. */
  long authGeneration() {
    return authGeneration;
  }

  /**
   * Record that the credentials were verified at this generation of the authenticator.
   *
   * @param generation {@link RespAuthenticator#generation()} read before the check
   */
  void authVerifiedAt(long generation) {
    this.authGeneration = generation;
  }

  /** The AUTH user of the current tenant; null when none. */
  String authUser() {
    return authUser;
  }

  /** The AUTH token of the current tenant; null when none. */
  String authToken() {
    return authToken;
  }

  String remoteAddress() {
    return remoteAddress;
  }

  String localAddress() {
    return localAddress;
  }

  /** The protocol version replies use, 2 or 3. */
  int protocol() {
    return protocol;
  }

  /** The reply builders of this connection's protocol version. */
  Replies replies() {
    return Replies.forProtocol(protocol);
  }

  /**
   * Switch the protocol version of the following replies.
   *
   * @param protocol 2 or 3
   * @throws IllegalArgumentException if the version is neither 2 nor 3
   */
  void protocol(int protocol) {
    Replies.forProtocol(protocol);
    this.protocol = protocol;
  }

  /** The name set with CLIENT SETNAME or HELLO SETNAME; null when none. */
  String clientName() {
    return clientName;
  }

  /**
   * Set or clear the client name.
   *
   * @param clientName the name; null or empty clears it
   */
  void clientName(String clientName) {
    this.clientName = clientName == null || clientName.isEmpty() ? null : clientName;
  }

  /** The library name from CLIENT SETINFO; null when none. */
  String libName() {
    return libName;
  }

  void libName(String libName) {
    this.libName = libName == null || libName.isEmpty() ? null : libName;
  }

  /** The library version from CLIENT SETINFO; null when none. */
  String libVersion() {
    return libVersion;
  }

  void libVersion(String libVersion) {
    this.libVersion = libVersion == null || libVersion.isEmpty() ? null : libVersion;
  }

  /** True after QUIT or a protocol error: the connection closes once the last reply is written. */
  boolean closing() {
    return closing;
  }

  void closeAfterReply() {
    this.closing = true;
  }

  /** Reset to the state of a new connection (RESET): RESP2, no names. */
  void reset() {
    protocol = 2;
    clientName = null;
  }
}
