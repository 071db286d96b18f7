package dev.streamfold.bench;

import dev.streamfold.deploy.local.stack.StackState;
import dev.streamfold.deploy.local.stack.StackState.ProcessRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What every benchmark program gets: its flags ({@code --name value}), the local stack it runs against
 * (read from {@code <data dir>/stack.json}) and where results go. Flags common to all programs:
 * {@code --data-dir DIR} (required: the stack's data directory), {@code --results DIR} (default
 * {@code <data dir>/bench-results}), {@code --tenant T} (default demo), {@code --jfr DIR} (record a JFR
 * profile of the server during each measured phase into DIR).
 */
final class BenchEnv {
  final Map<String, String> flags;
  final Path dataDir;
  final Path resultsDir;
  final String tenant;
  final Path jfrDir;
  private StackState stack;
  /** The server's pid when a benchmark restarted the server itself (see {@link ServerControl}), else 0. */
  volatile long serverPidOverride;

  BenchEnv(String[] args) {
    flags = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "' in " + List.of(args));
      }
      flags.put(args[i].substring(2), args[++i]);
    }
    String dir = flags.get("data-dir");
    if (dir == null) {
      throw new IllegalArgumentException("missing --data-dir (the local stack's data directory)");
    }
    dataDir = Path.of(dir).toAbsolutePath().normalize();
    resultsDir = Path.of(flags.getOrDefault("results", dataDir.resolve("bench-results").toString()));
    tenant = flags.getOrDefault("tenant", "demo");
    jfrDir = flags.containsKey("jfr") ? Path.of(flags.get("jfr")).toAbsolutePath() : null;
  }

  String get(String name, String defaultValue) {
    return flags.getOrDefault(name, defaultValue);
  }

  int getInt(String name, int defaultValue) {
    return flags.containsKey(name) ? Integer.parseInt(flags.get(name).replace("_", "").replace(",", "")) : defaultValue;
  }

  double getDouble(String name, double defaultValue) {
    return flags.containsKey(name) ? Double.parseDouble(flags.get(name).replace("_", "").replace(",", "")) : defaultValue;
  }

  long getLong(String name, long defaultValue) {
    return flags.containsKey(name) ? Long.parseLong(flags.get(name).replace("_", "").replace(",", "")) : defaultValue;
  }

  /** The stack's state, read once. */
  StackState stack() {
    if (stack == null) {
      stack = StackState.read(dataDir.resolve(StackState.FILE_NAME)).orElseThrow(() -> new IllegalStateException(
          "no local stack in " + dataDir + " (start it: streamfold local up with STREAMFOLD_DATA=" + dataDir + ")"));
    }
    return stack;
  }

  /** The gRPC target {@code 127.0.0.1:port} of the server (or of --grpc-port when given). */
  String grpcTarget() {
    return "127.0.0.1:" + getInt("grpc-port", stack().grpcPort());
  }

  /** The stack server's admin token ({@code <data dir>/server/admin-token}); it acts for {@link #tenant}. */
  String adminToken() {
    return dev.streamfold.core.AdminToken.read(dataDir.resolve("server"));
  }

  /** A lettuce URI of the query-service that AUTHs as {@link #tenant} with the admin token. */
  String respUri() {
    return "redis://" + tenant + ":" + adminToken() + "@127.0.0.1:" + respPort();
  }

  int respPort() {
    return getInt("resp-port", stack().respPort());
  }

  int redisPort() {
    return stack().redis().port(ProcessRecord.PORT_REDIS);
  }

  /** Pids of the stack's processes by role: server, pulsar, redis, s3 (the server's may be overridden by --server-pid). */
  Map<String, Long> pids() {
    Map<String, Long> pids = new LinkedHashMap<>();
    pids.put("server", serverPidOverride != 0 ? serverPidOverride : getLong("server-pid", restartedServerPid()
        .orElse(stack().server().pid())));
    pids.put("pulsar", stack().pulsar().pid());
    pids.put("redis", stack().redis().pid());
    if (stack().s3() != null) {
      pids.put("s3", stack().s3().pid());
    }
    return pids;
  }

  /**
   * The pid in {@code <data dir>/bench-server.pid} when that process is alive: a server the freshness benchmark
   * restarted (stack.json still names the first one, which is gone).
   */
  java.util.Optional<Long> restartedServerPid() {
    try {
      Path file = dataDir.resolve("bench-server.pid");
      if (!Files.exists(file)) {
        return java.util.Optional.empty();
      }
      long pid = Long.parseLong(Files.readString(file).trim());
      return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(ProcessHandle::pid);
    } catch (IOException | NumberFormatException e) {
      return java.util.Optional.empty();
    }
  }

  long serverPid() {
    return pids().get("server");
  }

  /** Start a JFR recording of the server when --jfr is given. */
  void jfrStart(String name) {
    if (jfrDir == null) {
      return;
    }
    jcmd(serverPid(), "JFR.start", "name=" + name, "settings=profile");
  }

  /** Stop the recording of {@link #jfrStart} without keeping it. */
  void jfrDiscard(String name) {
    if (jfrDir != null) {
      jcmd(serverPid(), "JFR.stop", "name=" + name);
    }
  }

  /** Stop the recording of {@link #jfrStart} and dump it to {@code <jfr dir>/<name>.jfr}. */
  void jfrStop(String name) {
    if (jfrDir == null) {
      return;
    }
    try {
      Files.createDirectories(jfrDir);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Path file = jfrDir.resolve(name + ".jfr");
    jcmd(serverPid(), "JFR.stop", "name=" + name, "filename=" + file);
    System.out.println("JFR profile of the server: " + file);
  }

  static void jcmd(long pid, String... args) {
    jcmdOutput(pid, args);
  }

  /**
   * Run {@code jcmd <pid> args...} of this JDK.
   *
   * @return its output (stdout and stderr), or "" when it could not run; a failure is printed as a warning
   */
  static String jcmdOutput(long pid, String... args) {
    List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(pid)));
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        System.out.println("warning: " + String.join(" ", cmd) + " failed: " + out.trim());
      }
      return out;
    } catch (IOException e) {
      System.out.println("warning: cannot run jcmd: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "";
  }
}
