package dev.streamfold.transforms.grpc;

import dev.streamfold.api.v1.CreateTransformRequest;
import dev.streamfold.api.v1.DeleteTransformRequest;
import dev.streamfold.api.v1.DeleteTransformResponse;
import dev.streamfold.api.v1.GetTransformRequest;
import dev.streamfold.api.v1.JavaTransformation;
import dev.streamfold.api.v1.ListTransformsRequest;
import dev.streamfold.api.v1.ListTransformsResponse;
import dev.streamfold.api.v1.Transform;
import dev.streamfold.api.v1.TransformServiceGrpc;
import dev.streamfold.api.v1.UpdateTransformRequest;
import dev.streamfold.api.v1.ViewUpdate;
import dev.streamfold.ledger.grpc.GrpcReplies;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.transforms.ViewStatus;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.views.ViewMetadata;
import dev.streamfold.views.ViewPhase;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import java.util.function.Supplier;

/** gRPC {@code TransformService} over the {@link TransformManager}. */
public final class TransformGrpcService extends TransformServiceGrpc.TransformServiceImplBase {
  private final TransformManager manager;

  public TransformGrpcService(TransformManager manager) {
    this.manager = manager;
  }

  @Override
  public void create(CreateTransformRequest request, StreamObserver<Transform> response) {
    reply(response, () -> {
      if (request.hasFold()) {
        JavaTransformation fold = fold(request.getSql(), request.getFold());
        return proto(manager.createFold(request.getTenant(), request.getName(), fold.getStream(),
            fold.getJar().toByteArray(), fold.getClassName()));
      }
      return proto(manager.create(request.getTenant(), request.getName(), request.getSql(),
          request.getKeyColumnsList()));
    });
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

  @Override
  public void update(UpdateTransformRequest request, StreamObserver<Transform> response) {
    reply(response, () -> {
      if (request.hasFold()) {
        JavaTransformation fold = fold(request.getSql(), request.getFold());
        return proto(manager.updateFold(request.getTenant(), request.getName(), fold.getStream(),
            fold.getJar().toByteArray(), fold.getClassName()));
      }
      return proto(manager.update(request.getTenant(), request.getName(), request.getSql(),
          request.getKeyColumnsList()));
    });
  }

  /** A Java transformation request must not also carry SQL, and must name its stream and class. */
  private static JavaTransformation fold(String sql, JavaTransformation fold) {
    if (!sql.isBlank()) {
      throw new IllegalArgumentException("give either sql or fold, not both");
    }
    if (fold.getStream().isBlank()) {
      throw new IllegalArgumentException("fold.stream is empty: name the stream the Java transformation folds");
    }
    if (fold.getClassName().isBlank()) {
      throw new IllegalArgumentException("fold.class_name is empty: name the Transformation class in the jar");
    }
    return fold;
  }

  private static <T> void reply(StreamObserver<T> response, Supplier<T> call) {
    GrpcReplies.reply(response, call, TransformGrpcService::toStatus);
  }

  /**
   * Map an error to a gRPC status (see {@link TransformStatus#toStatus}).
   *
   * @param e the error
   * @return INVALID_ARGUMENT for bad SQL or names, NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION,
   *     UNAVAILABLE for ledger and Redis failures, INTERNAL otherwise
   */
  static StatusRuntimeException toStatus(RuntimeException e) {
    return TransformStatus.toStatus(e);
  }

  static Transform proto(TransformDefinition d) {
    return Transform.newBuilder()
        .setTenant(d.tenant()).setName(d.name()).setSql(d.isFold() ? "" : d.sql()).setSourceStream(d.sourceStream()).addAllStreams(d.streams())
        .setFoldClass(d.isFold() ? d.foldClass() : "").setJarSha256(d.isFold() ? d.jarSha256() : "")
        .addAllKeyColumns(d.keyColumns()).addAllColumns(d.columns().keySet())
        .setVersion(d.version()).setCreatedAtMs(d.createdAtMs())
        .build();
  }

  static dev.streamfold.api.v1.ViewStatus proto(ViewStatus s) {
    dev.streamfold.api.v1.ViewStatus.Builder b = dev.streamfold.api.v1.ViewStatus.newBuilder()
        .setTenant(s.definition().tenant()).setView(s.definition().name()).setError(s.error())
        .setVersion(s.definition().version()).setServedVersion(s.servedVersion()).setJobState(s.jobState())
        .setRolledBackTo(s.rolledBackTo().orElse("")).setStalled(s.stalled());
    s.update().ifPresent(u -> b.setUpdate(proto(u)));
    b.setPhase(phase(s.building(), s.jobState()));
    if (s.building().isEmpty()) {
      return b.build();
    }
    ViewMetadata m = s.building().get();
    return b.setEventsApplied(m.eventsApplied())
        .setBackfillTargetEvents(m.backfillTargetEvents())
        .setBackfillTargetMessageId(m.backfillTarget().toString())
        .addAllPosition(m.position().texts())
        .setClockPosition(m.clockPosition().toString())
        .setRows(m.rows())
        .setUpdatedAtMs(m.updatedAtMs())
        .build();
  }

  static ViewUpdate proto(ViewStatus.Update u) {
    ViewUpdate.Builder b = ViewUpdate.newBuilder().setVersion(u.definition().version())
        .setSql(u.definition().logic())
        .addAllKeyColumns(u.definition().keyColumns()).addAllColumns(u.definition().columns().keySet())
        .setJobState(u.jobState()).setError(u.error()).setStalled(u.stalled()).setPhase(phase(u.progress(), u.jobState()));
    u.progress().ifPresent(m -> b.setEventsApplied(m.eventsApplied()).setBackfillTargetEvents(m.backfillTargetEvents())
        .addAllPosition(m.position().texts()).setRows(m.rows()));
    return b.build();
  }

  /** STARTING before the first commit; FAILED when the metadata or the Flink job says so. */
  private static String phase(Optional<ViewMetadata> m, String jobState) {
    if ("FAILED".equals(jobState) || m.map(ViewMetadata::phase).orElse(null) == ViewPhase.FAILED) {
      return ViewPhase.FAILED.name();
    }
    return m.map(ViewMetadata::phase).orElse(ViewPhase.STARTING).name();
  }
}
