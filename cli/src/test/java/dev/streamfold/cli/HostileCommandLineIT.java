package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.ListTransformsRequest;
import dev.streamfold.api.v1.ListVirtualStatesRequest;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.cli.CliRunner.CliRun;
import dev.streamfold.server.StreamfoldServer;
import dev.streamfold.testkit.Testkit;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every entry of {@link HostileCommandLineCorpus} through the real command line against the whole server (real
 * Pulsar, Redis and Flink): its exit code, its first line of stderr, no stack trace and no exception class, and
 * afterwards the tenant's streams (event counts, latest message IDs), transformations, views (phase, events applied,
 * rows) and virtual states as they were, the server still answering.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class HostileCommandLineIT {
  private static final String TENANT = Testkit.uniqueName("cmdline");
  private static StreamfoldServer server;
  private static StreamfoldClient client;
  private static String target;
  /** The CLI with --server, --tenant and --token. */
  private static CliRunner cli;

  @TempDir
  static Path dir;

  @BeforeAll
  static void start() throws Exception {
    server = new StreamfoldServer(dev.streamfold.server.ServerOptions.builder(
            Testkit.workDir().resolve("server-cmdline"), Testkit.pulsar().serviceUrl(), Testkit.pulsar().adminUrl(),
            Testkit.redis().uri())
        .defaultTenant(TENANT).checkpointInterval(Duration.ofMillis(500)).tenants(java.util.Set.of(TENANT)).build())
        .start(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
    target = "127.0.0.1:" + server.grpcPort();
    client = StreamfoldClient.connect(target, server.adminToken());
    cli = new CliRunner("--server", target, "--tenant", TENANT, "--token", server.adminToken());
    assertThat(cli.run("stream", "create", HostileCommandLineCorpus.STREAM, "--column", "n:BIGINT").exitCode()).isEqualTo(0);
    Path events = Files.writeString(dir.resolve("events.csv"), "k,n\na,1\nb,2\na,3\n");
    assertThat(cli.run("ingest", HostileCommandLineCorpus.STREAM, events.toString(), "--key", "k").exitCode()).isEqualTo(0);
    CliRun created = cli.run("transform", "create", HostileCommandLineCorpus.VIEW, "--sql",
        "SELECT _key AS k, COUNT(*) AS events, SUM(n) AS total FROM " + HostileCommandLineCorpus.STREAM + " GROUP BY _key");
    assertThat(created.exitCode()).as(created.err()).isEqualTo(0);
    Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(250)).until(() -> {
      ViewStatus s = client.transforms().status(GetTransformRequest.newBuilder().setTenant(TENANT)
          .setName(HostileCommandLineCorpus.VIEW).build());
      assertThat(s.getPhase()).isNotEqualTo("FAILED");
      return s.getPhase().equals("LIVE") && s.getEventsApplied() == 3;
    });
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** The tenant's streams, transformations, views and virtual states, as text. */
  private static String state() {
    StringBuilder s = new StringBuilder();
    client.admin().listStreams(ListStreamsRequest.newBuilder().setTenant(TENANT).build()).getStreamsList()
        .forEach(i -> s.append("stream ").append(i.getName()).append(' ').append(i.getEventCount()).append(' ')
            .append(i.getLatestMessageId()).append(' ').append(i.getColumnsList()).append('\n'));
    client.transforms().list(ListTransformsRequest.newBuilder().setTenant(TENANT).build()).getTransformsList()
        .forEach(t -> {
          ViewStatus v = client.transforms().status(GetTransformRequest.newBuilder().setTenant(TENANT)
              .setName(t.getName()).build());
          s.append("transform ").append(t.getName()).append(" v").append(t.getVersion()).append(' ').append(t.getSql())
              .append(" view ").append(v.getPhase()).append(' ').append(v.getEventsApplied()).append(' ')
              .append(v.getRows()).append(' ').append(v.getRolledBackTo()).append('\n');
        });
    client.replays().listVirtualStates(ListVirtualStatesRequest.newBuilder().setTenant(TENANT).build())
        .getStatesList().forEach(v -> s.append("virtual ").append(v.getName()).append('\n'));
    return s.toString();
  }

  @Test
  void hostileCommandLineCorpus() throws Exception {
    List<HostileCommandLineCorpus.Entry> entries = HostileCommandLineCorpus.entries();
    Path csv = Files.writeString(dir.resolve("one.csv"), "k,n\na,1\n");
    String before = state();
    assertThat(before).contains("stream " + HostileCommandLineCorpus.STREAM + " 3 ")
        .contains("transform " + HostileCommandLineCorpus.VIEW + " v1").contains(" view LIVE 3 2 ");
    List<String> wrong = new ArrayList<>();
    StringBuilder report = new StringBuilder();
    int i = 0;
    for (HostileCommandLineCorpus.Entry entry : entries) {
      i++;
      String[] args = entry.args().stream().map(a -> a.replace("{csv}", csv.toString()).replace("{server}", target)
          .replace("{tenant}", TENANT).replace("{token}", server.adminToken())).toArray(String[]::new);
      CliRun r = (entry.plain() ? new CliRunner() : cli).run(args);
      String first = r.firstErrLine();
      boolean ok = entry.exitCode() == r.exitCode() && first.startsWith(entry.error().replace("{tenant}", TENANT))
          && !r.err().contains("\tat ") && !r.err().contains("Exception") && !r.err().contains(server.adminToken());
      report.append('#').append(i).append(' ').append(entry.name()).append(": exit ").append(r.exitCode()).append(", ")
          .append(first.replace(TENANT, "{tenant}")).append('\n');
      if (!ok) {
        wrong.add("#" + i + " " + entry.name() + ": exit " + r.exitCode() + ", stderr: " + first.replace(TENANT, "{tenant}")
            + (r.err().contains("\tat ") ? " [STACK TRACE]" : "") + (r.err().contains("Exception") ? " [Exception]" : ""));
      }
      assertThat(state()).as("the server's state after " + entry.name()).isEqualTo(before);
    }
    // every answer, to read: target/hostile-command-lines.txt
    Files.writeString(Path.of("target", "hostile-command-lines.txt"), report);
    assertThat(wrong).as("entries whose answer differs").isEmpty();
    assertThat(entries).hasSize(HostileCommandLineCorpus.SIZE);
  }
}
