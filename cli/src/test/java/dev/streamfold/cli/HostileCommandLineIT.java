package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.ListTransformsRequest;
import dev.streamfold.api.v1.ListVirtualStatesRequest;
import dev.streamfold.api.v1.ViewStatus;
import dev.streamfold.server.StreamfoldServer;
import dev.streamfold.testkit.Testkit;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
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
    assertThat(run(false, "stream", "create", HostileCommandLineCorpus.STREAM, "--column", "n:BIGINT")[0]).isEqualTo("0");
    Path events = Files.writeString(dir.resolve("events.csv"), "k,n\na,1\nb,2\na,3\n");
    assertThat(run(false, "ingest", HostileCommandLineCorpus.STREAM, events.toString(), "--key", "k")[0]).isEqualTo("0");
    String[] created = run(false, "transform", "create", HostileCommandLineCorpus.VIEW, "--sql",
        "SELECT _key AS k, COUNT(*) AS events, SUM(n) AS total FROM " + HostileCommandLineCorpus.STREAM + " GROUP BY _key");
    assertThat(created[0]).as(created[2]).isEqualTo("0");
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

  /** Run the CLI (with --server, --tenant and --token unless plain); returns {exit code, stdout, stderr}. */
  private static String[] run(boolean plain, String... args) {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> all = new ArrayList<>(List.of(args));
    if (!plain) {
      all.addAll(List.of("--server", target, "--tenant", TENANT, "--token", server.adminToken()));
    }
    int code;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      picocli.CommandLine cli = StreamfoldCli.commandLine();
      cli.setErr(new java.io.PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
      cli.setOut(new java.io.PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true));
      code = cli.execute(all.toArray(String[]::new));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
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
      String[] r = run(entry.plain(), args);
      String first = r[2].lines().map(l -> l.substring(Math.max(0, l.lastIndexOf('\r') + 1)))
          .filter(l -> !l.isBlank()).findFirst().orElse("");
      boolean ok = Integer.toString(entry.exitCode()).equals(r[0]) && first.startsWith(entry.error().replace("{tenant}", TENANT))
          && !r[2].contains("\tat ") && !r[2].contains("Exception") && !r[2].contains(server.adminToken());
      report.append('#').append(i).append(' ').append(entry.name()).append(": exit ").append(r[0]).append(", ")
          .append(first.replace(TENANT, "{tenant}")).append('\n');
      if (!ok) {
        wrong.add("#" + i + " " + entry.name() + ": exit " + r[0] + ", stderr: " + first.replace(TENANT, "{tenant}")
            + (r[2].contains("\tat ") ? " [STACK TRACE]" : "") + (r[2].contains("Exception") ? " [Exception]" : ""));
      }
      assertThat(state()).as("the server's state after " + entry.name()).isEqualTo(before);
    }
    // every answer, to read: target/hostile-command-lines.txt
    Files.writeString(Path.of("target", "hostile-command-lines.txt"), report);
    assertThat(wrong).as("entries whose answer differs").isEmpty();
    assertThat(entries).hasSize(HostileCommandLineCorpus.SIZE);
  }
}
