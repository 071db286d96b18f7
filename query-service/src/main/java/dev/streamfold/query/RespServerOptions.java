package dev.streamfold.query;

import dev.streamfold.views.ViewName;
import java.util.Objects;

/**
 * Options of the RESP server. Start from {@link #defaults()} and change single options with the
 * {@code with…} methods; every value is validated when the options are created.
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>option</th><th>type</th><th>default</th><th>description</th></tr>
 *   <tr><td>host</td><td>String</td><td>{@value #DEFAULT_HOST}</td><td>address to bind</td></tr>
 *   <tr><td>port</td><td>int</td><td>{@value #DEFAULT_PORT}</td><td>TCP port; 0 picks a free one</td></tr>
 *   <tr><td>defaultTenant</td><td>String</td><td>{@value #DEFAULT_TENANT}</td>
 *       <td>tenant whose views every connection reads on a server without a {@link RespAuthenticator}</td></tr>
 *   <tr><td>workerThreads</td><td>int</td><td>{@value #DEFAULT_WORKER_THREADS}</td>
 *       <td>Netty event-loop threads doing socket I/O and RESP decoding/encoding</td></tr>
 *   <tr><td>commandThreads</td><td>int</td><td>{@value #DEFAULT_COMMAND_THREADS}</td>
 *       <td>threads running commands, which block on Redis reads; replies stay in order per connection</td></tr>
 * </table>
 *
 * @param host address to bind, e.g. {@code 127.0.0.1} or {@code 0.0.0.0}
 * @param port TCP port, 0 to 65535; 0 picks a free port (read it with {@link RespServer#port()})
 * @param defaultTenant tenant served to every connection
 * @param workerThreads Netty I/O threads, at least 1
 * @param commandThreads command execution threads, at least 1
 */
public record RespServerOptions(String host, int port, String defaultTenant, int workerThreads,
    int commandThreads) {
  /** Bind to loopback only. */
  public static final String DEFAULT_HOST = "127.0.0.1";
  /** Pick a free port. */
  public static final int DEFAULT_PORT = 0;
  /** The tenant served by a server without a {@link RespAuthenticator}. */
  public static final String DEFAULT_TENANT = "default";
  /** Netty I/O threads. */
  public static final int DEFAULT_WORKER_THREADS = 2;
  /**
   * Threads running blocking commands (AUTH, HELLO, CLIENT, SCAN, DBSIZE, VIEW.*, INFO, ...), shared by all
   * connections. Row reads (GET, HGET, HGETALL, MGET, ...) do not use them: they run on the I/O threads
   * without blocking. VIEW.WAIT holds a thread for as long as it waits.
   */
  public static final int DEFAULT_COMMAND_THREADS = 64;

  /**
   * Create options.
   *
   * @throws NullPointerException if {@code host} or {@code defaultTenant} is null
   * @throws IllegalArgumentException if {@code host} is blank, {@code port} is outside 0..65535,
   *     {@code defaultTenant} is not a valid tenant name, or a thread count is below 1 (the message
   *     quotes the bad value)
   */
  public RespServerOptions {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, was " + port);
    }
    ViewName.checkTenant(defaultTenant);
    if (workerThreads < 1) {
      throw new IllegalArgumentException("workerThreads must be at least 1, was " + workerThreads);
    }
    if (commandThreads < 1) {
      throw new IllegalArgumentException("commandThreads must be at least 1, was " + commandThreads);
    }
  }

  /**
   * Return the default options.
   *
   * @return loopback, a free port, tenant {@value #DEFAULT_TENANT}, the default thread counts
   */
  public static RespServerOptions defaults() {
    return new RespServerOptions(DEFAULT_HOST, DEFAULT_PORT, DEFAULT_TENANT, DEFAULT_WORKER_THREADS,
        DEFAULT_COMMAND_THREADS);
  }

  /**
   * Return a copy with another bind address.
   *
   * @param host address to bind
   * @return the new options
   * @throws IllegalArgumentException if {@code host} is blank
   */
  public RespServerOptions withHost(String host) {
    return new RespServerOptions(host, port, defaultTenant, workerThreads, commandThreads);
  }

  /**
   * Return a copy with another port.
   *
   * @param port TCP port, 0 to 65535; 0 picks a free port
   * @return the new options
   * @throws IllegalArgumentException if {@code port} is outside 0..65535
   */
  public RespServerOptions withPort(int port) {
    return new RespServerOptions(host, port, defaultTenant, workerThreads, commandThreads);
  }

  /**
   * Return a copy serving another tenant.
   *
   * @param defaultTenant tenant name
   * @return the new options
   * @throws IllegalArgumentException if the tenant name is malformed
   */
  public RespServerOptions withDefaultTenant(String defaultTenant) {
    return new RespServerOptions(host, port, defaultTenant, workerThreads, commandThreads);
  }

  /**
   * Return a copy with another number of Netty I/O threads.
   *
   * @param workerThreads at least 1
   * @return the new options
   * @throws IllegalArgumentException if {@code workerThreads} is below 1
   */
  public RespServerOptions withWorkerThreads(int workerThreads) {
    return new RespServerOptions(host, port, defaultTenant, workerThreads, commandThreads);
  }

  /**
   * Return a copy with another number of command threads.
   *
   * @param commandThreads at least 1
   * @return the new options
   * @throws IllegalArgumentException if {@code commandThreads} is below 1
   */
  public RespServerOptions withCommandThreads(int commandThreads) {
    return new RespServerOptions(host, port, defaultTenant, workerThreads, commandThreads);
  }
}
