package dev.streamfold.bench;

import java.util.List;

/**
 * Entry point of the benchmark programs: {@code BenchMain <benchmark> --data-dir DIR [--flag value ...]}.
 * Benchmarks: {@code ingest} (1), {@code backfill} (2 and 7: backfill, peak RSS, state size vs keys),
 * {@code freshness} (3), {@code serving} (4), {@code replay} (5), {@code training-set} (6) (a placeholder
 * result when the server does not implement ExportTrainingSet), and {@code summary}, which merges the results files into one results file and a table.
 * {@code jfr-top} prints the hottest methods of a JFR recording; {@code compare --before DIR --after DIR} prints
 * a before/after table of two runs' results.
 */
public final class BenchMain {
  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: BenchMain ingest|backfill|freshness|serving|replay|training-set|summary|jfr-top|compare"
          + " --data-dir DIR [--name value ...]");
      System.exit(2);
    }
    String benchmark = args[0];
    String[] rest = List.of(args).subList(1, args.length).toArray(new String[0]);
    switch (benchmark) {
      case "ingest" -> new IngestBench(new BenchEnv(rest)).run();
      case "backfill" -> new BackfillBench(new BenchEnv(rest)).run();
      case "freshness" -> new FreshnessBench(new BenchEnv(rest)).run();
      case "serving" -> new ServingBench(new BenchEnv(rest)).run();
      case "replay" -> new ReplayBench(new BenchEnv(rest)).run();
      case "training-set" -> {
        BenchEnv env = new BenchEnv(rest);
        try {
          new TrainingSetBench(env).run();
          if (TrainingAcrossStreamsBench.wanted(env)) {
            new TrainingAcrossStreamsBench(env).run();
            new TrainingFromFileBench(env).run();
          }
        } catch (io.grpc.StatusRuntimeException e) {
          if (e.getStatus().getCode() != io.grpc.Status.Code.UNIMPLEMENTED) {
            throw e;
          }
          NotYetAvailable.trainingSet(env); // a server built before ExportTrainingSet existed
        }
      }
      case "training-from-file" -> new TrainingFromFileBench(new BenchEnv(rest)).run();
      case "summary" -> Summary.main(rest);
      case "jfr-top" -> JfrTop.main(rest);
      case "compare" -> Compare.main(rest);
      default -> {
        System.err.println("unknown benchmark '" + benchmark + "'");
        System.exit(2);
      }
    }
    System.exit(0); // gRPC, Pulsar and lettuce threads would keep the JVM alive
  }
}
