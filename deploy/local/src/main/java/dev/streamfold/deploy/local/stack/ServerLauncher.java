package dev.streamfold.deploy.local.stack;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamfold.deploy.process.ManagedProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the local stack starts the Streamfold server as a process: its command line (Flink's Java 17 flags, heap,
 * {@code @argfile} class path, server flags), a snapshot of its class path that a rebuild of the source tree cannot
 * overwrite under it, and the wait for its ready file. The server runs on the class path of the JVM that starts
 * it (the CLI's, which holds the {@code server} module at runtime scope).
 */
public final class ServerLauncher {
  /** Main class of the Streamfold server. */
  public static final String SERVER_MAIN_CLASS = "dev.streamfold.server.StreamfoldServerMain";
  /** Heap of the Streamfold server JVM. */
  public static final List<String> SERVER_HEAP_FLAGS = List.of("-Xms1g", "-Xmx3g");
  /**
   * Environment variable holding extra JVM flags for the server, separated by spaces and added after
   * {@link #SERVER_HEAP_FLAGS} (so a later {@code -Xmx} wins), e.g. a profiler's {@code -agentpath}. Unset or
   * blank: none. ({@code JAVA_TOOL_OPTIONS} is not passed on to the stack's processes.)
   */
  public static final String ENV_SERVER_JAVA_OPTS = "STREAMFOLD_SERVER_JAVA_OPTS";
  /**
   * Flink's standard Java 17 flags (docs/stack.md "Flink on Java 17"; the root pom's {@code java17.flags}),
   * for every JVM that runs a Flink job.
   */
  public static final List<String> FLINK_JAVA17_FLAGS = List.of(
      "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
      "--add-exports=java.management/sun.management=ALL-UNNAMED",
      "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
      "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.text=ALL-UNNAMED",
      "--add-opens=java.base/java.time=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
      "--add-opens=java.base/sun.net=ALL-UNNAMED");

  private ServerLauncher() {}

  /**
   * Copy the classpath entries that a rebuild overwrites in place (class directories and SNAPSHOT jars)
   * to {@code libDir}, so that the running server never loads classes from a half-written jar while
   * someone rebuilds the source tree. Release jars stay where they are (Maven never rewrites them).
   *
   * @param classpath the classpath, entries separated by the path separator
   * @param libDir the directory for the copies (emptied first)
   * @return the classpath with the copies in place of the originals, same order
   * @throws IOException if copying fails
   */
  static String snapshotClasspath(String classpath, Path libDir) throws IOException {
    deleteTree(libDir);
    Files.createDirectories(libDir);
    List<String> entries = new ArrayList<>();
    int index = 0;
    for (String entry : classpath.split(java.io.File.pathSeparator)) {
      if (entry.isEmpty()) {
        continue;
      }
      Path path = Path.of(entry);
      index++;
      if (Files.isDirectory(path)) {
        Path copy = libDir.resolve(index + "-" + path.getFileName());
        copyTree(path, copy);
        entries.add(copy.toString());
      } else if (Files.isRegularFile(path) && path.getFileName().toString().contains("SNAPSHOT")) {
        Path copy = libDir.resolve(index + "-" + path.getFileName());
        Files.copy(path, copy);
        entries.add(copy.toString());
      } else {
        entries.add(entry);
      }
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (var paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * Wait for the server's ready file, polling every 200 ms, up to the start timeout.
   *
   * @param server the server process
   * @param readyFile where the server writes its ports once it serves
   * @param logFile the server's log
   * @param logOffset where this run's output starts in the log, in bytes
   * @param timeout the start timeout
   *
   * @throws LocalStackException if the process exits, its main thread dies (the JVM may linger on
   *     non-daemon threads), or the timeout passes; the message quotes the end of its log
   */
  static void awaitReady(ManagedProcess server, Path readyFile, Path logFile, long logOffset, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (readyPorts(readyFile) == null) {
      if (!server.isAlive()) {
        throw new LocalStackException("the Streamfold server exited before it was ready; end of " + logFile + ":\n"
            + ManagedProcess.tail(logFile, 40));
      }
      if (mainThreadDied(logFile, logOffset)) {
        throw new LocalStackException("the Streamfold server's main thread failed before it was ready; end of "
            + logFile + ":\n" + ManagedProcess.tail(logFile, 40));
      }
      if (System.nanoTime() - deadline > 0) {
        throw new LocalStackException("the Streamfold server is not ready after "
            + timeout.toSeconds() + " s (no " + readyFile + "); end of " + logFile + ":\n"
            + ManagedProcess.tail(logFile, 40));
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LocalStackException("interrupted while waiting for the Streamfold server");
      }
    }
  }

  /**
   * Tell whether a JVM printed an uncaught exception of its main thread to its log.
   *
   * @param logFile the log
   * @param offset where this run's output starts in the log, in bytes
   * @return true when this run's output has {@code Exception in thread "main"}
   */
  static boolean mainThreadDied(Path logFile, long offset) {
    try (java.nio.channels.SeekableByteChannel channel = Files.newByteChannel(logFile)) {
      long size = channel.size();
      long from = Math.max(offset, size - 1_000_000);
      channel.position(from);
      java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate((int) (size - from));
      while (buffer.hasRemaining() && channel.read(buffer) > 0) {
        // fill
      }
      return new String(buffer.array(), 0, buffer.position(), java.nio.charset.StandardCharsets.UTF_8)
          .contains("Exception in thread \"main\"");
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Build the server's command line.
   *
   * @param argFile the java argument file holding {@code -cp}
   * @param serverDir the server's data directory
   * @param pulsarServiceUrl the broker's binary protocol URL
   * @param pulsarAdminUrl the broker's admin REST URL
   * @param redisUri the Redis URI of the views
   * @param grpcPort gRPC port on 127.0.0.1, 1..65535
   * @param respPort RESP port on 127.0.0.1, 1..65535
   * @param metricsPort Prometheus {@code /metrics} port on 127.0.0.1, 1..65535
   * @param readyFile where the server writes its ports once it serves
   * @return the command, java binary first
   */
  static List<String> serverCommand(Path argFile, Path serverDir, String pulsarServiceUrl, String pulsarAdminUrl,
      String redisUri, int grpcPort, int respPort, int metricsPort, Path readyFile) {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBinary());
    cmd.addAll(FLINK_JAVA17_FLAGS);
    cmd.addAll(SERVER_HEAP_FLAGS);
    String extra = System.getenv(ENV_SERVER_JAVA_OPTS);
    if (extra != null && !extra.isBlank()) {
      cmd.addAll(List.of(extra.trim().split("\\s+")));
    }
    cmd.add("-Djava.io.tmpdir=" + serverDir.resolve("tmp"));
    cmd.add("-Dstreamfold.role=server");
    String home = System.getProperty("streamfold.home");
    if (home != null) {
      cmd.add("-Dstreamfold.home=" + home);
    }
    cmd.add("@" + argFile);
    cmd.add(SERVER_MAIN_CLASS);
    cmd.addAll(List.of("--data-dir", serverDir.toString(),
        "--pulsar-service-url", pulsarServiceUrl,
        "--pulsar-admin-url", pulsarAdminUrl,
        "--redis-uri", redisUri,
        "--grpc-port", Integer.toString(grpcPort),
        "--resp-port", Integer.toString(respPort),
        "--metrics-port", Integer.toString(metricsPort),
        "--ready-file", readyFile.toString()));
    return cmd;
  }

  /**
   * Read the server's ready file.
   *
   * @return {grpcPort, respPort, metricsPort} ({@code metricsPort} -1 when the server serves no metrics, as
   *     the server writes it), or null when the file is missing or not complete yet
   */
  static int[] readyPorts(Path readyFile) {
    try {
      JsonNode node = StackState.JSON.readTree(Files.readString(readyFile));
      if (node == null || !node.path("grpcPort").canConvertToInt() || !node.path("respPort").canConvertToInt()
          || node.path("grpcPort").asInt() <= 0) {
        return null;
      }
      return new int[] {node.path("grpcPort").asInt(), node.path("respPort").asInt(),
          node.path("metricsPort").asInt(-1)};
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      return null; // partly written: poll again
    }
  }

  static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** Quote a value for a java @argfile (backslashes and double quotes escaped). */
  static String quoteArg(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
