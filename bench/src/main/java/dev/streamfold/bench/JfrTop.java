package dev.streamfold.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Print where a JFR recording's CPU samples ({@code jdk.ExecutionSample}) went: by thread, by top frame
 * (self time) and by method anywhere on the stack (total time), as shares of all samples.
 * {@code BenchMain jfr-top FILE.jfr [--top N] [--thread SUBSTRING]}.
 */
final class JfrTop {
  private JfrTop() {}

  static void main(String[] args) throws IOException {
    Path file = null;
    int top = 25;
    String threadFilter = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--top") && i + 1 < args.length) {
        top = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--thread") && i + 1 < args.length) {
        threadFilter = args[++i];
      } else if (args[i].endsWith(".jfr")) {
        file = Path.of(args[i]);
      }
    }
    if (file == null) {
      throw new IllegalArgumentException("usage: jfr-top FILE.jfr [--top N] [--thread SUBSTRING]");
    }
    Map<String, Integer> threads = new HashMap<>();
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> total = new HashMap<>();
    int samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
      String threadGroup = thread == null ? "?" : thread.replaceAll("[-#]?\\d+", "#").replaceAll("\\(.*\\)", "");
      if (threadFilter != null && (thread == null || !thread.contains(threadFilter))) {
        continue;
      }
      samples++;
      threads.merge(threadGroup, 1, Integer::sum);
      RecordedStackTrace stack = e.getStackTrace();
      if (stack == null || stack.getFrames().isEmpty()) {
        continue;
      }
      List<RecordedFrame> frames = stack.getFrames();
      self.merge(name(frames.get(0)), 1, Integer::sum);
      Set<String> seen = new HashSet<>();
      for (RecordedFrame f : frames) {
        String n = name(f);
        if (seen.add(n)) {
          total.merge(n, 1, Integer::sum);
        }
      }
    }
    System.out.printf("%s: %d execution samples%s%n", file, samples, threadFilter == null ? "" : " (threads *" + threadFilter + "*)");
    print("by thread", threads, samples, top);
    print("self (top frame)", self, samples, top);
    print("total (anywhere on the stack)", total, samples, top);
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static void print(String title, Map<String, Integer> counts, int samples, int top) {
    System.out.println("-- " + title);
    Map<String, Integer> sorted = new LinkedHashMap<>();
    counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(top)
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    sorted.forEach((k, v) -> System.out.printf("  %5.1f%%  %s%n", 100.0 * v / Math.max(1, samples), k));
  }
}
