package dev.streamfold.bench;

import dev.streamfold.api.v1.Column;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.DeleteTransformRequest;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.ViewStatus;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** A gRPC client of the Streamfold server for the benchmarks: streams, transforms, ingest stubs. */
final class Streamfold implements AutoCloseable {
  static final long CALL_TIMEOUT_MS = 120_000;

  final ManagedChannel channel;
  final String tenant;

  Streamfold(String target, String tenant, String token) {
    io.grpc.Metadata headers = new io.grpc.Metadata();
    headers.put(dev.streamfold.api.auth.AuthInterceptor.AUTHORIZATION, dev.streamfold.api.auth.AuthInterceptor.bearer(token));
    this.channel = NettyChannelBuilder.forTarget(target).usePlaintext().maxInboundMessageSize(64 * 1024 * 1024)
        .intercept(io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers)).build();
    this.tenant = tenant;
  }

  IngestServiceGrpc.IngestServiceStub ingestAsync() {
    return IngestServiceGrpc.newStub(channel);
  }

  IngestServiceGrpc.IngestServiceBlockingStub ingestBlocking() {
    return IngestServiceGrpc.newBlockingStub(channel);
  }

  /** Replay stub without a deadline (a Replay call streams until the state is complete; give it one per call). */
  ReplayServiceGrpc.ReplayServiceBlockingStub replay() {
    return ReplayServiceGrpc.newBlockingStub(channel);
  }

  StreamAdminGrpc.StreamAdminBlockingStub admin() {
    return StreamAdminGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }

  TransformServiceGrpc.TransformServiceBlockingStub transforms() {
    return TransformServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * Create a stream unless it exists.
   *
   * @param columns {@code name:TYPE} texts
   * @return its info
   */
  StreamInfo ensureStream(String name, List<String> columns) {
    CreateStreamRequest.Builder b = CreateStreamRequest.newBuilder().setTenant(tenant).setName(name);
    for (String c : columns) {
      String[] parts = c.split(":", 2);
      b.addColumns(Column.newBuilder().setName(parts[0]).setType(parts[1]));
    }
    return admin().createStream(b.build()).getStream();
  }

  /** Return a stream's info (event count, latest message ID), or empty when it does not exist. */
  Optional<StreamInfo> stream(String name) {
    return admin().listStreams(ListStreamsRequest.newBuilder().setTenant(tenant).build()).getStreamsList().stream()
        .filter(s -> s.getName().equals(name)).findFirst();
  }

  void createTransform(String name, String sql, List<String> keyColumns) {
    transforms().create(CreateTransformRequest.newBuilder().setTenant(tenant).setName(name).setSql(sql)
        .addAllKeyColumns(keyColumns).build());
  }

  Optional<ViewStatus> status(String name) {
    try {
      return Optional.of(transforms().status(GetTransformRequest.newBuilder().setTenant(tenant).setName(name).build()));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Delete a transformation and its view when it exists. */
  void deleteTransform(String name) {
    try {
      transforms().delete(DeleteTransformRequest.newBuilder().setTenant(tenant).setName(name).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
        throw e;
      }
    }
  }

  /**
   * Poll a view's status every {@code pollMs} until it is LIVE.
   *
   * @param onPoll called with each status
   * @return the LIVE status
   * @throws IllegalStateException if the view FAILED or is not LIVE within the timeout
   */
  ViewStatus awaitLive(String name, Duration timeout, long pollMs, Consumer<ViewStatus> onPoll) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<ViewStatus> s = status(name);
      if (s.isPresent()) {
        onPoll.accept(s.get());
        if (s.get().getPhase().equals("LIVE")) {
          return s.get();
        }
        if (s.get().getPhase().equals("FAILED")) {
          throw new IllegalStateException("view " + name + " FAILED: " + s.get().getError());
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("view " + name + " is not LIVE after " + timeout.toSeconds() + " s: "
            + s.map(v -> v.getPhase() + " " + v.getEventsApplied() + "/" + v.getBackfillTargetEvents()).orElse("missing"));
      }
      Thread.sleep(pollMs);
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
