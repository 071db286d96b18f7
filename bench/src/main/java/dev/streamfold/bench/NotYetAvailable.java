package dev.streamfold.bench;

import java.util.Map;

/**
 * Placeholders for benchmarks 5 (replay) and 6 (training set) of issue 9: the features they measure (replay
 * into a virtual state at a message ID, training sets) are being built in another issue. Each writes a
 * results file saying "not yet available" and measures nothing.
 */
final class NotYetAvailable {
  private NotYetAvailable() {}

  // TODO(issue 9, benchmark 5): once ReplayService exists, build a virtual state of delays_by_origin at the
  // message ID 1,000,000 events in (seconds, events/s), then again with those events offloaded to S3 and the
  // local copies deleted (`ledger offload flights --wait`, deletion lag 0); baseline: backfill events/s.
  static void replay(BenchEnv env) {
    placeholder(env, "5-replay", "replay to a message ID 1,000,000 events in (local and from S3)");
  }

  // TODO(issue 9, benchmark 6): once training sets exist, build one over all 3,000,000 flights with two
  // features: rows/s and peak RSS of the server while it runs (RssSampler); baseline: backfill events/s.
  static void trainingSet(BenchEnv env) {
    placeholder(env, "6-training-set", "training set over all flights with two features");
  }

  private static void placeholder(BenchEnv env, String name, String what) {
    System.out.println("[" + name + "] " + what + ": not yet available (the feature is being built; see bench/README.md)");
    Report report = new Report(name, env.resultsDir);
    report.detail("status", "not yet available");
    report.detail("measures", Map.of("what", what));
    report.write();
  }
}
