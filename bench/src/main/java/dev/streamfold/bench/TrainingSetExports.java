package dev.streamfold.bench;

import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ExportTrainingSetResponse;
import dev.streamfold.api.v1.TrainingSetDone;
import dev.streamfold.api.v1.TrainingSetProgress;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One training-set build over {@code ExportTrainingSet}, timed from the call until its {@code done}. */
final class TrainingSetExports {
  /** The longest a build may take. */
  static final Duration TIMEOUT = Duration.ofMinutes(30);

  private TrainingSetExports() {}

  /**
   * What a build gave.
   *
   * @param done its done message, or null when the stream ended without one
   * @param last its last progress message, or null
   * @param seconds from the call until the stream ended
   * @param peakMib peak RSS of each process sampled meanwhile, MiB
   * @param firstReadSeconds when a progress message first reported events read, or -1
   * @param allReadSeconds when one first reported every event to read as read, or -1
   */
  record Export(TrainingSetDone done, TrainingSetProgress last, double seconds, Map<String, Double> peakMib,
      double firstReadSeconds, double allReadSeconds) {}

  /**
   * Run one build and follow it to its end, sampling the RSS of {@code pids} every 100 ms.
   *
   * @param sf the client
   * @param request the build
   * @param pids the processes whose peak RSS to report
   * @return what it gave
   */
  static Export run(Streamfold sf, ExportTrainingSetRequest request, Map<String, Long> pids) throws Exception {
    TrainingSetDone done = null;
    TrainingSetProgress last = null;
    double firstRead = -1;
    double allRead = -1;
    try (RssSampler sampler = RssSampler.start(pids, 100)) {
      long t0 = System.nanoTime();
      Iterator<ExportTrainingSetResponse> responses = sf.replay()
          .withDeadlineAfter(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).exportTrainingSet(request);
      while (responses.hasNext()) {
        ExportTrainingSetResponse r = responses.next();
        if (r.hasProgress()) {
          last = r.getProgress();
          if (firstRead < 0 && last.getEventsRead() > 0) {
            firstRead = (System.nanoTime() - t0) / 1e9;
          }
          if (allRead < 0 && last.getTargetEvents() > 0 && last.getEventsRead() >= last.getTargetEvents()) {
            allRead = (System.nanoTime() - t0) / 1e9;
          }
        } else if (r.hasDone()) {
          done = r.getDone();
        }
      }
      return new Export(done, last, (System.nanoTime() - t0) / 1e9, sampler.peaksMib(), firstRead, allRead);
    }
  }
}
