package dev.streamfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.cli.ingest.EventMapper;
import dev.streamfold.cli.ingest.FileFormat;
import dev.streamfold.cli.ingest.RowReader;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An ingestion whose server fails mid-call says what is in the ledger and where to go on from. */
class IngestionFailureTest {
  @TempDir
  Path dir;

  /** Acknowledges the first {@code acks} requests (all when negative), then fails the call with {@code failure}. */
  static final class DyingIngest extends IngestServiceGrpc.IngestServiceImplBase {
    final int acks;
    final Status failure;
    final java.util.List<String> keys = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    DyingIngest(int acks, Status failure) {
      this.acks = acks;
      this.failure = failure;
    }

    DyingIngest() {
      this(2, Status.UNAVAILABLE.withDescription("io exception"));
    }

    @Override
    public StreamObserver<AppendRequest> appendStream(StreamObserver<AppendResponse> responses) {
      AtomicInteger requests = new AtomicInteger();
      return new StreamObserver<>() {
        @Override
        public void onNext(AppendRequest request) {
          if (acks >= 0 && requests.incrementAndGet() > acks) {
            if (requests.get() == acks + 1) {
              responses.onError(failure.asRuntimeException());
            }
            return;
          }
          request.getEventsList().forEach(e -> keys.add(e.getKey()));
          AppendResponse.Builder ack = AppendResponse.newBuilder().setRequestSeq(request.getRequestSeq());
          for (int i = 0; i < request.getEventsCount(); i++) {
            ack.addMessageIds("1:" + (requests.get() * 10_000 + i) + ":-1:-1");
          }
          if (acks < 0) {
            requests.incrementAndGet();
          }
          responses.onNext(ack.build());
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          if (acks < 0) {
            responses.onCompleted();
          }
        }
      };
    }
  }

  @Test
  void aCallTheServerDropsSaysWhatWasAcknowledgedAndFromWhichRowToGoOn() throws Exception {
    // it said only "UNAVAILABLE: io exception": a re-run appended the acknowledged rows again
    StringBuilder csv = new StringBuilder("k,n\n");
    for (int i = 1; i <= 10_000; i++) {
      csv.append("k").append(i % 7).append(',').append(i).append('\n');
    }
    Path file = Files.writeString(dir.resolve("f.csv"), csv);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(new DyingIngest())
        .build().start();
    try (StreamfoldClient client = StreamfoldClient.connect("127.0.0.1:" + server.getPort(), null);
         RowReader reader = RowReader.open(file, FileFormat.CSV, Map.of("k", "STRING", "n", "BIGINT"))) {
      PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, "UTF-8");
      assertThatThrownBy(() -> Ingestion.run(client, "demo", "s", reader, new EventMapper("k", null), Long.MAX_VALUE,
          "ingest s", out, false, "--from-row"))
          .isInstanceOf(CliException.class)
          .hasMessageStartingWith("UNAVAILABLE: io exception (is the Streamfold server running?")
          .hasMessageContaining("the server acknowledged the first 4,000 events of this ingestion, which are in the ledger;")
          .hasMessageContaining("more were sent without an acknowledgement and may be in it too")
          .hasMessageEndingWith("if it holds none of them, go on with --from-row 4001, one row later for each one it holds");
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void aBadRowCountsOnceAgainstTheLimit() throws Exception {
    // a row refused by the key check counted twice against --limit: --limit 10 --skip-bad dropped row 10 unsaid
    StringBuilder csv = new StringBuilder("k,n\n");
    for (int i = 1; i <= 30; i++) {
      csv.append(i == 5 ? "" : "r" + i).append(',').append(i).append('\n');
    }
    Path file = Files.writeString(dir.resolve("g.csv"), csv);
    DyingIngest all = new DyingIngest(-1, Status.OK);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(all).build().start();
    try (StreamfoldClient client = StreamfoldClient.connect("127.0.0.1:" + server.getPort(), null);
         RowReader reader = RowReader.open(file, FileFormat.CSV, Map.of("k", "STRING", "n", "BIGINT"))) {
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(printed, true, "UTF-8");
      assertThat(Ingestion.run(client, "demo", "s", reader, new EventMapper("k", null), 10, "ingest s", out, true,
          "--from-row").events()).isEqualTo(9);
      assertThat(all.keys).containsExactly("r1", "r2", "r3", "r4", "r6", "r7", "r8", "r9", "r10");
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void aTokenRevokedMidwaySaysWhatWasAcknowledged() throws Exception {
    // it said only "UNAUTHENTICATED: invalid or revoked token" with 8,000 events in the ledger
    StringBuilder csv = new StringBuilder("k,n\n");
    for (int i = 1; i <= 10_000; i++) {
      csv.append("k").append(',').append(i).append('\n');
    }
    Path file = Files.writeString(dir.resolve("r.csv"), csv);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new DyingIngest(1, Status.UNAUTHENTICATED.withDescription("invalid or revoked token")))
        .build().start();
    try (StreamfoldClient client = StreamfoldClient.connect("127.0.0.1:" + server.getPort(), null);
         RowReader reader = RowReader.open(file, FileFormat.CSV, Map.of("k", "STRING", "n", "BIGINT"))) {
      PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, "UTF-8");
      assertThatThrownBy(() -> Ingestion.run(client, "demo", "s", reader, new EventMapper("k", null), Long.MAX_VALUE,
          "ingest s", out, false, "--from-row"))
          .isInstanceOf(CliException.class)
          .hasMessageStartingWith("UNAUTHENTICATED: invalid or revoked token; the server acknowledged the first 2,000"
              + " events of this ingestion, which are in the ledger")
          .hasMessageContaining("--from-row 2001");
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void anIngestionIntoAPartitionedStreamNamesTheLastMessageIdOfEachPartitionNotARangeAcrossThem() {
    assertThat(Ingestion.appendedIds(new dev.streamfold.cli.ingest.StreamIngester.Result(3, 3, "5:0:-1:-1", "5:2:-1:-1",
        "5:2:-1:-1", 1, 0, 0))).isEqualTo("message IDs 5:0:-1:-1 .. 5:2:-1:-1");
    assertThat(Ingestion.appendedIds(new dev.streamfold.cli.ingest.StreamIngester.Result(3, 3, "7:0:1:-1", "6:0:0:-1",
        "6:1:0:-1,7:0:1:-1", 1, 0, 0))).isEqualTo("last message ID of each partition: position 6:1:0:-1,7:0:1:-1");
  }
}
