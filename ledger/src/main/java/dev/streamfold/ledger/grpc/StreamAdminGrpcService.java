package dev.streamfold.ledger.grpc;

import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateStreamResponse;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.ListStreamsResponse;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.StreamRef;
import io.grpc.stub.StreamObserver;

/** gRPC {@code StreamAdmin}: create and list streams of a tenant's ledger. */
public final class StreamAdminGrpcService extends StreamAdminGrpc.StreamAdminImplBase {
  private final Ledger ledger;

  public StreamAdminGrpcService(Ledger ledger) {
    this.ledger = ledger;
  }

  @Override
  public void createStream(CreateStreamRequest request, StreamObserver<CreateStreamResponse> response) {
    try {
      StreamRef stream = new StreamRef(request.getTenant(), request.getName());
      boolean created = ledger.createStream(stream, Protos.columns(request.getColumnsList()));
      response.onNext(CreateStreamResponse.newBuilder()
          .setCreated(created).setStream(Protos.info(ledger.describe(stream))).build());
      response.onCompleted();
    } catch (RuntimeException e) {
      response.onError(LedgerStatus.toStatus(e));
    }
  }

  @Override
  public void listStreams(ListStreamsRequest request, StreamObserver<ListStreamsResponse> response) {
    try {
      ListStreamsResponse.Builder b = ListStreamsResponse.newBuilder();
      for (StreamRef stream : ledger.listStreams(request.getTenant())) {
        b.addStreams(Protos.info(ledger.describe(stream)));
      }
      response.onNext(b.build());
      response.onCompleted();
    } catch (RuntimeException e) {
      response.onError(LedgerStatus.toStatus(e));
    }
  }
}
