package dev.streamfold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Restarts the stack's Streamfold server with another value of one flag, e.g. {@code --checkpoint-interval-ms}
 * (the local stack starts it with the default, 1 s) or {@code --clock-interval-ms}: the server is stopped with SIGTERM (its views resume from their
 * checkpoints) and started again with its own command line plus the flag, on the same ports. The new
 * process is this program's: its pid is written to {@code <data dir>/bench-server.pid} so that
 * {@code bench/run-all} stops it at the end ({@code streamfold local down} only knows the original).
 */
final class ServerControl {
  static final String FLAG = "--checkpoint-interval-ms";
  static final String CLOCK_FLAG = "--clock-interval-ms";
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
  static final Duration READY_TIMEOUT = Duration.ofSeconds(300);

  private final BenchEnv env;

  ServerControl(BenchEnv env) {
    this.env = env;
  }

  /** The checkpoint interval the running server was started with, in ms (1,000 when not given). */
  long currentIntervalMs() {
    return current(FLAG).map(Long::parseLong).orElse(1000L);
  }

  /** The value of a flag on the running server's command line, if given there. */
  Optional<String> current(String flag) {
    List<String> args = arguments(handle());
    int i = args.indexOf(flag);
    return i >= 0 && i + 1 < args.size() ? Optional.of(args.get(i + 1)) : Optional.empty();
  }

  private ProcessHandle handle() {
    long pid = env.serverPid();
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
        .orElseThrow(() -> new IllegalStateException("the Streamfold server (pid " + pid + ") is not running"));
  }

  private static List<String> arguments(ProcessHandle h) {
    Optional<String[]> args = h.info().arguments();
    if (args.isEmpty() || h.info().command().isEmpty()) {
      throw new IllegalStateException("cannot read the command line of pid " + h.pid());
    }
    return new ArrayList<>(List.of(args.get()));
  }

  /**
   * Restart the server with a checkpoint interval.
   *
   * @param intervalMs checkpoint interval in ms
   * @return the new server's pid
   */
  long restartWith(long intervalMs) throws IOException, InterruptedException {
    return restartWith(FLAG, Long.toString(intervalMs));
  }

  /**
   * Restart the server with one flag set to a value (its other flags as they were).
   *
   * @param flag e.g. {@value #CLOCK_FLAG}
   * @param value the flag's value
   * @return the new server's pid
   */
  long restartWith(String flag, String value) throws IOException, InterruptedException {
    ProcessHandle old = handle();
    String javaBin = old.info().command().orElseThrow();
    List<String> args = arguments(old);
    int i = args.indexOf(flag);
    if (i >= 0) {
      args.remove(i + 1);
      args.remove(i);
    }
    args.add(flag);
    args.add(value);
    int ready = args.indexOf("--ready-file");
    Path readyFile = Path.of(args.get(ready + 1));
    System.out.printf("[server] restarting the Streamfold server (pid %d) with %s %s ...%n", old.pid(), flag, value);
    long t0 = System.nanoTime();
    old.destroy();
    try {
      old.onExit().get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      old.destroyForcibly();
      old.onExit().join();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
    Files.deleteIfExists(readyFile);
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin);
    cmd.addAll(args);
    Path serverDir = env.dataDir.resolve("server");
    Path log = serverDir.resolve("server-bench.log");
    Process p = new ProcessBuilder(cmd).directory(serverDir.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    Files.writeString(env.dataDir.resolve("bench-server.pid"), Long.toString(p.pid()));
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (!Files.exists(readyFile)) {
      if (!p.isAlive()) {
        throw new IllegalStateException("the restarted server exited; see " + log);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the restarted server is not ready after " + READY_TIMEOUT.toSeconds() + " s; see " + log);
      }
      Thread.sleep(200);
    }
    env.serverPidOverride = p.pid();
    System.out.printf("[server] ready in %.1f s (pid %d, log %s)%n", (System.nanoTime() - t0) / 1e9, p.pid(), log);
    return p.pid();
  }
}
