package dev.streamfold.deploy.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A real {@code redis-server} (Debian package redis-server) on loopback, as a child process. */
public final class RedisServerProcess implements AutoCloseable {
  /** Debian package names that provide redis-server and redis-cli. */
  public static final String INSTALL_HINT = "install it with: sudo apt-get install -y redis-server redis-tools";

  private final ManagedProcess process;
  private final int port;

  private RedisServerProcess(ManagedProcess process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * Start redis-server on 127.0.0.1 and wait until it answers PING.
   *
   * @param dataDir directory for the append-only file and the log (created when missing)
   * @param port TCP port, or 0 for a free one
   * @param persistent true to keep data across restarts (append-only file, fsync every second);
   *     false for tests (no persistence)
   * @return the running server
   * @throws IllegalStateException if redis-server is not installed (the message says what to install),
   *     the port is taken (the message names it), or it does not answer within 30 s
   */
  public static RedisServerProcess start(Path dataDir, int port, boolean persistent) {
    String binary = findBinary().orElseThrow(() -> new IllegalStateException(
        "redis-server not found on PATH or in /usr/bin; " + INSTALL_HINT));
    int chosen = port == 0 ? FreePorts.pick() : port;
    if (port != 0 && !FreePorts.isFree(port)) {
      throw new IllegalStateException("Redis port " + port + " on 127.0.0.1 is in use");
    }
    Path dir = dataDir.toAbsolutePath();
    List<String> cmd = new ArrayList<>(List.of(binary,
        "--port", Integer.toString(chosen), "--bind", "127.0.0.1", "--dir", dir.toString(),
        "--daemonize", "no", "--protected-mode", "yes", "--save", ""));
    if (persistent) {
      cmd.addAll(List.of("--appendonly", "yes", "--appendfsync", "everysec"));
    } else {
      cmd.addAll(List.of("--appendonly", "no"));
    }
    ManagedProcess process = ManagedProcess.start("redis-server", cmd, dir, dir.resolve("redis.log"));
    RedisServerProcess redis = new RedisServerProcess(process, chosen);
    try {
      process.awaitReady(Duration.ofSeconds(30), () -> ping(chosen));
    } catch (RuntimeException e) {
      process.close();
      throw e;
    }
    return redis;
  }

  /**
   * Find the redis-server binary.
   *
   * @return its path, or empty when it is not installed
   */
  public static java.util.Optional<String> findBinary() {
    List<String> candidates = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(":")) {
        candidates.add(dir + "/redis-server");
      }
    }
    candidates.add("/usr/bin/redis-server");
    candidates.add("/usr/local/bin/redis-server");
    return candidates.stream().filter(c -> Files.isExecutable(Path.of(c))).findFirst();
  }

  /**
   * Send PING over a raw socket.
   *
   * @param port port on 127.0.0.1
   * @return true when the reply is +PONG
   */
  public static boolean ping(int port) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(2000);
      OutputStream out = socket.getOutputStream();
      out.write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] buf = new byte[7];
      int n = in.readNBytes(buf, 0, 7);
      return new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
    } catch (IOException e) {
      return false;
    }
  }

  /** Redis URI for lettuce, e.g. {@code redis://127.0.0.1:6379}. */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  public long pid() {
    return process.pid();
  }

  /** Stop the server (SIGTERM, then SIGKILL after 20 s). */
  @Override
  public void close() {
    process.close();
  }
}
