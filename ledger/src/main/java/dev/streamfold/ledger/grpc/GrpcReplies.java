package dev.streamfold.ledger.grpc;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.function.Function;
import java.util.function.Supplier;

/** Answers a unary call from a computation, mapping its error to a gRPC status at the boundary. */
public final class GrpcReplies {
  private GrpcReplies() {}

  /**
   * Run {@code call} and send its value, or the status {@code toStatus} maps its error to.
   *
   * @param response the call's observer
   * @param call the computation
   * @param toStatus error to status mapper of the service
   * @param <T> response type
   */
  public static <T> void reply(StreamObserver<T> response, Supplier<T> call,
      Function<RuntimeException, StatusRuntimeException> toStatus) {
    T value;
    try {
      value = call.get();
    } catch (RuntimeException e) {
      response.onError(toStatus.apply(e));
      return;
    }
    response.onNext(value);
    response.onCompleted();
  }
}
