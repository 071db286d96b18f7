package dev.streamfold.deploy.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A real server running as a child process of this JVM (or detached, for the local stack), with its
 * output in a log file.
 */
public final class ManagedProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path logFile;

  private ManagedProcess(String name, Process process, Path logFile) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
  }

  /**
   * Start a command with stdout and stderr appended to {@code logFile}.
   *
   * @param name short name for messages, e.g. "pulsar"
   * @param command the command and its arguments
   * @param workDir working directory (created when missing)
   * @param logFile file that receives stdout and stderr (appended)
   * @return the running process
   * @throws UncheckedIOException if the command cannot be started
   */
  public static ManagedProcess start(String name, List<String> command, Path workDir, Path logFile) {
    return start(name, command, workDir, logFile, Map.of());
  }

  /**
   * Start a command with stdout and stderr appended to {@code logFile} and extra environment variables.
   * The environment is this JVM's (without {@code JAVA_TOOL_OPTIONS}) plus {@code environment}: secrets
   * passed this way stay out of command lines and files.
   *
   * @param name short name for messages, e.g. "pulsar"
   * @param command the command and its arguments
   * @param workDir working directory (created when missing)
   * @param logFile file that receives stdout and stderr (appended)
   * @param environment variables to set (or override) in the child's environment
   * @return the running process
   * @throws UncheckedIOException if the command cannot be started
   */
  public static ManagedProcess start(String name, List<String> command, Path workDir, Path logFile,
      Map<String, String> environment) {
    try {
      Files.createDirectories(workDir);
      Files.createDirectories(logFile.toAbsolutePath().getParent());
      ProcessBuilder builder = new ProcessBuilder(command)
          .directory(workDir.toFile())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      builder.environment().remove("JAVA_TOOL_OPTIONS");
      builder.environment().putAll(environment);
      return new ManagedProcess(name, builder.start(), logFile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + command.get(0), e);
    }
  }

  /** The operating-system process id. */
  public long pid() {
    return process.pid();
  }

  /** The log file receiving the process output. */
  public Path logFile() {
    return logFile;
  }

  /** True while the process runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Wait until {@code ready} holds, polling every 200 ms.
   *
   * @param timeout longest wait
   * @param ready readiness probe; exceptions count as "not ready yet"
   * @throws IllegalStateException if the process exits first or the timeout passes; the message
   *     quotes the end of the log
   */
  public void awaitReady(Duration timeout, BooleanSupplier ready) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited with code " + process.exitValue()
            + " before it was ready; end of " + logFile + ":\n" + tail(logFile, 40));
      }
      try {
        if (ready.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException notYet) {
        // keep polling
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + name, e);
      }
    }
    throw new IllegalStateException(name + " not ready after " + timeout.toSeconds() + " s; end of "
        + logFile + ":\n" + tail(logFile, 40));
  }

  /** Stop the process and its descendants: SIGTERM, then SIGKILL after 20 s. */
  @Override
  public void close() {
    stop(process.toHandle(), Duration.ofSeconds(20));
  }

  /**
   * Stop a process and its descendants: SIGTERM, then SIGKILL after {@code grace}.
   *
   * @param handle the process
   * @param grace time allowed for a clean exit
   */
  public static void stop(ProcessHandle handle, Duration grace) {
    List<ProcessHandle> descendants = handle.descendants().toList();
    handle.destroy();
    descendants.forEach(ProcessHandle::destroy);
    try {
      handle.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception timeout) {
      handle.destroyForcibly();
    }
    descendants.forEach(ProcessHandle::destroyForcibly);
  }

  /**
   * Return the last lines of a text file, or a note when it cannot be read.
   *
   * @param file the file
   * @param lines how many lines
   * @return the lines joined by newlines
   */
  public static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }
}
