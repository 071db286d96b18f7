package dev.streamfold.deploy.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Command-line entry point of the Streamfold server process, started by the local stack:
 * <pre>
 * StreamfoldServerMain --data-dir DIR --pulsar-service-url URL --pulsar-admin-url URL --redis-uri URI
 *     [--grpc-port N] [--resp-port N] [--bind-host H] [--tenant T] [--checkpoint-interval-ms N]
 *     [--tenants T1,T2] [--bookie-admin-url URL] [--ready-file FILE]
 * </pre>
 * {@code --tenants} limits the tenants whose transformations this server resumes (default: all tenants of
 * the Pulsar cluster). {@code --tenant} is kept for compatibility and no longer selects what the
 * query-service serves: every gRPC call and RESP connection authenticates with a token, and the admin token
 * is generated at the first start into {@code <data dir>/admin-token} (mode 600; see {@link AdminToken}).
 * <pre>
 * </pre>
 * Once serving, it writes {@code {"grpcPort":N,"respPort":N}} to the ready file. SIGTERM stops it
 * cleanly; views resume from their checkpoints on the next start.
 */
public final class StreamfoldServerMain {
  private StreamfoldServerMain() {}

  /** A flag's value, else the environment variable's, else null. */
  private static String flagOrEnv(Map<String, String> flags, String flag, String env) {
    String value = flags.get(flag);
    if (value == null || value.isBlank()) {
      value = System.getenv(env);
    }
    return value == null || value.isBlank() ? null : value;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> flags = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        System.err.println("usage: StreamfoldServerMain --data-dir DIR --pulsar-service-url URL "
            + "--pulsar-admin-url URL --redis-uri URI [--grpc-port N] [--resp-port N] [--ready-file FILE] [--flink-rest-address HOST:PORT]"
            + " [--checkpoints-uri URI]; bad argument: "
            + args[i]);
        System.exit(2);
      }
      flags.put(args[i].substring(2), args[++i]);
    }
    ServerOptions options = new ServerOptions(
        Path.of(require(flags, "data-dir")),
        require(flags, "pulsar-service-url"),
        require(flags, "pulsar-admin-url"),
        require(flags, "redis-uri"),
        Integer.parseInt(flags.getOrDefault("grpc-port", "0")),
        Integer.parseInt(flags.getOrDefault("resp-port", "0")),
        flags.get("bind-host"),
        flags.get("tenant"),
        flags.containsKey("checkpoint-interval-ms")
            ? Duration.ofMillis(Long.parseLong(flags.get("checkpoint-interval-ms"))) : null,
        flags.containsKey("tenants") ? java.util.Set.of(flags.get("tenants").split(",")) : java.util.Set.of(),
        flags.get("bookie-admin-url"),
        flagOrEnv(flags, "flink-rest-address", "STREAMFOLD_FLINK_REST_ADDRESS"),
        flagOrEnv(flags, "checkpoints-uri", "STREAMFOLD_CHECKPOINTS_URI"));
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
    String ready = "{\"grpcPort\":" + server.grpcPort() + ",\"respPort\":" + server.respPort() + "}";
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
      System.err.println("missing --" + name);
      System.exit(2);
    }
    return value;
  }
}
