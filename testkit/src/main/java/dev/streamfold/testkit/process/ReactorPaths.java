package dev.streamfold.testkit.process;

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
}
