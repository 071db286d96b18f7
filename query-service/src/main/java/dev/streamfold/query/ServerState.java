package dev.streamfold.query;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** What HELLO, INFO and CLIENT report about the server: identity, uptime, connections. Thread-safe. */
final class ServerState {
  /** The {@code server} field of HELLO. */
  static final String SERVER_NAME = "streamfold-query-service";
  /**
   * The Redis version whose behaviour this server follows, reported as {@code version} by HELLO and
   * {@code redis_version} by INFO: clients pick features by it.
   */
  static final String REDIS_COMPATIBLE_VERSION = "7.0.0";

  private final Clock clock;
  private final Instant startedAt;
  private final String tenant;
  private final RespAuthenticator authenticator;
  private final AtomicLong lastClientId = new AtomicLong();
  private final AtomicInteger connectedClients = new AtomicInteger();
  private volatile int port;

  /**
   * Create the state of a server starting now.
   *
   * @param clock time source for uptime
   * @param tenant tenant every connection is served
   */
  ServerState(Clock clock, String tenant) {
    this(clock, tenant, null);
  }

  /**
   * Create the state of a server starting now.
   *
   * @param clock time source for uptime
   * @param tenant tenant every connection is served when {@code authenticator} is null
   * @param authenticator maps AUTH credentials to tenants; null serves {@code tenant} without AUTH
   */
  ServerState(Clock clock, String tenant, RespAuthenticator authenticator) {
    this.clock = clock;
    this.startedAt = clock.instant();
    this.tenant = tenant;
    this.authenticator = authenticator;
  }

  /** The authenticator; null when connections are served {@link #tenant()} without AUTH. */
  RespAuthenticator authenticator() {
    return authenticator;
  }

  /**
   * Return the version of this module, from the jar's manifest or Maven's {@code pom.properties}.
   *
   * @return e.g. {@code 0.1.0-SNAPSHOT}; {@code dev} when run from a classes directory
   */
  static String streamfoldVersion() {
    String version = ServerState.class.getPackage().getImplementationVersion();
    if (version != null) {
      return version;
    }
    try (InputStream in = ServerState.class.getResourceAsStream(
        "/META-INF/maven/dev.streamfold/streamfold-query-service/pom.properties")) {
      if (in != null) {
        Properties properties = new Properties();
        properties.load(in);
        return properties.getProperty("version", "dev");
      }
    } catch (IOException unreadable) {
      // fall through
    }
    return "dev";
  }

  /** The tenant new connections are served: null when they must AUTH first. */
  String tenant() {
    if (authenticator != null) {
      return null;
    }
    return tenant;
  }

  /** Return a new client id (1, 2, …). */
  long nextClientId() {
    return lastClientId.incrementAndGet();
  }

  void clientConnected() {
    connectedClients.incrementAndGet();
  }

  void clientDisconnected() {
    connectedClients.decrementAndGet();
  }

  int connectedClients() {
    return connectedClients.get();
  }

  /** Time since the server started. */
  Duration uptime() {
    return Duration.between(startedAt, clock.instant());
  }

  /** The bound TCP port, 0 before the server is bound. */
  int port() {
    return port;
  }

  void port(int port) {
    this.port = port;
  }
}
