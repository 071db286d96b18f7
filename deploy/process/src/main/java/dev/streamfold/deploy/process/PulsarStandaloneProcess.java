package dev.streamfold.deploy.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Pulsar 4.0.8 standalone broker (with one bookie and a RocksDB metadata store) in its own JVM,
 * on loopback, started from the Maven-resolved broker classpath (docs/stack.md "Pulsar standalone, as its
 * own process"), optionally offloading closed ledger segments to S3 ({@link TieredStorage}).
 */
public final class PulsarStandaloneProcess implements AutoCloseable {
  /** Longest wait for the admin REST API to answer: 17-26 s from empty data on 2 cores (docs/stack.md). */
  public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(180);
  /**
   * Directory under the data directory (the broker's working directory) holding the offloader NAR: the
   * absolute {@code offloadersDirectory} and the {@code ./offloaders} that namespace policies use.
   */
  public static final String OFFLOADERS_DIR = "offloaders";
  /** Directory under the data directory where the broker unpacks NARs (instead of a shared /tmp folder). */
  public static final String NAR_EXTRACTION_DIR = "nar";

  private final ManagedProcess process;
  private final int brokerPort;
  private final int webPort;
  private final int bookiePort;
  private final int bookieHttpPort;
  private final Path dataDir;
  private final TieredStorage tieredStorage;

  private PulsarStandaloneProcess(ManagedProcess process, int brokerPort, int webPort, int bookiePort,
      int bookieHttpPort, Path dataDir, TieredStorage tieredStorage) {
    this.process = process;
    this.brokerPort = brokerPort;
    this.webPort = webPort;
    this.bookiePort = bookiePort;
    this.bookieHttpPort = bookieHttpPort;
    this.dataDir = dataDir;
    this.tieredStorage = tieredStorage;
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
    return launch(dataDir, brokerPort, webPort, bookiePort, null);
  }

  /**
   * Start a standalone broker that offloads closed ledger segments to S3, with its data under
   * {@code dataDir}, and wait until its admin API answers. The offloader NAR is copied to
   * {@code <dataDir>/offloaders}, named by absolute path in the config and found there as
   * {@code ./offloaders} too (the broker's working directory is {@code dataDir}); the credentials go to
   * the broker's environment only.
   *
   * @param dataDir directory for metadata, bookie data, config, offloader and log (created when missing;
   *     reused data is kept: the ledger survives restarts)
   * @param brokerPort binary protocol port on 127.0.0.1, or 0 for a free one
   * @param webPort admin REST port on 127.0.0.1, or 0 for a free one
   * @param bookiePort bookie port on 127.0.0.1, or 0 for a free one
   * @param tieredStorage where and how to offload
   * @return the running broker
   * @throws NullPointerException if tieredStorage is null
   * @throws IllegalStateException if the credentials are missing from both {@code tieredStorage} and this
   *     JVM's environment (the message names {@value TieredStorage#ENV_ACCESS_KEY_ID} and
   *     {@value TieredStorage#ENV_ACCESS_KEY_SECRET}), the offloader NAR has not been built, a requested port
   *     is taken (the message names it), or the broker exits or is not ready within
   *     {@link #DEFAULT_START_TIMEOUT}
   */
  public static PulsarStandaloneProcess start(Path dataDir, int brokerPort, int webPort, int bookiePort,
      TieredStorage tieredStorage) {
    Objects.requireNonNull(tieredStorage, "tieredStorage");
    return launch(dataDir, brokerPort, webPort, bookiePort, tieredStorage);
  }

  private static PulsarStandaloneProcess launch(Path dataDir, int brokerPort, int webPort, int bookiePort,
      TieredStorage tieredStorage) {
    Path dir = dataDir.toAbsolutePath().normalize();
    Map<String, String> environment = tieredStorage == null ? Map.of()
        : tieredStorage.brokerEnvironment(System.getenv());
    Path narSource = tieredStorage == null ? null : ReactorPaths.offloadersDir();
    int broker = port(brokerPort, "Pulsar broker");
    int web = port(webPort, "Pulsar admin (web)");
    int bookie = port(bookiePort, "BookKeeper bookie");
    int bookieHttp = tieredStorage == null ? 0 : FreePorts.pick();
    try {
      Files.createDirectories(dir);
      if (tieredStorage != null) {
        copyOffloaders(narSource, dir.resolve(OFFLOADERS_DIR));
      }
      Path conf = dir.resolve("standalone.conf");
      Files.writeString(conf, config(broker, web, bookie, bookieHttp, dir, tieredStorage));
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
      ManagedProcess process = ManagedProcess.start("pulsar", cmd, dir, dir.resolve("pulsar.log"), environment);
      PulsarStandaloneProcess pulsar = new PulsarStandaloneProcess(process, broker, web, bookie, bookieHttp, dir,
          tieredStorage);
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

  /** Copy the offloader NARs to the broker's own directory (replacing older copies). */
  private static void copyOffloaders(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (var nars = Files.list(from)) {
      for (Path nar : (Iterable<Path>) nars.filter(f -> f.getFileName().toString().endsWith(".nar"))::iterator) {
        Path target = to.resolve(nar.getFileName());
        if (!Files.exists(target) || Files.size(target) != Files.size(nar)
            || Files.getLastModifiedTime(target).compareTo(Files.getLastModifiedTime(nar)) < 0) {
          Files.copy(nar, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
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

  /**
   * Return the broker's config file content.
   *
   * @param broker binary protocol port
   * @param web admin REST port
   * @param bookie bookie port
   * @param bookieHttp port of the bookie's admin REST API, or 0 to leave it off
   * @param dataDir the broker's absolute data (and working) directory
   * @param tieredStorage the offload, or null for none
   * @return {@code key=value} lines; never a credential
   */
  static String config(int broker, int web, int bookie, int bookieHttp, Path dataDir, TieredStorage tieredStorage) {
    List<String> lines = new ArrayList<>(List.of(
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
        "maxMessageSize=5242880"));
    if (bookieHttp != 0) {
      lines.addAll(List.of(
          "httpServerEnabled=true",
          "httpServerHost=127.0.0.1",
          "httpServerPort=" + bookieHttp,
          "httpServerClass=org.apache.bookkeeper.http.vertx.VertxHttpServer"));
    }
    if (tieredStorage != null) {
      lines.addAll(tieredStorage.brokerConfig(dataDir.resolve(OFFLOADERS_DIR), dataDir.resolve(NAR_EXTRACTION_DIR)));
    }
    lines.add("");
    return String.join("\n", lines);
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

  /**
   * Return the port of the bookie's admin REST API (BookKeeper's own, e.g.
   * {@code GET /api/v1/ledger/list/}), on 127.0.0.1; it is on when the broker offloads, so that local
   * deletion of offloaded ledgers can be verified.
   *
   * @return the port, or 0 when the API is off
   */
  public int bookieHttpPort() {
    return bookieHttpPort;
  }

  /**
   * Return the ids of the ledgers the bookie holds, asked from BookKeeper's admin REST API (not the
   * broker): an offloaded ledger whose local copy has been deleted is not among them.
   *
   * @return ledger ids, ascending
   * @throws IllegalStateException if the API is off ({@link #bookieHttpPort()} is 0) or does not answer 200
   * @throws UncheckedIOException if the request fails
   */
  public SortedSet<Long> bookieLedgers() {
    if (bookieHttpPort == 0) {
      throw new IllegalStateException("the bookie admin API is off: start the broker with tiered storage");
    }
    String url = "http://127.0.0.1:" + bookieHttpPort + "/api/v1/ledger/list/?print_metadata=false";
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
          .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("GET " + url + " answered " + response.statusCode() + ": " + response.body());
      }
      // {"12" : null, "13" : null}: the keys are the ledger ids
      SortedSet<Long> ids = new TreeSet<>();
      Matcher m = Pattern.compile("\"(\\d+)\"\\s*:").matcher(response.body());
      while (m.find()) {
        ids.add(Long.parseLong(m.group(1)));
      }
      return ids;
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + url + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during GET " + url, e);
    }
  }

  /**
   * Return the offload of this broker.
   *
   * @return the tiered storage options, or empty when it does not offload
   */
  public Optional<TieredStorage> tieredStorage() {
    return Optional.ofNullable(tieredStorage);
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
