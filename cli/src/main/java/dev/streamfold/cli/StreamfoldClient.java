package dev.streamfold.cli;

import dev.streamfold.api.v1.IngestServiceGrpc;
import dev.streamfold.api.v1.ReplayServiceGrpc;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.TransformServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** A gRPC connection to the Streamfold server with its stubs (plaintext, loopback by default). */
final class StreamfoldClient implements AutoCloseable {
  /** Deadline of one unary admin call. */
  static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(60);

  private final ManagedChannel channel;
  private final String target;

  private StreamfoldClient(ManagedChannel channel, String target) {
    this.channel = channel;
    this.target = target;
  }

  /**
   * Open a channel (connects lazily, on the first call).
   *
   * @param target {@code host:port}
   * @param token API token sent with every call ({@code authorization: Bearer <token>}); null sends none
   * @return the client; close it
   */
  static StreamfoldClient connect(String target, String token) {
    NettyChannelBuilder builder = NettyChannelBuilder.forTarget(target).usePlaintext()
        .maxInboundMessageSize(64 * 1024 * 1024)
        // a refusal's details travel in the trailers: more than gRPC's default 8 KiB of them was an HTTP/2 error
        .maxInboundMetadataSize(1024 * 1024);
    if (token != null) {
      io.grpc.Metadata headers = new io.grpc.Metadata();
      headers.put(dev.streamfold.api.auth.AuthInterceptor.AUTHORIZATION, dev.streamfold.api.auth.AuthInterceptor.bearer(token));
      builder.intercept(io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    ManagedChannel channel = builder.build();
    return new StreamfoldClient(channel, target);
  }

  String target() {
    return target;
  }

  /** Stream admin stub with a fresh deadline of {@link #DEFAULT_CALL_TIMEOUT}. */
  StreamAdminGrpc.StreamAdminBlockingStub admin() {
    return StreamAdminGrpc.newBlockingStub(channel).withDeadlineAfter(DEFAULT_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Transform stub with a fresh deadline of {@link #DEFAULT_CALL_TIMEOUT}. */
  TransformServiceGrpc.TransformServiceBlockingStub transforms() {
    return TransformServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(DEFAULT_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Replay stub (virtual states, rollback, resume) with a fresh deadline of {@link #DEFAULT_CALL_TIMEOUT}. */
  ReplayServiceGrpc.ReplayServiceBlockingStub replays() {
    return ReplayServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(DEFAULT_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Replay stub for the progress stream of {@code Replay}.
   *
   * @param timeout deadline of the whole stream (the replay's build time)
   */
  ReplayServiceGrpc.ReplayServiceBlockingStub replayStream(Duration timeout) {
    return ReplayServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Tenant stub with a fresh deadline of {@link #DEFAULT_CALL_TIMEOUT}. */
  dev.streamfold.api.v1.TenantServiceGrpc.TenantServiceBlockingStub tenants() {
    return dev.streamfold.api.v1.TenantServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(DEFAULT_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Async ingest stub (no deadline: an ingestion may take minutes). */
  IngestServiceGrpc.IngestServiceStub ingest() {
    return IngestServiceGrpc.newStub(channel);
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
