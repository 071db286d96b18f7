package dev.streamfold.transforms.grpc;

import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.DeleteTransformRequest;
import dev.streamfold.api.v1.DeleteTransformResponse;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.ListTransformsRequest;
import dev.streamfold.api.v1.ListTransformsResponse;
import dev.streamfold.api.v1.Transform;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.grpc.GrpcReplies;
import dev.streamfold.ledger.grpc.LedgerStatus;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.TransformManager;
import dev.streamfold.transforms.ViewStatus;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewPhase;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;

/** gRPC {@code TransformService} over the {@link TransformManager}. */
public final class TransformGrpcService extends TransformServiceGrpc.TransformServiceImplBase {
  private final TransformManager manager;

  public TransformGrpcService(TransformManager manager) {
    this.manager = manager;
  }

  @Override
  public void create(CreateTransformRequest request, StreamObserver<Transform> response) {
    reply(response, () -> proto(manager.create(request.getTenant(), request.getName(), request.getSql(),
        request.getKeyColumnsList())));
  }

  @Override
  public void get(GetTransformRequest request, StreamObserver<Transform> response) {
    reply(response, () -> proto(manager.get(request.getTenant(), request.getName())));
  }

  @Override
  public void list(ListTransformsRequest request, StreamObserver<ListTransformsResponse> response) {
    reply(response, () -> {
      ListTransformsResponse.Builder b = ListTransformsResponse.newBuilder();
      manager.list(request.getTenant()).forEach(d -> b.addTransforms(proto(d)));
      return b.build();
    });
  }

  @Override
  public void delete(DeleteTransformRequest request, StreamObserver<DeleteTransformResponse> response) {
    reply(response, () -> {
      if (!manager.delete(request.getTenant(), request.getName())) {
        throw new TransformException.NotFound(request.getTenant(), request.getName());
      }
      return DeleteTransformResponse.newBuilder().setDeleted(true).build();
    });
  }

  @Override
  public void status(GetTransformRequest request, StreamObserver<dev.streamfold.api.v1.ViewStatus> response) {
    reply(response, () -> proto(manager.status(request.getTenant(), request.getName())));
  }

  private static <T> void reply(StreamObserver<T> response, Supplier<T> call) {
    GrpcReplies.reply(response, call, TransformGrpcService::toStatus);
  }

  /**
   * Map an error to a gRPC status.
   *
   * @param e the error
   * @return INVALID_ARGUMENT for bad SQL or names, NOT_FOUND, ALREADY_EXISTS, UNAVAILABLE for ledger
   *     failures, INTERNAL otherwise
   */
  static StatusRuntimeException toStatus(RuntimeException e) {
    if (e instanceof LedgerException || e instanceof StatusRuntimeException) {
      return LedgerStatus.toStatus(e);
    }
    Status status;
    if (e instanceof TransformException.InvalidSql || e instanceof IllegalArgumentException) {
      status = Status.INVALID_ARGUMENT;
    } else if (e instanceof TransformException.NotFound) {
      status = Status.NOT_FOUND;
    } else if (e instanceof TransformException.AlreadyExists) {
      status = Status.ALREADY_EXISTS;
    } else if (dev.streamfold.views.ViewStore.isRedisFailure(e)) {
      status = Status.UNAVAILABLE;
    } else {
      status = Status.INTERNAL;
    }
    return status.withDescription(e.getMessage()).withCause(e).asRuntimeException();
  }

  static Transform proto(TransformDefinition d) {
    return Transform.newBuilder()
        .setTenant(d.tenant()).setName(d.name()).setSql(d.sql()).setSourceStream(d.sourceStream())
        .addAllKeyColumns(d.keyColumns()).addAllColumns(d.columns().keySet())
        .setVersion(d.version()).setCreatedAtMs(d.createdAtMs())
        .build();
  }

  static dev.streamfold.api.v1.ViewStatus proto(ViewStatus s) {
    dev.streamfold.api.v1.ViewStatus.Builder b = dev.streamfold.api.v1.ViewStatus.newBuilder()
        .setTenant(s.definition().tenant()).setView(s.definition().name()).setError(s.error());
    if (s.building().isEmpty()) {
      b.setPhase(ViewPhase.STARTING.name());
      return b.build();
    }
    ViewMetadata m = s.building().get();
    String phase = m.phase().name();
    if ("FAILED".equals(s.jobState()) || m.phase() == ViewPhase.FAILED) {
      phase = ViewPhase.FAILED.name();
    }
    return b.setPhase(phase)
        .setEventsApplied(m.eventsApplied())
        .setBackfillTargetEvents(m.backfillTargetEvents())
        .setBackfillTargetMessageId(m.backfillTargetMessageId())
        .addAllPosition(m.position())
        .setRows(m.rows())
        .setUpdatedAtMs(m.updatedAtMs())
        .build();
  }
}
