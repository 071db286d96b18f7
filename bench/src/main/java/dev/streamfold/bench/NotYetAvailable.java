package dev.streamfold.bench;

import java.util.Map;

/**
 * Placeholder result of benchmark 6 (training set) of issue 9, written when the server answers
 * {@code ReplayService.ExportTrainingSet} with UNIMPLEMENTED (a server built before it existed). It says
 * "not yet available" and measures nothing.
 */
final class NotYetAvailable {
  private NotYetAvailable() {}

  static void trainingSet(BenchEnv env) {
    placeholder(env, "6-training-set", "training set over all flights with two features");
  }

  private static void placeholder(BenchEnv env, String name, String what) {
    System.out.println("[" + name + "] " + what + ": not yet available (the server does not implement ReplayService.ExportTrainingSet)");
    Report report = new Report(name, env.resultsDir);
    report.detail("status", "not yet available");
    report.detail("measures", Map.of("what", what));
    report.write();
  }
}
