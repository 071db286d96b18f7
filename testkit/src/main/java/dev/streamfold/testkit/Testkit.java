package dev.streamfold.testkit;

import dev.streamfold.testkit.process.PulsarStandaloneProcess;
import dev.streamfold.testkit.process.ReactorPaths;
import dev.streamfold.testkit.process.RedisServerProcess;
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
  private static PulsarStandaloneProcess pulsar;
  private static RedisServerProcess redis;
  private static Path workDir;

  private Testkit() {}

  /**
   * Return the shared Pulsar standalone broker, starting it on first use (20-30 s).
   *
   * @return the running broker
   * @throws IllegalStateException if it cannot start (the message quotes its log)
   */
  public static synchronized PulsarStandaloneProcess pulsar() {
    if (pulsar == null) {
      pulsar = PulsarStandaloneProcess.start(workDir().resolve("pulsar"), 0, 0, 0);
      Runtime.getRuntime().addShutdownHook(new Thread(pulsar::close, "testkit-stop-pulsar"));
    }
    return pulsar;
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
