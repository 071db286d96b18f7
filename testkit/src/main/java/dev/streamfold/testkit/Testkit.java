package dev.streamfold.testkit;

import dev.streamfold.deploy.process.PulsarStandaloneProcess;
import dev.streamfold.deploy.process.ReactorPaths;
import dev.streamfold.deploy.process.RedisServerProcess;
import dev.streamfold.deploy.process.S3ProxyProcess;
import dev.streamfold.deploy.process.TieredStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real servers for integration tests, each started once per test JVM on free ports and stopped when
 * the JVM exits. Tests isolate themselves with {@link #uniqueName(String)} (tenants, views, key prefixes).
 */
public final class Testkit {
  private static final AtomicInteger COUNTER = new AtomicInteger();
  /** Bucket of the shared S3 endpoint. */
  public static final String S3_BUCKET = "streamfold-test";
  /** Entries per ledger segment of the shared broker: small, so that tests get many closed segments. */
  public static final int PULSAR_MAX_ENTRIES_PER_LEDGER = 50;
  /** Time after an offload at which the shared broker deletes the local copy, in milliseconds. */
  public static final long OFFLOAD_DELETION_LAG_MS = 2_000;
  /** How often the shared broker looks for local copies to delete, in seconds. */
  public static final int RETENTION_CHECK_INTERVAL_SECONDS = 5;

  private static PulsarStandaloneProcess pulsar;
  private static RedisServerProcess redis;
  private static S3ProxyProcess s3;
  private static Path workDir;

  private Testkit() {}

  /**
   * Return the shared Pulsar standalone broker, starting it on first use (20-30 s, plus the S3 endpoint's
   * 3-5 s). It offloads to {@link #s3()} (when told to: no automatic offload threshold is set) with small
   * segments ({@value #PULSAR_MAX_ENTRIES_PER_LEDGER} entries, no minimum age), deletes local copies
   * {@value #OFFLOAD_DELETION_LAG_MS} ms after an offload and checks every
   * {@value #RETENTION_CHECK_INTERVAL_SECONDS} s; retention is infinite.
   *
   * @return the running broker
   * @throws IllegalStateException if it cannot start (the message quotes its log)
   */
  public static synchronized PulsarStandaloneProcess pulsar() {
    if (pulsar == null) {
      TieredStorage offload = TieredStorage.builder(s3())
          .smallSegments(PULSAR_MAX_ENTRIES_PER_LEDGER)
          .deletionLagMs(OFFLOAD_DELETION_LAG_MS)
          .retentionCheckIntervalSeconds(RETENTION_CHECK_INTERVAL_SECONDS)
          .build();
      pulsar = PulsarStandaloneProcess.start(workDir().resolve("pulsar"), 0, 0, 0, offload);
      Runtime.getRuntime().addShutdownHook(new Thread(pulsar::close, "testkit-stop-pulsar"));
    }
    return pulsar;
  }

  /**
   * Return the shared S3 endpoint (s3proxy, filesystem backend, bucket {@value #S3_BUCKET}, credentials
   * made up for this JVM), starting it on first use (3-5 s). A test that stops it must
   * {@link S3ProxyProcess#restart()} it before it ends.
   *
   * @return the running endpoint
   * @throws IllegalStateException if it cannot start (the message quotes its log)
   */
  public static synchronized S3ProxyProcess s3() {
    if (s3 == null) {
      String id = "testkit-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
      String secret = java.util.UUID.randomUUID().toString();
      s3 = S3ProxyProcess.start(workDir().resolve("s3"), 0, S3_BUCKET, id, secret);
      Runtime.getRuntime().addShutdownHook(new Thread(s3::close, "testkit-stop-s3"));
    }
    return s3;
  }

  /**
   * Return the shared redis-server, starting it on first use.
   *
   * @return the running server
   * @throws IllegalStateException if redis-server is missing (the message says what to install)
   */
  public static synchronized RedisServerProcess redis() {
    if (redis == null) {
      redis = RedisServerProcess.start(workDir().resolve("redis"), 0, false);
      Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "testkit-stop-redis"));
    }
    return redis;
  }

  /**
   * Return a fresh directory for this test JVM's server data, under {@code target/testkit} of the
   * module being tested.
   *
   * @return the directory (created)
   */
  public static synchronized Path workDir() {
    if (workDir == null) {
      try {
        Path base = Path.of(System.getProperty("user.dir"), "target", "testkit");
        Files.createDirectories(base);
        workDir = Files.createTempDirectory(base, "run-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return workDir;
  }

  /**
   * Return a name unique within this JVM run, usable as a Pulsar tenant, stream or view name.
   *
   * @param prefix lowercase letters/digits, e.g. "t"
   * @return e.g. {@code t-3-k2x9}
   */
  public static String uniqueName(String prefix) {
    return prefix + "-" + COUNTER.incrementAndGet() + "-"
        + Long.toString(System.nanoTime() % 1_000_000, 36).toLowerCase(Locale.ROOT);
  }

  /**
   * Return a file of the source tree, e.g. a committed test fixture.
   *
   * @param relative path relative to the reactor root
   * @return the absolute path
   */
  public static Path sourceFile(String relative) {
    return ReactorPaths.root().resolve(relative);
  }
}
