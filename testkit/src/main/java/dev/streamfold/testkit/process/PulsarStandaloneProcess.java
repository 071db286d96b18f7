package dev.streamfold.testkit.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Pulsar 4.0.8 standalone broker (with one bookie and a RocksDB metadata store) in its own JVM,
 * on loopback, started from the Maven-resolved broker classpath (STACK.md "Pulsar standalone, as its
 * own process").
 */
public final class PulsarStandaloneProcess implements AutoCloseable {
  /** Longest wait for the admin REST API to answer: 17-26 s from empty data on 2 cores (STACK.md). */
  public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(180);

  private final ManagedProcess process;
  private final int brokerPort;
  private final int webPort;
  private final int bookiePort;
  private final Path dataDir;

  private PulsarStandaloneProcess(ManagedProcess process, int brokerPort, int webPort, int bookiePort,
      Path dataDir) {
    this.process = process;
    this.brokerPort = brokerPort;
    this.webPort = webPort;
    this.bookiePort = bookiePort;
    this.dataDir = dataDir;
  }

  /**
   * Start a standalone broker with its data under {@code dataDir} and wait until its admin API answers.
   *
   * @param dataDir directory for metadata, bookie data, config and log (created when missing; reused
   *     data is kept: the ledger survives restarts)
   * @param brokerPort binary protocol port on 127.0.0.1, or 0 for a free one
   * @param webPort admin REST port on 127.0.0.1, or 0 for a free one
   * @param bookiePort bookie port on 127.0.0.1, or 0 for a free one
   * @return the running broker
   * @throws IllegalStateException if a requested port is taken (the message names it), or the broker
   *     exits or is not ready within {@link #DEFAULT_START_TIMEOUT}
   */
  public static PulsarStandaloneProcess start(Path dataDir, int brokerPort, int webPort, int bookiePort) {
    int broker = port(brokerPort, "Pulsar broker");
    int web = port(webPort, "Pulsar admin (web)");
    int bookie = port(bookiePort, "BookKeeper bookie");
    Path dir = dataDir.toAbsolutePath();
    try {
      Files.createDirectories(dir);
      Path conf = dir.resolve("standalone.conf");
      Files.writeString(conf, config(broker, web, bookie));
      Path argFile = dir.resolve("java-args.txt");
      Files.writeString(argFile, "-cp\n" + ReactorPaths.pulsarClasspath() + "\n");
      List<String> cmd = new ArrayList<>();
      cmd.add(javaBinary());
      cmd.addAll(List.of("-Xms512m", "-Xmx1g", "-XX:MaxDirectMemorySize=1g",
          "-Dio.netty.tryReflectionSetAccessible=true",
          "--add-opens", "java.base/java.lang=ALL-UNNAMED",
          "--add-opens", "java.base/java.nio=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.platform=ALL-UNNAMED",
          "--add-opens", "java.management/sun.management=ALL-UNNAMED",
          "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
          "-Dpulsar.allocator.exit_on_oom=true",
          "-Dstreamfold.role=pulsar",
          "@" + argFile,
          "org.apache.pulsar.PulsarStandaloneStarter",
          "--config", conf.toString(), "-nfw", "-nss",
          "--metadata-dir", dir.resolve("metadata").toString(),
          "--bookkeeper-dir", dir.resolve("bookkeeper").toString(),
          "--bookkeeper-port", Integer.toString(bookie)));
      ManagedProcess process = ManagedProcess.start("pulsar", cmd, dir, dir.resolve("pulsar.log"));
      PulsarStandaloneProcess pulsar = new PulsarStandaloneProcess(process, broker, web, bookie, dir);
      try {
        process.awaitReady(DEFAULT_START_TIMEOUT, pulsar::adminAnswers);
      } catch (RuntimeException e) {
        process.close();
        throw e;
      }
      return pulsar;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare Pulsar data directory " + dir, e);
    }
  }

  private static int port(int requested, String what) {
    if (requested == 0) {
      return FreePorts.pick();
    }
    if (!FreePorts.isFree(requested)) {
      throw new IllegalStateException(what + " port " + requested + " on 127.0.0.1 is in use");
    }
    return requested;
  }

  static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static String config(int broker, int web, int bookie) {
    return String.join("\n",
        "clusterName=standalone",
        "bindAddress=127.0.0.1",
        "advertisedAddress=127.0.0.1",
        "brokerServicePort=" + broker,
        "webServicePort=" + web,
        "bookiePort=" + bookie,
        "listeningInterface=lo",
        "allowLoopback=true",
        "allowEphemeralPorts=true",
        "managedLedgerDefaultEnsembleSize=1",
        "managedLedgerDefaultWriteQuorum=1",
        "managedLedgerDefaultAckQuorum=1",
        "functionsWorkerEnabled=false",
        "transactionCoordinatorEnabled=false",
        "systemTopicEnabled=true",
        "topicLevelPoliciesEnabled=true",
        "dbStorage_writeCacheMaxSizeMb=32",
        "dbStorage_readAheadCacheMaxSizeMb=32",
        "defaultRetentionTimeInMinutes=-1",
        "defaultRetentionSizeInMB=-1",
        "brokerDeduplicationEnabled=true",
        "allowAutoTopicCreation=true",
        "allowAutoTopicCreationType=non-partitioned",
        "brokerDeleteInactiveTopicsEnabled=false",
        "maxMessageSize=5242880",
        "") ;
  }

  private boolean adminAnswers() {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      HttpResponse<String> response = http.send(
          HttpRequest.newBuilder(URI.create(adminUrl() + "/admin/v2/clusters"))
              .timeout(Duration.ofSeconds(5)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 && response.body().contains("standalone");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Binary protocol URL, e.g. {@code pulsar://127.0.0.1:6650}. */
  public String serviceUrl() {
    return "pulsar://127.0.0.1:" + brokerPort;
  }

  /** Admin REST URL, e.g. {@code http://127.0.0.1:8080}. */
  public String adminUrl() {
    return "http://127.0.0.1:" + webPort;
  }

  public int brokerPort() {
    return brokerPort;
  }

  public int webPort() {
    return webPort;
  }

  public int bookiePort() {
    return bookiePort;
  }

  public Path dataDir() {
    return dataDir;
  }

  public long pid() {
    return process.pid();
  }

  /** Stop the broker (SIGTERM, then SIGKILL after 20 s). */
  @Override
  public void close() {
    process.close();
  }
}
