package dev.streamfold.deploy.local.stack;

import dev.streamfold.deploy.local.stack.StackState.ProcessRecord;
import dev.streamfold.deploy.local.stack.StackStatus.ProcessStatus;
import dev.streamfold.deploy.process.FreePorts;
import dev.streamfold.deploy.process.ManagedProcess;
import dev.streamfold.deploy.process.PulsarStandaloneProcess;
import dev.streamfold.deploy.process.ReactorPaths;
import dev.streamfold.deploy.process.RedisServerProcess;
import dev.streamfold.deploy.process.S3ProxyProcess;
import dev.streamfold.deploy.process.TieredStorage;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The local stack (the embedded default of docs/design.md "deploy"): an S3 endpoint (s3proxy), a Pulsar
 * standalone broker that offloads closed ledger segments to it, a redis-server and the Streamfold server,
 * each its own process on loopback, with all data under one directory. The processes outlive the command
 * that starts them; {@link #down()} stops them. Several stacks with different data directories run side
 * by side (every port is a free one).
 *
 * <pre>
 * &lt;data dir&gt;/stack.json       the state file: pids, ports, data dirs, logs ({@link StackState})
 * &lt;data dir&gt;/s3/              s3proxy: buckets/{@value #S3_BUCKET}/ (offloaded segments), credentials
 *                              (mode 600, made up once), s3proxy.properties (mode 600), s3proxy.log
 * &lt;data dir&gt;/pulsar/          Pulsar metadata, bookie data, offloaders/, standalone.conf, pulsar.log
 * &lt;data dir&gt;/redis/           appendonly files, redis.log
 * &lt;data dir&gt;/server/          the server's data, server.log, ready.json, tmp/
 * </pre>
 *
 * <p>The broker's segments close after {@value #LOCAL_MAX_ENTRIES_PER_LEDGER} entries; an offloaded segment's local
 * copy is deleted after {@link StackOptions#offloadDeletionLag()} (default 4 hours). Retention is infinite: nothing is
 * ever trimmed. Offloads start when a tenant's offload threshold is reached (a namespace policy, set by the
 * ledger) or on request.
 */
public final class LocalStack {
  /** Environment variable overriding the default data directory. */
  public static final String ENV_DATA_DIR = "STREAMFOLD_DATA";
  /** Default data directory name, under the source tree's root. */
  public static final String DEFAULT_DATA_DIR_NAME = ".streamfold";
  /** Time each process is given to exit after SIGTERM before SIGKILL. */
  public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(30);
  /** Entries per ledger segment of the local stack's broker. */
  public static final int LOCAL_MAX_ENTRIES_PER_LEDGER = 500;
  /**
   * The bucket of the local S3 endpoint. Every offloaded segment's metadata names its bucket: never
   * change it for an existing data directory.
   */
  public static final String S3_BUCKET = "streamfold-ledger";

  static final String PULSAR = "pulsar";
  static final String REDIS = "redis";
  static final String SERVER = "server";
  static final String S3 = "s3";

  private final StackOptions options;
  private final PrintStream out;
  /** Ports chosen by this {@link #up()}: never hand out one twice. */
  private final Set<Integer> reserved = new HashSet<>();
  /** BookKeeper's admin REST URL of the running broker, which tells the server which segments are still local. */
  private String bookieAdminUrl;

  /**
   * Create a handle on the local stack of {@code options.dataDir()}; nothing starts yet.
   *
   * @param options data directory, ports, timeouts
   * @param out where progress messages go (e.g. {@code System.out})
   */
  public LocalStack(StackOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /**
   * Return the default data directory: {@code $STREAMFOLD_DATA} when set, else {@code .streamfold} under
   * the source tree's root (found from {@code -Dstreamfold.home} or the working directory), else under
   * the working directory.
   *
   * @return an absolute path
   */
  public static Path defaultDataDir() {
    String env = System.getenv(ENV_DATA_DIR);
    if (env != null && !env.isBlank()) {
      return Path.of(env).toAbsolutePath().normalize();
    }
    try {
      return ReactorPaths.root().resolve(DEFAULT_DATA_DIR_NAME);
    } catch (IllegalStateException outsideTree) {
      return Path.of(System.getProperty("user.dir")).toAbsolutePath().resolve(DEFAULT_DATA_DIR_NAME);
    }
  }

  /** The data directory. */
  /**
   * Read the admin token of this stack's server ({@code <data dir>/server/admin-token}, mode 600, written by
   * the server at its first start).
   *
   * @return the admin token text
   * @throws java.io.UncheckedIOException if the server never started in this data directory
   * @throws IllegalStateException if the file does not hold a token
   */
  public String adminToken() {
    return dev.streamfold.core.AdminToken.read(options.dataDir().resolve(SERVER));
  }

  public Path dataDir() {
    return options.dataDir();
  }

  /** The state file, {@code <data dir>/stack.json}. */
  public Path stateFile() {
    return options.dataDir().resolve(StackState.FILE_NAME);
  }

  /**
   * Read the state file.
   *
   * @return the state, or empty when the stack was never started in this data directory
   * @throws UncheckedIOException if the file exists but cannot be parsed
   */
  public Optional<StackState> state() {
    return StackState.read(stateFile());
  }

  /**
   * Tell which processes of the stack run: a process runs when its recorded pid is alive and is the
   * very process the stack started (same start time, command line naming its data directory).
   *
   * @return the status of pulsar, redis, server and s3, in this order
   */
  public StackStatus status() {
    Optional<StackState> state = state();
    List<ProcessStatus> processes = new ArrayList<>();
    StackState s = state.orElse(null);
    processes.add(statusOf(PULSAR, s == null ? null : s.pulsar()));
    processes.add(statusOf(REDIS, s == null ? null : s.redis()));
    processes.add(statusOf(SERVER, s == null ? null : s.server()));
    processes.add(statusOf(S3, s == null ? null : s.s3()));
    return new StackStatus(options.dataDir(), state, List.copyOf(processes));
  }

  private static ProcessStatus statusOf(String name, ProcessRecord record) {
    return new ProcessStatus(name, record, ProcessCheck.find(record).isPresent());
  }

  /**
   * Start the stack: the S3 endpoint, Pulsar, Redis, then the Streamfold server, each waited for (bounded). Does
   * nothing but say so when everything already runs; stops leftovers first when only part runs.
   * Ports of the previous run are reused when still free.
   *
   * @return the state of the running stack
   * @throws LocalStackException if a process does not start or get ready in time (the message names it
   *     and quotes the end of its log; whatever this call started is stopped again), or another command
   *     is starting or stopping the same stack
   */
  public StackState up() {
    StackStatus before = status();
    if (before.allRunning()) {
      out.println("The local stack is already running (data dir " + options.dataDir() + ").");
      return before.state().orElseThrow();
    }
    Optional<Path> setsid = options.detached() ? findSetsid() : Optional.empty();
    if (setsid.isPresent()) {
      return upDetached(setsid.get());
    }
    return upHere();
  }

  /**
   * Start the stack from this JVM (the processes become its children). Used by the detached helper
   * {@link LocalStackLauncher}, and directly when {@code setsid} is missing.
   */
  StackState upHere() {
    try (FileLock lock = lock()) {
      StackStatus before = status();
      if (before.allRunning()) {
        out.println("The local stack is already running (data dir " + options.dataDir() + ").");
        return before.state().orElseThrow();
      }
      if (before.anyRunning()) {
        out.println("Only part of the local stack runs; stopping it to start all processes together.");
        stopAll(before.state().orElseThrow());
      }
      StackState previous = before.state().orElse(StackState.empty(options.dataDir()));
      return start(previous);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private StackState start(StackState previous) {
    Path data = options.dataDir();
    // Keep the previous (stopped) records until each process is replaced: a failed start must not forget
    // the ports to reuse. Stopping them again is harmless: a record only matches its very process.
    StackState state = new StackState(StackState.FORMAT_VERSION, data.toString(), previous.pulsar(),
        previous.redis(), previous.server(), previous.s3(), 0).write(stateFile(), now());
    long startNanos = System.nanoTime();
    try {
      Path s3Dir = data.resolve(S3);
      S3Credentials credentials = S3Credentials.loadOrCreate(s3Dir.resolve(S3Credentials.FILE_NAME));
      int s3Port = port(options.s3Port(), previous.s3(), ProcessRecord.PORT_S3);
      out.println("Starting the S3 endpoint (s3proxy, its own JVM; objects under " + s3Dir.resolve(
          S3ProxyProcess.BUCKETS_DIR) + ") ...");
      long t0 = System.nanoTime();
      S3ProxyProcess s3 = S3ProxyProcess.start(s3Dir, s3Port, S3_BUCKET, credentials.accessKeyId(),
          credentials.secretAccessKey());
      state = state.withS3(new ProcessRecord(S3, s3.pid(), ProcessCheck.startedAtMs(s3.pid()),
          s3.propertiesFile().toString(), s3Dir.toString(), s3.logFile().toString(),
          Map.of(ProcessRecord.PORT_S3, s3.port()))).write(stateFile(), now());
      out.println("  S3 endpoint ready in " + seconds(t0) + " s (pid " + s3.pid() + ", " + s3.endpoint() + ", bucket "
          + S3_BUCKET + ")");

      Path pulsarDir = data.resolve(PULSAR);
      int brokerPort = port(options.brokerPort(), previous.pulsar(), ProcessRecord.PORT_BROKER);
      int webPort = port(options.webPort(), previous.pulsar(), ProcessRecord.PORT_WEB);
      int bookiePort = bookiePort(pulsarDir, previous.pulsar());
      out.println("Starting Pulsar standalone (its own JVM); waiting until its admin API answers (up to "
          + PulsarStandaloneProcess.DEFAULT_START_TIMEOUT.toSeconds() + " s; log "
          + pulsarDir.resolve("pulsar.log") + ") ...");
      t0 = System.nanoTime();
      PulsarStandaloneProcess pulsar = PulsarStandaloneProcess.start(pulsarDir, brokerPort, webPort, bookiePort,
          tieredStorage(s3.endpoint(), credentials, options.offloadDeletionLag()));
      Map<String, Integer> pulsarPorts = new LinkedHashMap<>();
      pulsarPorts.put(ProcessRecord.PORT_BROKER, pulsar.brokerPort());
      pulsarPorts.put(ProcessRecord.PORT_WEB, pulsar.webPort());
      pulsarPorts.put(ProcessRecord.PORT_BOOKIE, pulsar.bookiePort());
      pulsarPorts.put(ProcessRecord.PORT_BOOKIE_HTTP, pulsar.bookieHttpPort());
      state = state.withPulsar(new ProcessRecord(PULSAR, pulsar.pid(), ProcessCheck.startedAtMs(pulsar.pid()),
          pulsarDir.resolve("standalone.conf").toString(), pulsarDir.toString(),
          pulsarDir.resolve("pulsar.log").toString(), pulsarPorts)).write(stateFile(), now());
      out.println("  Pulsar ready in " + seconds(t0) + " s (pid " + pulsar.pid() + ", " + pulsar.serviceUrl()
          + "; offloads to " + s3.endpoint() + ", local copies deleted " + options.offloadDeletionLag().toMinutes()
          + " min after an offload)");

      Path redisDir = data.resolve(REDIS);
      int redisPort = port(options.redisPort(), previous.redis(), ProcessRecord.PORT_REDIS);
      out.println("Starting redis-server (append-only file under " + redisDir + ") ...");
      t0 = System.nanoTime();
      RedisServerProcess redis = RedisServerProcess.start(redisDir, redisPort, true);
      state = state.withRedis(new ProcessRecord(REDIS, redis.pid(), ProcessCheck.startedAtMs(redis.pid()),
          "127.0.0.1:" + redis.port(), redisDir.toString(), redisDir.resolve("redis.log").toString(),
          Map.of(ProcessRecord.PORT_REDIS, redis.port()))).write(stateFile(), now());
      out.println("  Redis ready in " + seconds(t0) + " s (pid " + redis.pid() + ", " + redis.uri() + ")");

      bookieAdminUrl = "http://127.0.0.1:" + pulsar.bookieHttpPort();
      state = startServer(state, previous, pulsar.serviceUrl(), pulsar.adminUrl(), redis.uri());
      out.println("Local stack running (" + seconds(startNanos) + " s): gRPC 127.0.0.1:" + state.grpcPort()
          + ", views over RESP 127.0.0.1:" + state.respPort() + ", metrics " + state.metricsUrl() + ", data "
          + data);
      return state;
    } catch (RuntimeException e) {
      StackState recorded = state;
      try {
        recorded = state().orElse(state);
      } catch (RuntimeException unreadable) {
        // stop what this method knows about
      }
      if (ProcessCheck.find(recorded.pulsar()).isPresent() || ProcessCheck.find(recorded.redis()).isPresent()
          || ProcessCheck.find(recorded.server()).isPresent() || ProcessCheck.find(recorded.s3()).isPresent()) {
        out.println("Start failed; stopping what this command started.");
        stopAll(recorded);
      }
      if (e instanceof LocalStackException) {
        throw e;
      }
      throw new LocalStackException(e.getMessage(), e);
    }
  }

  /**
   * Return the broker's offload to the local S3 endpoint: segments of LOCAL_MAX_ENTRIES_PER_LEDGER entries, the given deletion
   * lag, the credentials for the broker's environment.
   *
   * @param endpoint the S3 endpoint URL
   * @param credentials its credentials
   * @param deletionLag time after an offload at which the local copy is deleted
   * @return the options
   */
  static TieredStorage tieredStorage(String endpoint, S3Credentials credentials, Duration deletionLag) {
    return TieredStorage.builder(java.net.URI.create(endpoint), S3_BUCKET)
        .credentials(credentials.accessKeyId(), credentials.secretAccessKey())
        // Segments close after LOCAL_MAX_ENTRIES_PER_LEDGER entries (broker default: 50,000 entries or 4 h),
        // so the demo's 3,000,000 events (~3,000 batched entries) span several segments that can be offloaded.
        .smallSegments(LOCAL_MAX_ENTRIES_PER_LEDGER)
        .deletionLag(deletionLag)
        .build();
  }

  private StackState startServer(StackState state, StackState previous, String pulsarServiceUrl,
      String pulsarAdminUrl, String redisUri) {
    Path serverDir = options.dataDir().resolve(SERVER);
    Path readyFile = serverDir.resolve("ready.json");
    Path logFile = serverDir.resolve("server.log");
    int grpcPort = port(options.grpcPort(), previous.server(), ProcessRecord.PORT_GRPC);
    int respPort = port(options.respPort(), previous.server(), ProcessRecord.PORT_RESP);
    while (respPort == grpcPort) {
      respPort = FreePorts.pick();
    }
    // Never a fixed port: the previous run's when still free, else a free one (two stacks side by side).
    int metricsPort = port(0, previous.server(), ProcessRecord.PORT_METRICS);
    while (metricsPort == grpcPort || metricsPort == respPort) {
      metricsPort = FreePorts.pick();
    }
    try {
      Files.createDirectories(serverDir.resolve("tmp"));
      Files.deleteIfExists(readyFile);
      Path argFile = serverDir.resolve("java-args.txt");
      String classpath = ServerLauncher.snapshotClasspath(System.getProperty("java.class.path"), serverDir.resolve("lib"));
      Files.writeString(argFile, "-cp\n" + ServerLauncher.quoteArg(classpath) + "\n");
      List<String> cmd = new ArrayList<>(ServerLauncher.serverCommand(argFile, serverDir, pulsarServiceUrl, pulsarAdminUrl, redisUri,
          grpcPort, respPort, metricsPort, readyFile));
      if (bookieAdminUrl != null) {
        cmd.addAll(List.of("--bookie-admin-url", bookieAdminUrl));
      }
      out.println("Starting the Streamfold server (gRPC ingestion, transform manager with Flink, query-service);"
          + " waiting for " + readyFile.getFileName() + " (up to " + options.serverStartTimeout().toSeconds()
          + " s; log " + logFile + ") ...");
      long t0 = System.nanoTime();
      long logOffset = Files.exists(logFile) ? Files.size(logFile) : 0;
      ManagedProcess server = ManagedProcess.start("streamfold-server", cmd, serverDir, logFile);
      Map<String, Integer> ports = new LinkedHashMap<>();
      ports.put(ProcessRecord.PORT_GRPC, grpcPort);
      ports.put(ProcessRecord.PORT_RESP, respPort);
      ports.put(ProcessRecord.PORT_METRICS, metricsPort);
      state = state.withServer(new ProcessRecord(SERVER, server.pid(), ProcessCheck.startedAtMs(server.pid()),
          serverDir.toString(), serverDir.toString(), logFile.toString(), ports)).write(stateFile(), now());
      ServerLauncher.awaitReady(server, readyFile, logFile, logOffset, options.serverStartTimeout());
      int[] ready = ServerLauncher.readyPorts(readyFile);
      if (ready[0] != grpcPort || ready[1] != respPort || ready[2] != metricsPort) {
        throw new LocalStackException("the Streamfold server reports ports grpc " + ready[0] + ", resp "
            + ready[1] + ", metrics " + ready[2] + " in " + readyFile + " but was asked for " + grpcPort + ", "
            + respPort + ", " + metricsPort);
      }
      out.println("  Server ready in " + seconds(t0) + " s (pid " + server.pid() + ")");
      return state;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the server directory " + serverDir, e);
    }
  }

  /**
   * Stop the stack: the server, then Pulsar, Redis and the S3 endpoint (SIGTERM, then SIGKILL after
   * {@link #DEFAULT_STOP_GRACE}, descendants included). The state file stays, so the next {@link #up()}
   * reuses the ports.
   *
   * @return true when something was running and has been stopped
   * @throws LocalStackException if another command is starting or stopping the same stack
   */
  public boolean down() {
    if (!Files.isDirectory(options.dataDir())) {
      out.println("The local stack is not running (no data dir " + options.dataDir() + ").");
      return false;
    }
    try (FileLock lock = lock()) {
      StackStatus status = status();
      if (!status.anyRunning()) {
        out.println("The local stack is not running (data dir " + options.dataDir() + ").");
        return false;
      }
      stopAll(status.state().orElseThrow());
      out.println("Local stack stopped; data kept in " + options.dataDir() + " (start again: streamfold local up).");
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void stopAll(StackState state) {
    stop(state.server(), "Streamfold server");
    stop(state.pulsar(), "Pulsar");
    stop(state.redis(), "Redis");
    stop(state.s3(), "the S3 endpoint");
    try {
      Files.deleteIfExists(options.dataDir().resolve(SERVER).resolve("ready.json"));
    } catch (IOException ignored) {
      // a stale ready file is deleted again before the next start
    }
  }

  private void stop(ProcessRecord record, String what) {
    Optional<ProcessHandle> handle = ProcessCheck.find(record);
    if (handle.isEmpty()) {
      return;
    }
    out.print("Stopping " + what + " (pid " + record.pid() + ") ... ");
    out.flush();
    long t0 = System.nanoTime();
    if (!ProcessCheck.terminate(handle.get(), DEFAULT_STOP_GRACE)) {
      throw new LocalStackException(what + " (pid " + record.pid() + ") or one of its child processes is still"
          + " alive after SIGKILL");
    }
    out.println("stopped in " + seconds(t0) + " s");
  }

  private StackState upDetached(Path setsid) {
    Path data = options.dataDir();
    try {
      Files.createDirectories(data);
      Path argFile = data.resolve("launcher-args.txt");
      Files.writeString(argFile, "-cp\n" + ServerLauncher.quoteArg(System.getProperty("java.class.path")) + "\n");
      List<String> cmd = new ArrayList<>(List.of(setsid.toString(), "--wait", ServerLauncher.javaBinary(), "-Xmx256m",
          "-XX:+UseSerialGC", "-Dstreamfold.role=launcher"));
      String home = System.getProperty("streamfold.home");
      if (home != null) {
        cmd.add("-Dstreamfold.home=" + home);
      }
      cmd.add("@" + argFile);
      cmd.add(LocalStackLauncher.class.getName());
      cmd.addAll(LocalStackLauncher.arguments(options));
      ProcessBuilder builder = new ProcessBuilder(cmd).inheritIO();
      builder.environment().remove("JAVA_TOOL_OPTIONS");
      out.flush();
      int code = builder.start().waitFor();
      if (code != 0) {
        throw new LocalStackException("the local stack did not start (details above; data dir " + data + ")");
      }
      return state().orElseThrow(() -> new LocalStackException("the local stack started but " + stateFile()
          + " is missing"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the local stack helper", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LocalStackException("interrupted while the local stack was starting; see `streamfold local status`");
    }
  }

  static Optional<Path> findSetsid() {
    List<Path> candidates = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(":")) {
        candidates.add(Path.of(dir.isEmpty() ? "." : dir, "setsid"));
      }
    }
    candidates.add(Path.of("/usr/bin/setsid"));
    return candidates.stream().filter(Files::isExecutable).findFirst();
  }

  private FileLock lock() throws IOException {
    Files.createDirectories(options.dataDir());
    FileChannel channel = FileChannel.open(options.dataDir().resolve("stack.lock"),
        StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock = channel.tryLock();
    if (lock == null) {
      channel.close();
      throw new LocalStackException("another streamfold command is starting or stopping the local stack in "
          + options.dataDir() + "; try again when it is done");
    }
    return new ClosingLock(channel, lock);
  }

  /**
   * Pick the bookie port. BookKeeper keeps its port in its data (the bookie's identity is host:port; a
   * restart binds the recorded port whatever it is told), so a stack with Pulsar data must get its
   * previous bookie port back.
   *
   * @throws LocalStackException if the previous bookie port is taken by another process
   */
  private int bookiePort(Path pulsarDir, ProcessRecord previous) {
    int remembered = recordedBookiePort(pulsarDir.resolve("bookkeeper"));
    if (remembered == 0) {
      return port(options.bookiePort(), previous, ProcessRecord.PORT_BOOKIE);
    }
    if (options.bookiePort() != 0 && options.bookiePort() != remembered) {
      out.println("Note: keeping bookie port " + remembered + " (BookKeeper recorded it in " + pulsarDir
          + "); --bookie-port " + options.bookiePort() + " applies to a fresh data dir only.");
    }
    if (!FreePorts.isFree(remembered)) {
      throw new LocalStackException("port " + remembered + " on 127.0.0.1, the BookKeeper bookie port recorded in "
          + pulsarDir + ", is in use by another process; BookKeeper binds the port it recorded, so free that port"
          + " (or start from an empty data dir: streamfold demo --clean, or another --data-dir)");
    }
    reserved.add(remembered);
    return remembered;
  }

  /**
   * Read the bookie port BookKeeper recorded in its cookie ({@code current/VERSION}, line
   * {@code bookieHost: "127.0.0.1:<port>"}).
   *
   * @param bookieDir the bookie's journal directory
   * @return the port, or 0 when there is no cookie (fresh data) or it cannot be read
   */
  static int recordedBookiePort(Path bookieDir) {
    try {
      for (String line : Files.readAllLines(bookieDir.resolve("current").resolve("VERSION"))) {
        String t = line.trim();
        if (t.startsWith("bookieHost:")) {
          String host = t.substring("bookieHost:".length()).trim().replace("\"", "");
          return Integer.parseInt(host.substring(host.lastIndexOf(':') + 1));
        }
      }
    } catch (IOException | RuntimeException e) {
      // fresh data dir, or a layout we do not know: let Pulsar decide
    }
    return 0;
  }

  /** Pick a port: the requested one, else the previous run's when still free, else a free one. */
  private int port(int requested, ProcessRecord previous, String role) {
    if (requested != 0) {
      return requested;
    }
    int remembered = previous == null ? 0 : previous.port(role);
    if (remembered > 0 && FreePorts.isFree(remembered) && reserved.add(remembered)) {
      return remembered;
    }
    if (role.equals(ProcessRecord.PORT_GRPC) || role.equals(ProcessRecord.PORT_RESP)
        || role.equals(ProcessRecord.PORT_METRICS)) {
      int port;
      do {
        port = FreePorts.pick();
      } while (!reserved.add(port));
      return port;
    }
    return 0; // the launcher picks a free one
  }

  private static String seconds(long startNanos) {
    return String.format("%.1f", (System.nanoTime() - startNanos) / 1e9);
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  /** A file lock that also closes its channel. */
  private static final class ClosingLock extends FileLock {
    private final FileLock lock;

    ClosingLock(FileChannel channel, FileLock lock) {
      super(channel, lock.position(), lock.size(), lock.isShared());
      this.lock = lock;
    }

    @Override
    public boolean isValid() {
      return lock.isValid();
    }

    @Override
    public void release() throws IOException {
      lock.release();
      channel().close();
    }
  }
}
