package dev.streamfold.deploy.local.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerLauncherTest {
  @TempDir
  Path dir;

  @Test
  void readyFileIsReadOnlyWhenComplete() throws Exception {
    Path ready = dir.resolve("ready.json");
    assertThat(ServerLauncher.readyPorts(ready)).isNull();
    Files.writeString(ready, "{\"grpcPort\":4");
    assertThat(ServerLauncher.readyPorts(ready)).isNull();
    Files.writeString(ready, "{\"grpcPort\":40005,\"respPort\":40006}");
    assertThat(ServerLauncher.readyPorts(ready)).as("no metrics endpoint").containsExactly(40005, 40006, -1);
    Files.writeString(ready, "{\"grpcPort\":40005,\"respPort\":40006,\"metricsPort\":40008}");
    assertThat(ServerLauncher.readyPorts(ready)).containsExactly(40005, 40006, 40008);
  }

  @Test
  void serverCommandCarriesFlinkFlagsHeapAndEveryEndpoint() {
    List<String> cmd = ServerLauncher.serverCommand(dir.resolve("args.txt"), dir.resolve("server"),
        "pulsar://127.0.0.1:1", "http://127.0.0.1:2", "redis://127.0.0.1:3", 4, 5, 6, dir.resolve("server/ready.json"));
    assertThat(cmd).containsSubsequence("-Xms1g", "-Xmx3g", "-Djava.io.tmpdir=" + dir.resolve("server/tmp"),
        "@" + dir.resolve("args.txt"), ServerLauncher.SERVER_MAIN_CLASS, "--data-dir", dir.resolve("server").toString(),
        "--pulsar-service-url", "pulsar://127.0.0.1:1", "--pulsar-admin-url", "http://127.0.0.1:2",
        "--redis-uri", "redis://127.0.0.1:3", "--grpc-port", "4", "--resp-port", "5",
        "--metrics-port", "6", "--ready-file", dir.resolve("server/ready.json").toString());
    assertThat(cmd).containsAll(ServerLauncher.FLINK_JAVA17_FLAGS);
  }

  @Test
  void serverClasspathCopiesWhatARebuildOverwrites() throws Exception {
    Path classes = Files.createDirectories(dir.resolve("cli/target/classes/dev"));
    Files.writeString(classes.resolve("A.class"), "x");
    Path snapshot = Files.writeString(dir.resolve("streamfold-views-0.1.0-SNAPSHOT.jar"), "jar");
    Path release = Files.writeString(dir.resolve("picocli-4.7.7.jar"), "jar");
    String cp = String.join(java.io.File.pathSeparator, dir.resolve("cli/target/classes").toString(),
        snapshot.toString(), release.toString());
    String copied = ServerLauncher.snapshotClasspath(cp, dir.resolve("lib"));
    String[] entries = copied.split(java.io.File.pathSeparator);
    assertThat(entries).hasSize(3);
    assertThat(Path.of(entries[0]).resolve("dev/A.class")).hasContent("x");
    assertThat(entries[0]).startsWith(dir.resolve("lib").toString());
    assertThat(Path.of(entries[1])).hasContent("jar").hasFileName("2-streamfold-views-0.1.0-SNAPSHOT.jar");
    assertThat(entries[2]).isEqualTo(release.toString());
    assertThat(ServerLauncher.snapshotClasspath(cp, dir.resolve("lib"))).isEqualTo(copied);
  }
}
