package dev.streamfold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Peak resident memory of processes over an interval. Linux only: {@code /proc/<pid>/clear_refs} resets a
 * process's high-water mark ({@code VmHWM}) at {@link #start}, and a thread samples {@code VmRSS} every
 * {@code periodMs} as a second opinion (and the only one where the reset is not permitted).
 */
final class RssSampler implements AutoCloseable {
  private final Map<String, Long> pids;
  private final Map<String, Long> sampledMaxKb = new LinkedHashMap<>();
  private final Map<String, Boolean> hwmReset = new LinkedHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;

  private RssSampler(Map<String, Long> pids, long periodMs) {
    this.pids = pids;
    for (Map.Entry<String, Long> e : pids.entrySet()) {
      sampledMaxKb.put(e.getKey(), 0L);
      hwmReset.put(e.getKey(), resetHwm(e.getValue()));
    }
    thread = new Thread(() -> {
      while (running) {
        sample();
        try {
          Thread.sleep(periodMs);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "rss-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Reset the peaks of the processes and start sampling.
   *
   * @param pids process ids by role, e.g. server, pulsar, redis, s3
   * @param periodMs sampling period
   */
  static RssSampler start(Map<String, Long> pids, long periodMs) {
    return new RssSampler(pids, periodMs);
  }

  private synchronized void sample() {
    for (Map.Entry<String, Long> e : pids.entrySet()) {
      long kb = statusKb(e.getValue(), "VmRSS:");
      if (kb > sampledMaxKb.get(e.getKey())) {
        sampledMaxKb.put(e.getKey(), kb);
      }
    }
  }

  /**
   * Stop sampling and return the peak RSS of each process since {@link #start}, in MiB: its VmHWM when the
   * reset worked, else the largest sample.
   */
  synchronized Map<String, Double> peaksMib() {
    running = false;
    thread.interrupt();
    sample();
    Map<String, Double> peaks = new LinkedHashMap<>();
    for (Map.Entry<String, Long> e : pids.entrySet()) {
      long kb = hwmReset.get(e.getKey()) ? Math.max(statusKb(e.getValue(), "VmHWM:"), sampledMaxKb.get(e.getKey()))
          : sampledMaxKb.get(e.getKey());
      peaks.put(e.getKey(), kb / 1024.0);
    }
    return peaks;
  }

  /** Current RSS of a process in MiB, 0 when unknown. */
  static double rssMib(long pid) {
    return statusKb(pid, "VmRSS:") / 1024.0;
  }

  private static boolean resetHwm(long pid) {
    try {
      Files.writeString(Path.of("/proc", Long.toString(pid), "clear_refs"), "5");
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  static long statusKb(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // process gone or not Linux
    }
    return 0;
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
