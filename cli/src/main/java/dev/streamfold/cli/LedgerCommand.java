package dev.streamfold.cli;

import dev.streamfold.api.v1.ClockTick;
import dev.streamfold.api.v1.LedgerSegment;
import dev.streamfold.api.v1.ListTicksRequest;
import dev.streamfold.api.v1.ListTicksResponse;
import dev.streamfold.api.v1.OffloadStatus;
import dev.streamfold.api.v1.SetOffloadPolicyRequest;
import dev.streamfold.api.v1.StreamRequest;
import dev.streamfold.api.v1.StreamStorage;
import dev.streamfold.api.v1.TickPosition;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code streamfold ledger info|offload|policy|clock}: tiered storage of the ledger, and the tenant's clock. */
@Command(name = "ledger", mixinStandardHelpOptions = true,
    description = "Inspect and offload a stream's segments (tiered storage to S3); show the tenant's clock.",
    subcommands = {LedgerCommand.Info.class, LedgerCommand.Offload.class, LedgerCommand.Policy.class,
        LedgerCommand.Clock.class})
final class LedgerCommand {

  @Command(name = "info", description = "Segments of a stream with entry counts, sizes, which are offloaded "
      + "and where, and total bytes local vs in S3.")
  static final class Info implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "STREAM", description = "Stream name.")
    String stream;

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        print(client.admin().describeStorage(request(server, stream)));
      }
      return 0;
    }
  }

  static void print(StreamStorage storage) {
    // a partitioned stream's segments are listed partition by partition, each partition's own topic ending
    // with its open segment
    boolean partitioned = storage.getSegmentsList().stream().anyMatch(s -> s.getPartition() >= 0);
    String part = partitioned ? "%-5s " : "%s";
    System.out.printf(part + "%-12s %10s %14s  %-9s %-13s %s%n", partitioned ? "PART" : "", "LEDGER", "ENTRIES", "BYTES",
        "OFFLOADED", "LOCAL COPY", "READ FROM");
    for (LedgerSegment s : storage.getSegmentsList()) {
      System.out.printf(part + "%-12d %,10d %,14d  %-9s %-13s %s%n", partitioned ? Integer.toString(s.getPartition()) : "",
          s.getLedgerId(), s.getEntries(), s.getSizeBytes(),
          s.getOffloaded() ? "yes" : s.getOpen() ? "no (open)" : "no",
          s.getOffloaded() ? (s.getLocalDeleted() ? "deleted" : "kept (lag)") : "yes",
          s.getOffloaded() && s.getLocalDeleted() ? s.getLocation() : "bookkeeper");
    }
    System.out.printf("%d segments%s; %,d bytes local, %,d bytes in tiered storage%n", storage.getSegmentsCount(),
        partitioned ? " in " + storage.getSegmentsList().stream().mapToInt(LedgerSegment::getPartition).distinct().count()
            + " partitions" : "", storage.getLocalBytes(), storage.getOffloadedBytes());
  }

  @Command(name = "offload", description = "Offload every closed segment of a stream to tiered storage now.")
  static final class Offload implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Parameters(index = "0", paramLabel = "STREAM", description = "Stream name.")
    String stream;

    @Option(names = "--wait", description = "Wait until the offload finished, showing its state.")
    boolean await;

    @Option(names = "--timeout-s", paramLabel = "SECONDS", defaultValue = "600",
        description = "Longest wait with --wait, seconds (default ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Override
    public Integer call() throws InterruptedException {
      ServerOptions.checkTimeout("--timeout-s", timeoutSeconds);
      try (StreamfoldClient client = server.connect()) {
        OffloadStatus status = client.admin().offload(request(server, stream));
        System.out.println("Offload of " + stream + " started: " + status.getState());
        if (!await) {
          System.out.println("Follow it with: streamfold ledger info " + stream);
          return 0;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        long started = System.nanoTime();
        while (!status.getState().equals("SUCCESS") && !status.getState().equals("ERROR")) {
          if (System.nanoTime() > deadline) {
            throw new CliException("offload of " + stream + " still " + status.getState() + " after "
                + timeoutSeconds + " s (check the broker log; is the S3 endpoint reachable and are its credentials set?)");
          }
          Thread.sleep(500);
          status = client.admin().getOffloadStatus(request(server, stream));
          System.out.printf("\r  %s, %d s", status.getState(), (System.nanoTime() - started) / 1_000_000_000L);
        }
        System.out.println();
        if (status.getState().equals("ERROR")) {
          throw new CliException("offload of " + stream + " failed: " + status.getError());
        }
        StreamStorage storage = client.admin().describeStorage(request(server, stream));
        boolean closed = storage.getSegmentsList().stream().anyMatch(segment -> !segment.getOpen());
        // Pulsar offloads closed segments only; with none, its SUCCESS means nothing was moved
        System.out.println(closed ? "Offloaded every closed segment; the first message not offloaded is "
            + status.getFirstNotOffloaded() + " (events after it are in the open segment, or arrive later)"
            : "Nothing to offload: every event is in the open segment, which Pulsar does not offload (a segment"
                + " closes when it reaches the broker's size or age limit, or at a broker restart)");
        print(storage);
      }
      return 0;
    }
  }

  @Command(name = "policy", description = "Set the tenant's offload policy (automatic offload threshold and "
      + "deletion lag of local copies). Retention stays infinite.")
  static final class Policy implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Option(names = "--threshold-bytes", required = true, paramLabel = "BYTES",
        description = "Local bytes per stream above which closed segments are offloaded; -1 disables, 0 offloads all.")
    long thresholdBytes;

    @Option(names = "--deletion-lag-ms", defaultValue = "14400000", paramLabel = "MS",
        description = "Delay between an offload and the deletion of the local copy, ms (default ${DEFAULT-VALUE}, 4 h).")
    long deletionLagMs;

    @Override
    public Integer call() {
      try (StreamfoldClient client = server.connect()) {
        client.admin().setOffloadPolicy(SetOffloadPolicyRequest.newBuilder().setTenant(server.tenant)
            .setThresholdBytes(thresholdBytes).setDeletionLagMs(deletionLagMs).build());
      }
      System.out.println("Offload policy of tenant " + server.tenant + ": threshold " + thresholdBytes
          + " bytes, deletion lag " + deletionLagMs + " ms; retention infinite.");
      return 0;
    }
  }

  @Command(name = "clock", description = "Recorded ticks of the tenant's clock, which orders all its streams' events: "
      + "each tick's number, time and the message ID of every partition of every stream it covers.")
  static final class Clock implements Callable<Integer> {
    @Mixin
    ServerOptions server = new ServerOptions();

    @Option(names = "--after", paramLabel = "TICK", defaultValue = "0",
        description = "Show the ticks after this one (default ${DEFAULT-VALUE}: from the first).")
    long after;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
        description = "Show at most N ticks, 1 to 10000 (default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--last", description = "Show only the last recorded tick.")
    boolean last;

    @Option(names = "--json", description = "One JSON object a tick (JSON Lines), as stored: "
        + "{\"tick\":N,\"time_ms\":MS,\"streams\":{\"NAME\":\"ID,ID\"}}.")
    boolean json;

    @Override
    public Integer call() {
      if (after < 0) {
        throw new CliException("--after must be >= 0, got " + after);
      }
      if (limit < 1 || limit > 10_000) {
        throw new CliException("--limit must be 1 to 10000, got " + limit);
      }
      ListTicksResponse ticks;
      try (StreamfoldClient client = server.connect()) {
        ticks = client.admin().listTicks(ListTicksRequest.newBuilder().setTenant(server.tenant).setAfterTick(after)
            .setMaxTicks(limit).setLast(last).build());
      }
      if (json) {
        ticks.getTicksList().forEach(t -> System.out.println(json(t)));
        return 0;
      }
      if (ticks.getTicksCount() == 0) {
        System.out.println(last || after == 0 ? "No tick yet: the clock of tenant " + server.tenant
            + " records its first tick once its streams hold events (a server writes it)."
            : "No tick after tick " + after + ".");
        return 0;
      }
      System.out.printf("%-8s %-24s %s%n", "TICK", "TIME (UTC)", "STREAMS (message ID of each partition)");
      for (ClockTick t : ticks.getTicksList()) {
        StringBuilder streams = new StringBuilder();
        for (TickPosition p : t.getStreamsList()) {
          streams.append(streams.length() == 0 ? "" : "; ").append(p.getStream()).append(' ')
              .append(String.join(",", p.getMessageIdsList()));
        }
        System.out.printf("%-8d %-24s %s%n", t.getNumber(), Instant.ofEpochMilli(t.getTimeMs()), streams);
      }
      return 0;
    }

    /** A tick as its stored JSON form (stream names and message IDs need no escaping). */
    static String json(ClockTick t) {
      StringBuilder streams = new StringBuilder();
      for (TickPosition p : t.getStreamsList()) {
        streams.append(streams.length() == 0 ? "" : ",").append('"').append(p.getStream()).append("\":\"")
            .append(String.join(",", p.getMessageIdsList())).append('"');
      }
      return "{\"tick\":" + t.getNumber() + ",\"time_ms\":" + t.getTimeMs() + ",\"streams\":{" + streams + "}}";
    }
  }

  private static StreamRequest request(ServerOptions server, String stream) {
    return StreamRequest.newBuilder().setTenant(server.tenant).setStream(stream).build();
  }
}
