package dev.streamfold.ledger.grpc;

import dev.streamfold.api.v1.ClockTick;
import dev.streamfold.api.v1.CreateStreamRequest;
import dev.streamfold.api.v1.CreateStreamResponse;
import dev.streamfold.api.v1.ListStreamsRequest;
import dev.streamfold.api.v1.ListStreamsResponse;
import dev.streamfold.api.v1.ListTicksRequest;
import dev.streamfold.api.v1.ListTicksResponse;
import dev.streamfold.api.v1.StreamAdminGrpc;
import dev.streamfold.api.v1.TickPosition;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.schema.FromWire;
import io.grpc.stub.StreamObserver;
import java.util.List;

/** gRPC {@code StreamAdmin}: create and list streams of a tenant's ledger, read its clock's ticks. */
public final class StreamAdminGrpcService extends StreamAdminGrpc.StreamAdminImplBase {
  private final Ledger ledger;

  public StreamAdminGrpcService(Ledger ledger) {
    this.ledger = ledger;
  }

  @Override
  public void createStream(CreateStreamRequest request, StreamObserver<CreateStreamResponse> response) {
    GrpcReplies.reply(response, () -> {
        StreamRef stream = new StreamRef(request.getTenant(), request.getName());
        boolean created = ledger.createStream(stream, FromWire.columns(request.getColumnsList()),
            request.getWatermarkDelayMs(), request.getPartitions());
        return CreateStreamResponse.newBuilder()
          .setCreated(created).setStream(Protos.info(ledger.describe(stream))).build();
      }, LedgerStatus::toStatus);
  }

  @Override
  public void describeStorage(dev.streamfold.api.v1.StreamRequest request,
      StreamObserver<dev.streamfold.api.v1.StreamStorage> response) {
    GrpcReplies.reply(response, () -> {
        dev.streamfold.ledger.StreamStorage storage = ledger.storage(new StreamRef(request.getTenant(), request.getStream()));
        dev.streamfold.api.v1.StreamStorage.Builder b = dev.streamfold.api.v1.StreamStorage.newBuilder()
            .setTenant(request.getTenant()).setStream(request.getStream())
            .setLocalBytes(storage.localBytes()).setOffloadedBytes(storage.offloadedBytes());
        for (dev.streamfold.ledger.LedgerSegment s : storage.segments()) {
          b.addSegments(dev.streamfold.api.v1.LedgerSegment.newBuilder().setLedgerId(s.ledgerId())
              .setEntries(s.entries()).setSizeBytes(s.sizeBytes()).setOffloaded(s.offloaded())
              .setLocalDeleted(s.localDeleted()).setLocation(s.location()).setPartition(s.partition())
              .setOpen(s.open()));
        }
        return b.build();
      }, LedgerStatus::toStatus);
  }

  @Override
  public void offload(dev.streamfold.api.v1.StreamRequest request,
      StreamObserver<dev.streamfold.api.v1.OffloadStatus> response) {
    GrpcReplies.reply(response, () -> proto(ledger.offload(new StreamRef(request.getTenant(), request.getStream()))), LedgerStatus::toStatus);
  }

  @Override
  public void getOffloadStatus(dev.streamfold.api.v1.StreamRequest request,
      StreamObserver<dev.streamfold.api.v1.OffloadStatus> response) {
    GrpcReplies.reply(response, () -> proto(ledger.offloadStatus(new StreamRef(request.getTenant(), request.getStream()))), LedgerStatus::toStatus);
  }

  @Override
  public void setOffloadPolicy(dev.streamfold.api.v1.SetOffloadPolicyRequest request,
      StreamObserver<dev.streamfold.api.v1.SetOffloadPolicyResponse> response) {
    GrpcReplies.reply(response, () -> {
        ledger.setOffloadPolicy(request.getTenant(), request.getThresholdBytes(), request.getDeletionLagMs());
        return dev.streamfold.api.v1.SetOffloadPolicyResponse.getDefaultInstance();
      }, LedgerStatus::toStatus);
  }

  private static dev.streamfold.api.v1.OffloadStatus proto(dev.streamfold.ledger.OffloadStatus status) {
    return dev.streamfold.api.v1.OffloadStatus.newBuilder().setState(status.state())
        .setFirstNotOffloaded(status.firstNotOffloaded()).setError(status.error()).build();
  }

  @Override
  public void updateStreamSchema(dev.streamfold.api.v1.UpdateStreamSchemaRequest request,
      StreamObserver<dev.streamfold.api.v1.StreamInfo> response) {
    GrpcReplies.reply(response, () -> Protos.info(ledger.updateSchema(new StreamRef(request.getTenant(), request.getName()),
        FromWire.columns(request.getColumnsList()))), LedgerStatus::toStatus);
  }

  @Override
  public void listStreams(ListStreamsRequest request, StreamObserver<ListStreamsResponse> response) {
    GrpcReplies.reply(response, () -> {
        ListStreamsResponse.Builder b = ListStreamsResponse.newBuilder();
        for (StreamRef stream : ledger.listStreams(request.getTenant())) {
          b.addStreams(Protos.info(ledger.describe(stream)));
        }
        return b.build();
      }, LedgerStatus::toStatus);
  }

  /** The most ticks one {@code ListTicks} call returns. */
  public static final int MAX_TICKS = 10_000;
  /** The ticks a {@code ListTicks} call returns when it does not say. */
  public static final int DEFAULT_TICKS = 100;

  @Override
  public void listTicks(ListTicksRequest request, StreamObserver<ListTicksResponse> response) {
    GrpcReplies.reply(response, () -> {
      if (request.getAfterTick() < 0 || request.getMaxTicks() < 0 || request.getMaxTicks() > MAX_TICKS) {
        throw new IllegalArgumentException("after_tick must be >= 0 and max_ticks 0 (for " + DEFAULT_TICKS
            + ") to " + MAX_TICKS + ", got " + request.getAfterTick() + " and " + request.getMaxTicks());
      }
      List<Tick> ticks = request.getLast() ? ledger.lastTick(request.getTenant()).map(List::of).orElse(List.of())
          : ledger.ticks(request.getTenant(), request.getAfterTick(),
              request.getMaxTicks() == 0 ? DEFAULT_TICKS : request.getMaxTicks());
      ListTicksResponse.Builder b = ListTicksResponse.newBuilder();
      for (Tick tick : ticks) {
        ClockTick.Builder t = b.addTicksBuilder().setNumber(tick.number()).setTimeMs(tick.timeMs());
        tick.streams().forEach((stream, vector) -> t.addStreams(TickPosition.newBuilder().setStream(stream)
            .addAllMessageIds(vector.texts())));
      }
      return b.build();
    }, LedgerStatus::toStatus);
  }
}
