package dev.streamfold.transforms.grpc;

import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.grpc.LedgerStatus;
import dev.streamfold.schema.InvalidEventException;
import dev.streamfold.transforms.TransformException;
import dev.streamfold.views.ViewStore;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/** Maps the transform module's errors to gRPC statuses at the service boundary (the one mapper of its services). */
final class TransformStatus {
  private TransformStatus() {}

  /**
   * Map an error to a gRPC status exception; the description is the error's message.
   *
   * @param e the error
   * @return INVALID_ARGUMENT for bad SQL or Java transformations, cursors, replay ranges, names or training-set requests; NOT_FOUND for an unknown
   *     transformation or virtual state; ALREADY_EXISTS for a taken name; FAILED_PRECONDITION for an
   *     operation refused in the current state ({@link TransformException.Conflict}); UNAVAILABLE for
   *     ledger (Pulsar) and Redis failures; the ledger's own mapping for its other errors; INTERNAL otherwise
   */
  static StatusRuntimeException toStatus(RuntimeException e) {
    if (e instanceof LedgerException || e instanceof InvalidEventException || e instanceof StatusRuntimeException) {
      return LedgerStatus.toStatus(e);
    }
    Status status;
    if (e instanceof TransformException.InvalidSql || e instanceof TransformException.InvalidReplay
        || e instanceof TransformException.InvalidTrainingSet
        || e instanceof TransformException.InvalidFold || e instanceof IllegalArgumentException) {
      status = Status.INVALID_ARGUMENT;
    } else if (e instanceof TransformException.NotFound || e instanceof TransformException.VirtualStateNotFound) {
      status = Status.NOT_FOUND;
    } else if (e instanceof TransformException.AlreadyExists || e instanceof TransformException.VirtualStateExists) {
      status = Status.ALREADY_EXISTS;
    } else if (e instanceof TransformException.Conflict) {
      status = Status.FAILED_PRECONDITION;
    } else if (ViewStore.isRedisFailure(e)) {
      return Status.UNAVAILABLE.withDescription(ViewStore.describeRedisFailure(e)).withCause(e).asRuntimeException();
    } else {
      status = Status.INTERNAL;
    }
    return status.withDescription(e.getMessage()).withCause(e).asRuntimeException();
  }
}
