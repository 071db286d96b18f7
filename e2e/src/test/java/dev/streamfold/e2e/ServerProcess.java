package dev.streamfold.e2e;

import dev.streamfold.core.AdminToken;
import dev.streamfold.deploy.process.FreePorts;
import dev.streamfold.deploy.process.ManagedProcess;
import dev.streamfold.server.StreamfoldServerMain;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Streamfold server as its own process (this test JVM's classpath), so that tests can kill it with
 * SIGKILL and start it again on the same data directory and ports.
 */
final class ServerProcess implements AutoCloseable {
  private final Path dataDir;
  private final String pulsarServiceUrl;
  private final String pulsarAdminUrl;
  private final String redisUri;
  private final String tenant;
  private final int grpcPort = FreePorts.pick();
  private final int respPort = FreePorts.pick();
  private ManagedProcess process;
  private ManagedChannel channel;

  ServerProcess(Path dataDir, String pulsarServiceUrl, String pulsarAdminUrl, String redisUri, String tenant) {
    this.dataDir = dataDir;
    this.pulsarServiceUrl = pulsarServiceUrl;
    this.pulsarAdminUrl = pulsarAdminUrl;
    this.redisUri = redisUri;
    this.tenant = tenant;
  }

  /** Start (or start again) and wait until it serves; at most 90 s. */
  ServerProcess start() {
    Path ready = dataDir.resolve("ready.json");
    try {
      Files.createDirectories(dataDir);
      Files.deleteIfExists(ready);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx1g");
    // the same --add-opens/--add-exports as this JVM (Flink's Java 17 flags, from the surefire argLine)
    for (String flag : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (flag.startsWith("--add-opens") || flag.startsWith("--add-exports")) {
        cmd.add(flag);
      }
    }
    cmd.addAll(List.of("-Djava.io.tmpdir=" + dataDir.resolve("tmp"), "-cp", System.getProperty("java.class.path"),
        StreamfoldServerMain.class.getName(), "--data-dir", dataDir.toString(),
        "--pulsar-service-url", pulsarServiceUrl, "--pulsar-admin-url", pulsarAdminUrl, "--redis-uri", redisUri,
        "--grpc-port", Integer.toString(grpcPort), "--resp-port", Integer.toString(respPort),
        "--tenant", tenant, "--tenants", tenant, "--checkpoint-interval-ms", "500", "--ready-file", ready.toString()));
    try {
      Files.createDirectories(dataDir.resolve("tmp"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    process = ManagedProcess.start("streamfold-server", cmd, dataDir, dataDir.resolve("server.log"));
    process.awaitReady(Duration.ofSeconds(90), () -> Files.exists(ready));
    channel = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext()
        .intercept(TestAuth.bearer(adminToken())).build();
    return this;
  }

  ManagedChannel channel() {
    return channel;
  }

  int respPort() {
    return respPort;
  }

  /** The server's admin token, from its data directory. */
  String adminToken() {
    return AdminToken.read(dataDir);
  }

  /** A lettuce URI reading this server's tenant with the admin token. */
  String respUri() {
    return TestAuth.respUri(tenant, adminToken(), respPort);
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed. */
  void kill9() {
    channel.shutdownNow();
    ProcessHandle handle = ProcessHandle.of(process.pid()).orElseThrow();
    handle.destroyForcibly();
    handle.onExit().orTimeout(30, TimeUnit.SECONDS).join();
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (process != null) {
      process.close();
    }
  }
}
