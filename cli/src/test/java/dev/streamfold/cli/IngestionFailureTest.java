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

  /** Acknowledges the first two requests, then fails the call as a dying server's transport would. */
  static final class DyingIngest extends IngestServiceGrpc.IngestServiceImplBase {
    @Override
    public StreamObserver<AppendRequest> appendStream(StreamObserver<AppendResponse> responses) {
      AtomicInteger requests = new AtomicInteger();
      return new StreamObserver<>() {
        @Override
        public void onNext(AppendRequest request) {
          if (requests.incrementAndGet() > 2) {
            if (requests.get() == 3) {
              responses.onError(Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
            }
            return;
          }
          AppendResponse.Builder ack = AppendResponse.newBuilder().setRequestSeq(request.getRequestSeq());
          for (int i = 0; i < request.getEventsCount(); i++) {
            ack.addMessageIds("1:" + (requests.get() * 10_000 + i) + ":-1:-1");
          }
          responses.onNext(ack.build());
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}
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
}
