package dev.streamfold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of processes from Linux's {@code /proc/<pid>/stat} (proc(5)): user + system time of all threads,
 * and of a process's children that it has waited for. Clock ticks are USER_HZ, 100 per second on Linux, so a
 * reading has 10 ms resolution: take differences over runs of seconds.
 */
final class ProcCpu {
  private ProcCpu() {}

  /**
   * CPU time a process has used so far: fields 14 (utime) and 15 (stime).
   *
   * @param pid a process ID, or {@code self}
   * @return ns; -1 when unknown (no such process, not Linux)
   */
  static long process(String pid) {
    return fields(pid, 11, 12);
  }

  /**
   * CPU time used so far by this JVM's children that have ended and been waited for (e.g. a {@code
   * redis-benchmark} after {@link Process#waitFor}): fields 16 (cutime) and 17 (cstime).
   *
   * @return ns; -1 when unknown
   */
  static long waitedForChildren() {
    return fields("self", 13, 14);
  }

  /** Sum of two fields of /proc/pid/stat, counted from the one after the command name (index 0 = field 3). */
  private static long fields(String pid, int a, int b) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[a]) + Long.parseLong(f[b])) * 10_000_000L;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
