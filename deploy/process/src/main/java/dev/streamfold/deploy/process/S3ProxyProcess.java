package dev.streamfold.deploy.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * A real S3 endpoint: s3proxy 4.1.0 (docs/stack.md "S3 endpoint (local)") in its own JVM on 127.0.0.1, with
 * the filesystem backend under a data directory, AWS signature v2/v4 authentication and one bucket.
 * It can be stopped and started again on the same port and data ({@link #stop()}, {@link #restart()}),
 * e.g. to prove that reads of offloaded data need it.
 *
 * <pre>
 * &lt;data dir&gt;/s3proxy.properties   its configuration (mode 600: it holds the credential)
 * &lt;data dir&gt;/s3proxy.log          its output
 * &lt;data dir&gt;/buckets/&lt;bucket&gt;/    the objects of the bucket, one file per object
 * </pre>
 */
public final class S3ProxyProcess implements AutoCloseable {
  /** Longest wait for the endpoint to answer HTTP (it takes 3-5 s on 2 cores). */
  public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(60);
  /** Main class in the s3proxy jar. */
  public static final String MAIN_CLASS = "org.gaul.s3proxy.Main";
  /** Heap and GC of the s3proxy JVM (~120 MB resident). */
  public static final List<String> JVM_FLAGS = List.of("-Xms32m", "-Xmx512m", "-XX:+UseSerialGC");
  /** Name of the directory under the data directory that holds one directory per bucket. */
  public static final String BUCKETS_DIR = "buckets";
  /** Name of the configuration file under the data directory. */
  public static final String PROPERTIES_FILE = "s3proxy.properties";

  private static final Pattern BUCKET_NAME = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  private final Path dataDir;
  private final int port;
  private final String bucket;
  private final String accessKeyId;
  private final String secretAccessKey;
  private ManagedProcess process;

  private S3ProxyProcess(Path dataDir, int port, String bucket, String accessKeyId, String secretAccessKey) {
    this.dataDir = dataDir;
    this.port = port;
    this.bucket = bucket;
    this.accessKeyId = accessKeyId;
    this.secretAccessKey = secretAccessKey;
  }

  /**
   * Start s3proxy with its data under {@code dataDir}, create the bucket (kept when it exists) and wait
   * until the endpoint answers HTTP.
   *
   * @param dataDir directory for the objects, configuration and log (created when missing; existing
   *     objects are kept)
   * @param port TCP port on 127.0.0.1, or 0 for a free one
   * @param bucket bucket name (S3 rules: 3-63 characters of a-z, 0-9, '-', '.')
   * @param accessKeyId the access key id clients sign with (AWS signature v2 or v4)
   * @param secretAccessKey the secret clients sign with
   * @return the running endpoint
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the bucket name is invalid, a credential is blank or has line
   *     breaks, or the port is outside 0..65535
   * @throws IllegalStateException if the requested port is taken (the message names it), the s3proxy jar
   *     is missing (the build has not run), or it exits or does not answer within
   *     {@link #DEFAULT_START_TIMEOUT} (the message quotes its log)
   */
  public static S3ProxyProcess start(Path dataDir, int port, String bucket, String accessKeyId,
      String secretAccessKey) {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(bucket, "bucket");
    checkCredential("accessKeyId", accessKeyId);
    checkCredential("secretAccessKey", secretAccessKey);
    if (!isValidBucketName(bucket)) {
      throw new IllegalArgumentException("bucket must be an S3 bucket name (3-63 characters: a-z, 0-9, '-', '.'),"
          + " got '" + bucket + "'");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0..65535, got " + port);
    }
    int chosen = port == 0 ? FreePorts.pick() : port;
    S3ProxyProcess s3 = new S3ProxyProcess(dataDir.toAbsolutePath().normalize(), chosen, bucket, accessKeyId,
        secretAccessKey);
    s3.launch();
    return s3;
  }

  /**
   * Tell whether a name is a valid S3 bucket name (3-63 characters of lowercase letters, digits, '-' and
   * '.', starting and ending with a letter or digit).
   *
   * @param name the name, may be null
   * @return true when valid
   */
  public static boolean isValidBucketName(String name) {
    return name != null && BUCKET_NAME.matcher(name).matches() && !name.contains("..");
  }

  private static void checkCredential(String what, String value) {
    Objects.requireNonNull(value, what);
    if (value.isBlank() || value.contains("\n") || value.contains("\r")) {
      throw new IllegalArgumentException(what + " must be non-blank and on one line");
    }
  }

  private synchronized void launch() {
    if (process != null && process.isAlive()) {
      return;
    }
    if (!FreePorts.isFree(port)) {
      throw new IllegalStateException("s3proxy port " + port + " on 127.0.0.1 is in use");
    }
    Path jar = ReactorPaths.s3proxyJar();
    try {
      Files.createDirectories(bucketDir());
      Files.createDirectories(dataDir.resolve("tmp"));
      Path properties = writeProperties();
      List<String> cmd = new ArrayList<>();
      cmd.add(PulsarStandaloneProcess.javaBinary());
      cmd.addAll(JVM_FLAGS);
      cmd.add("-Djava.io.tmpdir=" + dataDir.resolve("tmp"));
      cmd.add("-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener");
      cmd.add("-Dstreamfold.role=s3proxy");
      cmd.addAll(List.of("-cp", jar.toString(), MAIN_CLASS, "--properties", properties.toString()));
      ManagedProcess started = ManagedProcess.start("s3proxy", cmd, dataDir, logFile());
      try {
        started.awaitReady(DEFAULT_START_TIMEOUT, this::answers);
      } catch (RuntimeException e) {
        started.close();
        throw e;
      }
      process = started;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the s3proxy data directory " + dataDir, e);
    }
  }

  private Path writeProperties() throws IOException {
    Properties p = new Properties();
    p.setProperty("s3proxy.endpoint", endpoint());
    p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
    p.setProperty("s3proxy.identity", accessKeyId);
    p.setProperty("s3proxy.credential", secretAccessKey);
    p.setProperty("jclouds.provider", "filesystem");
    p.setProperty("jclouds.filesystem.basedir", dataDir.resolve(BUCKETS_DIR).toString());
    Path file = dataDir.resolve(PROPERTIES_FILE);
    Path tmp = dataDir.resolve(PROPERTIES_FILE + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
      p.store(out, "written by Streamfold testkit (S3ProxyProcess); holds a secret");
    }
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return file;
  }

  /** True when the endpoint answers HTTP (any status: an unsigned request gets 403). */
  private boolean answers() {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(endpoint() + "/"))
          .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.discarding());
      return response.statusCode() > 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Stop the endpoint (SIGTERM, then SIGKILL after 20 s); the data and the port stay reserved for
   * {@link #restart()}. Does nothing when it is stopped.
   */
  public synchronized void stop() {
    if (process != null) {
      process.close();
      process = null;
    }
  }

  /**
   * Start the endpoint again on the same port with the same data and credentials, and wait until it
   * answers HTTP. Does nothing when it runs.
   *
   * @throws IllegalStateException if the port has been taken meanwhile (the message names it), or it exits
   *     or does not answer within {@link #DEFAULT_START_TIMEOUT} (the message quotes its log)
   */
  public synchronized void restart() {
    launch();
  }

  /** True while the s3proxy process runs. */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The endpoint URL, e.g. {@code http://127.0.0.1:9000}. */
  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** The TCP port on 127.0.0.1, the same across {@link #restart()}. */
  public int port() {
    return port;
  }

  /** The bucket created at start. */
  public String bucket() {
    return bucket;
  }

  /** The directory holding the bucket's objects on disk (one file per object key). */
  public Path bucketDir() {
    return dataDir.resolve(BUCKETS_DIR).resolve(bucket);
  }

  /** The data directory. */
  public Path dataDir() {
    return dataDir;
  }

  /** The log file receiving s3proxy's output. */
  public Path logFile() {
    return dataDir.resolve("s3proxy.log");
  }

  /** The configuration file ({@value #PROPERTIES_FILE}, mode 600). */
  public Path propertiesFile() {
    return dataDir.resolve(PROPERTIES_FILE);
  }

  /** The access key id clients sign with. */
  public String accessKeyId() {
    return accessKeyId;
  }

  /** The secret clients sign with. */
  public String secretAccessKey() {
    return secretAccessKey;
  }

  /**
   * Return the operating-system process id.
   *
   * @return the pid, or -1 when stopped
   */
  public synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  /** Stop the endpoint; same as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return "S3ProxyProcess[" + endpoint() + ", bucket " + bucket + ", data " + dataDir + "]";
  }
}
