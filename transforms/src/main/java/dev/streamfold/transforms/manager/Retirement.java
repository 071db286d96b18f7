package dev.streamfold.transforms.manager;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The rule of which versions of a view are removed once a newer one is served: every version below the served
 * one that no job fills any more and that still has rows in Redis. A version with a running job (e.g. an
 * update's build, or a rebuild still replacing it) is kept; the served version and newer ones are never
 * removed. Pure, so that {@link ViewVersions#retire} is unit-tested without Redis or Flink.
 */
final class Retirement {
  private Retirement() {}

  /**
   * The versions to drop now.
   *
   * @param served the version readers are served (0 when none yet: nothing is dropped)
   * @param retiredBelow the served version up to which older versions were already retired (0 when never)
   * @param hasJob whether a job still fills a version
   * @param stored whether a version still has rows (its metadata) in Redis
   * @return the versions to drop, ascending; empty when {@code served} has not moved past {@code retiredBelow}
   */
  static List<Integer> versionsToDrop(int served, int retiredBelow, IntPredicate hasJob, IntPredicate stored) {
    List<Integer> drop = new ArrayList<>();
    if (served <= 0 || served <= retiredBelow) {
      return drop;
    }
    for (int v = 1; v < served; v++) {
      if (!hasJob.test(v) && stored.test(v)) {
        drop.add(v);
      }
    }
    return drop;
  }

  /**
   * Whether an update is served, so that it becomes the transformation and the version it replaced is retired.
   *
   * @param served the version readers are served
   * @param updateVersion the update's version
   * @return true once readers see the update's version or a newer one
   */
  static boolean updateServed(int served, int updateVersion) {
    return served >= updateVersion;
  }
}
