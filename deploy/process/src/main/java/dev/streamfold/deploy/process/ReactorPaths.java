package dev.streamfold.deploy.process;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Locates files the Maven build writes, from anywhere inside the source tree. */
public final class ReactorPaths {
  private ReactorPaths() {}

  /**
   * Return the reactor root: the nearest directory at or above the working directory (or the
   * {@code streamfold.home} system property) that holds {@code .mvn} and {@code pom.xml}.
   *
   * @return absolute path of the root
   * @throws IllegalStateException if no such directory exists
   */
  public static Path root() {
    String home = System.getProperty("streamfold.home", System.getenv("STREAMFOLD_HOME"));
    Path start = Paths.get(home != null ? home : System.getProperty("user.dir")).toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve(".mvn")) && Files.exists(dir.resolve("pom.xml"))
          && Files.isDirectory(dir.resolve("deploy"))) {
        return dir;
      }
    }
    throw new IllegalStateException("cannot find the Streamfold source tree above " + start
        + "; run from inside it or set STREAMFOLD_HOME");
  }

  /**
   * Return the Pulsar broker classpath written by {@code streamfold-deploy-pulsar}.
   *
   * @return the classpath text (entries separated by ':')
   * @throws IllegalStateException if the file is missing (the build has not run)
   */
  public static String pulsarClasspath() {
    Path file = root().resolve("deploy/pulsar/target/pulsar-classpath.txt");
    try {
      return Files.readString(file).trim();
    } catch (Exception e) {
      throw new IllegalStateException("missing " + file + ": build first with"
          + " `mvn -B install -DskipTests` (it resolves the Pulsar 4.0.8 broker from Maven Central)", e);
    }
  }

  /**
   * Return the s3proxy jar (self-contained, {@code org.gaul:s3proxy:4.1.0:jar-with-dependencies}) whose path
   * {@code streamfold-deploy-s3proxy} writes to {@code deploy/s3proxy/target/s3proxy-path.txt}.
   *
   * @return the absolute path of the jar
   * @throws IllegalStateException if the path file or the jar is missing (the build has not run)
   */
  public static Path s3proxyJar() {
    Path file = root().resolve("deploy/s3proxy/target/s3proxy-path.txt");
    Path jar;
    try {
      jar = Path.of(Files.readString(file).trim());
    } catch (Exception e) {
      throw new IllegalStateException("missing " + file + ": build first with"
          + " `mvn -B install -DskipTests` (it resolves s3proxy 4.1.0 from Maven Central)", e);
    }
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("the s3proxy jar " + jar + " named in " + file + " is missing: build again with"
          + " `mvn -B install -DskipTests -pl deploy/s3proxy`");
    }
    return jar;
  }

  /**
   * Return the directory holding the S3 offloader NAR ({@code tiered-storage-jcloud-4.0.8.nar}) that
   * {@code streamfold-deploy-pulsar} copies to {@code deploy/pulsar/target/offloaders}.
   *
   * @return the absolute path of the directory
   * @throws IllegalStateException if the directory holds no {@code .nar} file (the build has not run)
   */
  public static Path offloadersDir() {
    Path dir = root().resolve("deploy/pulsar/target/offloaders");
    try (var files = Files.list(dir)) {
      if (files.anyMatch(f -> f.getFileName().toString().endsWith(".nar"))) {
        return dir;
      }
    } catch (Exception e) {
      // reported below
    }
    throw new IllegalStateException("no offloader NAR in " + dir + ": build first with"
        + " `mvn -B install -DskipTests -pl deploy/pulsar` (it copies tiered-storage-jcloud-4.0.8 from Maven Central)");
  }
}
