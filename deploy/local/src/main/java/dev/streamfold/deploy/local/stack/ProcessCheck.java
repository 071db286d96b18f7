package dev.streamfold.deploy.local.stack;

import dev.streamfold.deploy.local.stack.StackState.ProcessRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Tells whether a recorded process is still the one the stack started (pids are reused). */
final class ProcessCheck {
  /** Tolerance when comparing start times: the OS reports them in clock ticks. */
  static final long START_TIME_TOLERANCE_MS = 1_000;

  private ProcessCheck() {}

  /**
   * Find the running process a record describes.
   *
   * @param record the process as started, may be null
   * @return its handle when a process with that pid is alive, started at the recorded time and has the
   *     recorded marker in its command line; empty otherwise
   */
  static Optional<ProcessHandle> find(ProcessRecord record) {
    if (record == null || record.pid() <= 0) {
      return Optional.empty();
    }
    return ProcessHandle.of(record.pid()).filter(h -> !isGone(h)).filter(h -> isSame(h, record));
  }

  /**
   * Tell whether a process has exited. A zombie (exited, not yet reaped by a parent that is gone or by
   * an init that does not reap) counts as exited.
   *
   * @param handle the process
   * @return true when it no longer runs
   */
  static boolean isGone(ProcessHandle handle) {
    if (!handle.isAlive()) {
      return true;
    }
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(handle.pid()), "stat"));
      int close = stat.lastIndexOf(')');
      return close > 0 && close + 2 < stat.length() && (stat.charAt(close + 2) == 'Z' || stat.charAt(close + 2) == 'X');
    } catch (IOException | RuntimeException e) {
      return !handle.isAlive();
    }
  }

  /**
   * Stop a process and its descendants: SIGTERM to all, SIGKILL to whatever still runs after
   * {@code grace}.
   *
   * @param handle the process
   * @param grace time allowed for a clean exit
   * @return true when the process and its descendants are gone afterwards
   */
  static boolean terminate(ProcessHandle handle, Duration grace) {
    List<ProcessHandle> descendants = handle.descendants().toList();
    handle.destroy();
    descendants.forEach(ProcessHandle::destroy);
    if (!awaitGone(handle, grace)) {
      handle.destroyForcibly();
    }
    for (ProcessHandle d : descendants) {
      if (!awaitGone(d, Duration.ofSeconds(2))) {
        d.destroyForcibly();
      }
    }
    boolean gone = awaitGone(handle, Duration.ofSeconds(10));
    for (ProcessHandle d : descendants) {
      gone &= awaitGone(d, Duration.ofSeconds(5));
    }
    return gone;
  }

  /**
   * Wait until a process is gone, polling every 100 ms.
   *
   * @param handle the process
   * @param timeout longest wait
   * @return true when it is gone
   */
  static boolean awaitGone(ProcessHandle handle, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!isGone(handle)) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return isGone(handle);
      }
    }
    return true;
  }

  /**
   * Tell whether a live process is the one a record describes. The recorded command marker (the stack's data
   * dir in a Java process's arguments, the address in redis-server's title) decides when the command line can be
   * read: a process that got a reused pid does not carry it. Only without a marker, or without a readable command
   * line, are the start times compared (within {@value #START_TIME_TOLERANCE_MS} ms): they are wall-clock
   * instants, computed from the boot time the kernel reports, which moves when the wall clock is stepped (NTP), so
   * a stack would otherwise look stopped after a clock step while all its processes run (from a tryout: 6 s).
   *
   * @param handle a live process
   * @param record the process as started
   * @return true when it is the recorded process
   */
  static boolean isSame(ProcessHandle handle, ProcessRecord record) {
    String marker = record.commandMarker();
    Optional<String> line = marker == null || marker.isEmpty() ? Optional.empty() : commandLine(handle);
    if (line.isPresent()) {
      return line.get().contains(marker);
    }
    if (record.startedAtMs() > 0) {
      Optional<Instant> started = handle.info().startInstant();
      return started.isEmpty() || Math.abs(started.get().toEpochMilli() - record.startedAtMs()) <= START_TIME_TOLERANCE_MS;
    }
    return true;
  }

  /**
   * Return a process's command line as the OS shows it now: {@code /proc/<pid>/cmdline} (which reflects
   * a rewritten process title, unlike {@link ProcessHandle.Info#commandLine()}, which may show only the
   * executable when argv[0] is not the executable, e.g. Debian's redis-server symlink), else the JDK's.
   *
   * @param handle the process
   * @return the arguments joined by spaces, or empty when unknown
   */
  static Optional<String> commandLine(ProcessHandle handle) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(handle.pid()), "cmdline"));
      if (raw.length > 0) {
        for (int i = 0; i < raw.length; i++) {
          if (raw[i] == 0) {
            raw[i] = ' ';
          }
        }
        return Optional.of(new String(raw, java.nio.charset.StandardCharsets.UTF_8).trim());
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or the process is gone: fall back to the JDK
    }
    return handle.info().commandLine();
  }

  /**
   * Return the start time of a running process.
   *
   * @param pid the process id
   * @return epoch milliseconds, or 0 when the OS does not tell
   */
  static long startedAtMs(long pid) {
    return ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).map(Instant::toEpochMilli).orElse(0L);
  }
}
