package dev.streamfold.server;

import dev.streamfold.core.AdminToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Command-line entry point of the Streamfold server process, started by the local stack:
 * <pre>
 * StreamfoldServerMain --data-dir DIR --pulsar-service-url URL --pulsar-admin-url URL --redis-uri URI
 *     [--grpc-port N] [--resp-port N] [--bind-host H] [--tenant T] [--checkpoint-interval-ms N]
 *     [--tenants T1,T2] [--bookie-admin-url URL] [--ready-file FILE] [--metrics-port N] [--clock-interval-ms N]
 * </pre>
 * Every flag can also be given as an environment variable {@code STREAMFOLD_<FLAG>} (upper case, {@code -} as
 * {@code _}, e.g. {@code STREAMFOLD_REDIS_URI}); a flag on the command line wins. An unknown flag is refused.
 * {@code --tenants} limits the tenants whose transformations this server resumes (default: all tenants of
 * the Pulsar cluster). {@code --tenant} is kept for compatibility and no longer selects what the
 * query-service serves: every gRPC call and RESP connection authenticates with a token, and the admin token
 * is generated at the first start into {@code <data dir>/admin-token} (mode 600; see {@link AdminToken}).
 * {@code --metrics-port} serves Prometheus metrics at {@code /metrics} on that port (0: a free port; none
 * without the flag). Once serving, it writes {@code {"grpcPort":N,"respPort":N,"metricsPort":N}} to the ready
 * file ({@code metricsPort} -1 without a metrics endpoint). {@code --clock-interval-ms} is how often the
 * server's writer of each tenant's clock reads the streams' positions for a tick (default 100; 0: no clock).
 * SIGTERM stops it
 * cleanly; views resume from their checkpoints on the next start.
 */
public final class StreamfoldServerMain {
  private StreamfoldServerMain() {}

  /** Prefix of the environment variable of each flag: {@code --redis-uri} is also {@code STREAMFOLD_REDIS_URI}. */
  public static final String ENV_PREFIX = "STREAMFOLD_";
  /** Flags the server cannot start without. */
  public static final List<String> REQUIRED_FLAGS =
      List.of("data-dir", "pulsar-service-url", "pulsar-admin-url", "redis-uri");
  /** Flags with a default. */
  public static final List<String> OPTIONAL_FLAGS = List.of("grpc-port", "resp-port", "bind-host", "tenant",
      "checkpoint-interval-ms", "tenants", "bookie-admin-url", "ready-file", "flink-rest-address", "checkpoints-uri",
      "metrics-port", "clock-interval-ms");

  /**
   * Return the environment variable that sets a flag when the command line does not.
   *
   * @param flag a flag name without the leading {@code --}, e.g. {@code redis-uri}
   * @return e.g. {@code STREAMFOLD_REDIS_URI}
   */
  public static String envName(String flag) {
    return ENV_PREFIX + flag.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
  }

  /**
   * Resolve the server's flags: each known flag from its environment variable ({@link #envName}), then from
   * the command line, which wins. Environment variables that name no flag are ignored.
   *
   * @param args {@code --flag value} pairs
   * @param env the process environment
   * @return flag name (without {@code --}) to value
   * @throws IllegalArgumentException if an argument is not a known {@code --flag} followed by a value
   */
  static Map<String, String> resolveFlags(String[] args, Map<String, String> env) {
    List<String> known = new java.util.ArrayList<>(REQUIRED_FLAGS);
    known.addAll(OPTIONAL_FLAGS);
    Map<String, String> flags = new HashMap<>();
    for (String flag : known) {
      String value = env.get(envName(flag));
      if (value != null && !value.isBlank()) {
        flags.put(flag, value);
      }
    }
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("bad argument: " + args[i] + " (expected --flag value)");
      }
      String flag = args[i].substring(2);
      if (!known.contains(flag)) {
        throw new IllegalArgumentException("unknown flag --" + flag + "; known flags: --" + String.join(", --", known));
      }
      flags.put(flag, args[++i]);
    }
    return flags;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> flags;
    try {
      flags = resolveFlags(args, System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("usage: StreamfoldServerMain --data-dir DIR --pulsar-service-url URL "
          + "--pulsar-admin-url URL --redis-uri URI [--grpc-port N] [--resp-port N] [--ready-file FILE] "
          + "[--flink-rest-address HOST:PORT] [--checkpoints-uri URI] [--metrics-port N] (or " + ENV_PREFIX + "<FLAG> environment variables); " + e.getMessage());
      System.exit(2);
      return;
    }
    ServerOptions options = ServerOptions.builder(
            Path.of(require(flags, "data-dir")),
            require(flags, "pulsar-service-url"),
            require(flags, "pulsar-admin-url"),
            require(flags, "redis-uri"))
        .grpcPort(Integer.parseInt(flags.getOrDefault("grpc-port", "0")))
        .respPort(Integer.parseInt(flags.getOrDefault("resp-port", "0")))
        .bindHost(flags.get("bind-host"))
        .defaultTenant(flags.get("tenant"))
        .checkpointInterval(flags.containsKey("checkpoint-interval-ms")
            ? Duration.ofMillis(Long.parseLong(flags.get("checkpoint-interval-ms"))) : null)
        .tenants(flags.containsKey("tenants") ? java.util.Set.of(flags.get("tenants").split(",")) : java.util.Set.of())
        .bookieAdminUrl(flags.get("bookie-admin-url"))
        .flinkRestAddress(flags.get("flink-rest-address"))
        .checkpointsUri(flags.get("checkpoints-uri"))
        .metricsPort(flags.containsKey("metrics-port") ? Integer.parseInt(flags.get("metrics-port")) : ServerOptions.METRICS_DISABLED)
        .clockInterval(flags.containsKey("clock-interval-ms")
            ? Duration.ofMillis(Long.parseLong(flags.get("clock-interval-ms"))) : null)
        .build();
    Files.createDirectories(options.dataDir());
    StreamfoldServer server;
    try {
      server = new StreamfoldServer(options).start(null);
    } catch (RuntimeException e) {
      // Flink's threads would keep a JVM with a dead main thread alive: exit so the launcher sees it.
      System.err.println("streamfold server failed to start: " + e.getMessage());
      e.printStackTrace();
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "streamfold-server-stop"));
    String ready = "{\"grpcPort\":" + server.grpcPort() + ",\"respPort\":" + server.respPort()
        + ",\"metricsPort\":" + server.metricsPort() + "}";
    System.out.println("streamfold server ready " + ready);
    if (flags.containsKey("ready-file")) {
      Path file = Path.of(flags.get("ready-file"));
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, ready);
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    stopped.await();
  }

  private static String require(Map<String, String> flags, String name) throws IOException {
    String value = flags.get(name);
    if (value == null) {
      System.err.println("missing --" + name + " (or " + envName(name) + ")");
      System.exit(2);
    }
    return value;
  }
}
