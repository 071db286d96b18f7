package dev.streamfold.transforms.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.TextFormat;
import dev.streamfold.api.v1.ExportTrainingSetRequest;
import dev.streamfold.api.v1.ExportTrainingSetResponse;
import dev.streamfold.api.v1.TrainingSetDone;
import dev.streamfold.api.v1.TrainingSetHeader;
import dev.streamfold.api.v1.TrainingSetPlan;
import dev.streamfold.api.v1.TrainingSetPlanFeature;
import dev.streamfold.api.v1.TrainingSetProgress;
import dev.streamfold.api.v1.TrainingSetRow;
import dev.streamfold.api.v1.TrainingSetRows;
import dev.streamfold.transforms.ReplayCursor;
import dev.streamfold.transforms.manager.TransformManager;
import dev.streamfold.transforms.training.FeatureSpec;
import dev.streamfold.transforms.training.TrainingSetExplanation;
import dev.streamfold.transforms.training.TrainingSetSpec;
import dev.streamfold.transforms.training.TrainingSetStatus;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code ExportTrainingSet} call: starts the build, streams its progress until it ends, then (with
 * {@code stream_rows}) the rows read back from the finished file, then the summary. Rows are sent only
 * while the call is ready (gRPC flow control), so a slow client holds back the reader, not the server's
 * memory.
 */
final class TrainingSetExport {
  /** Rows per {@code rows} message. */
  static final int ROWS_PER_MESSAGE = 500;
  private static final Logger LOG = LoggerFactory.getLogger(TrainingSetExport.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TransformManager manager;
  private final ScheduledExecutorService poller;
  private final ExecutorService rowSender;
  private final Duration progressInterval;
  private final StreamObserver<ExportTrainingSetResponse> response;
  private final ServerCallStreamObserver<ExportTrainingSetResponse> call;
  private final ExportTrainingSetRequest request;
  private final long startedNanos = System.nanoTime();
  private final Semaphore ready = new Semaphore(0);
  private volatile boolean cancelled;

  private TrainingSetExport(TransformManager manager, ScheduledExecutorService poller, ExecutorService rowSender,
      Duration progressInterval, ExportTrainingSetRequest request, StreamObserver<ExportTrainingSetResponse> response) {
    this.manager = manager;
    this.poller = poller;
    this.rowSender = rowSender;
    this.progressInterval = progressInterval;
    this.request = request;
    this.response = response;
    this.call = response instanceof ServerCallStreamObserver<ExportTrainingSetResponse> c ? c : null;
    if (call != null) {
      call.setOnCancelHandler(() -> {
        cancelled = true;
        ready.release();
      });
      call.setOnReadyHandler(ready::release);
    }
  }

  /**
   * Run one call: validate and start the build (errors end the call at once), then follow it.
   *
   * @param manager the transform manager
   * @param poller the thread polling the build's progress
   * @param rowSender threads reading finished files back
   * @param progressInterval interval between progress messages
   * @param request the request
   * @param response the call
   */
  static void run(TransformManager manager, ScheduledExecutorService poller, ExecutorService rowSender,
      Duration progressInterval, ExportTrainingSetRequest request, StreamObserver<ExportTrainingSetResponse> response) {
    if (request.getDryRun()) {
      try {
        response.onNext(ExportTrainingSetResponse.newBuilder().setPlan(plan(manager.explainTrainingSet(spec(request))))
            .build());
        response.onCompleted();
      } catch (RuntimeException e) {
        response.onError(TransformStatus.toStatus(e));
      }
      return;
    }
    TrainingSetExport export = new TrainingSetExport(manager, poller, rowSender, progressInterval, request, response);
    TrainingSetStatus first;
    try {
      first = manager.createTrainingSet(spec(request));
    } catch (RuntimeException e) {
      response.onError(TransformStatus.toStatus(e));
      return;
    }
    export.step(first);
  }

  /** The wire form of a training set's plan. */
  static TrainingSetPlan plan(TrainingSetExplanation e) {
    TrainingSetPlan.Builder plan = TrainingSetPlan.newBuilder().setName(e.name()).setLabelStream(e.labelStream())
        .setPartitions(e.partitions()).setStop(e.stop()).setReadThrough(e.readThrough())
        .setTargetEvents(e.targetEvents()).setTargetEventsExact(e.targetEventsExact()).setWhere(e.where())
        .setOutput(e.output()).setManifest(e.manifest()).setFormat(e.format())
        .setHeader(TrainingSetHeader.newBuilder().addAllColumns(e.columns()).addAllTypes(e.types()))
        .setTick(Math.max(0, e.tick())).setLabelsFile(e.labelsFile()).setLabelRows(e.labelRows())
        .setTimeColumn(e.timeColumn()).setCutRule(e.cutRule());
    for (TrainingSetExplanation.Feature f : e.features()) {
      plan.addFeatures(TrainingSetPlanFeature.newBuilder().setName(f.name()).setView(f.view())
          .setViewVersion(f.viewVersion()).setLogic(f.logic()).addAllStreams(f.streams()).setColumn(f.column())
          .setType(f.type()).setJoin(f.join()).setTtlMs(f.ttlMs()).setCut(f.cut()));
    }
    return plan.build();
  }

  /**
   * Turn a request into a training-set spec, checking the fields the build cannot default.
   *
   * @param r the request
   * @return the spec: {@code to} "" is latest, {@code out} "" is {@code <name>.parquet} (under the server's
   *     training-sets directory; under its {@code <tenant>/} subdirectory for a tenant token, which may only
   *     name relative paths there), {@code command} "" records the request itself
   * @throws IllegalArgumentException if name, label_stream, entity, label or features is missing, a feature
   *     does not parse, or {@code to} is not a cursor; the message names the field
   */
  static TrainingSetSpec spec(ExportTrainingSetRequest r) {
    require(r.getName(), "name", "the training set's name");
    boolean fromFile = !r.getLabelsFile().isBlank();
    if (fromFile) {
      require(r.getTimeColumn(), "time_column", "the labels file's column holding each row's time");
      require(r.getEntity(), "entity", "a SQL expression over the labels file's columns giving the entity key, e.g."
          + " origin");
    } else {
      require(r.getLabelStream(), "label_stream", "the stream whose events are the labels (or labels_file)");
      require(r.getEntity(), "entity", "a SQL expression over the label stream giving the entity key, e.g. origin");
      require(r.getLabel(), "label", "a SQL expression over the label stream, e.g. delay >= 15");
    }
    if (r.getFeaturesCount() == 0) {
      throw new IllegalArgumentException("field 'features' needs at least one feature: [name=]VIEW.column[@join][/ttl],"
          + " e.g. delays_by_origin.avg_delay");
    }
    List<FeatureSpec> features = new ArrayList<>();
    for (int i = 0; i < r.getFeaturesCount(); i++) {
      try {
        features.add(FeatureSpec.parse(r.getFeatures(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("field 'features' [" + i + "]: " + e.getMessage(), e);
      }
    }
    ReplayCursor to = r.getTo().isBlank() && !r.getBefore() ? ReplayCursor.latest()
        : ReplayGrpcService.toCursor(r.getTo().isBlank() ? "latest" : r.getTo(), !r.getBefore());
    String out = r.getOut().isBlank() ? r.getName() + ".parquet" : r.getOut().trim();
    dev.streamfold.api.auth.Caller caller = dev.streamfold.api.auth.Caller.current();
    if (caller != null && !caller.isAdmin()) {
      out = tenantOutput(r.getTenant(), out);
    }
    String command = r.getCommand().isBlank()
        ? "ExportTrainingSet " + TextFormat.printer().emittingSingleLine(true).printToString(r).trim()
        : r.getCommand();
    TrainingSetSpec.FileLabels labels = null;
    if (fromFile) {
      String path = r.getLabelsFile().trim();
      boolean confined = caller != null && !caller.isAdmin();
      if (confined && !java.nio.file.Path.of(path).isAbsolute()) {
        path = tenantPath("labels_file", r.getTenant(), path);
      }
      // an absolute path (the CLI sends one) is checked to be in the tenant's directory once resolved, by the server
      labels = new TrainingSetSpec.FileLabels(path, r.getTimeColumn(), confined ? r.getTenant() : null);
    }
    TrainingSetSpec.Cut cut;
    try {
      cut = TrainingSetSpec.Cut.parse(r.getCut(), r.getKnownAt());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("field 'cut': " + e.getMessage(), e);
    }
    return new TrainingSetSpec(r.getTenant(), r.getName(), r.getLabelStream(), r.getEntity(), r.getLabel(),
        r.getWhere(), features, to, out, command, labels, cut);
  }

  /**
   * Confine a tenant token's output file to {@code training-sets/<tenant>/} on the server, so that no tenant
   * writes (or overwrites) files outside its own directory; the admin token may name any path.
   *
   * @param tenant the caller's tenant
   * @param out the requested output path
   * @return {@code <tenant>/<out>}, relative to the server's training-sets directory
   * @throws IllegalArgumentException if {@code out} is absolute or leaves the directory ({@code ..})
   */
  static String tenantOutput(String tenant, String out) {
    return confined(tenant, out, "field 'out': with a tenant token a training set is written under the server's"
        + " training-sets/" + tenant + "/ directory; give a relative path there (or none), not '" + out + "' (any path"
        + " needs the admin token)");
  }

  /**
   * Confine a tenant token's labels file to {@code training-sets/<tenant>/} on the server, so that no tenant reads
   * files outside its own directory; the admin token may name any path.
   *
   * @param field the request field, for the message
   * @param tenant the caller's tenant
   * @param file the requested path
   * @return {@code <tenant>/<file>}, relative to the server's training-sets directory
   * @throws IllegalArgumentException if {@code file} is absolute or leaves the directory ({@code ..})
   */
  static String tenantPath(String field, String tenant, String file) {
    return confined(tenant, file, "field '" + field + "': with a tenant token a labels file is read from the server's"
        + " training-sets/" + tenant + "/ directory; give a path there, not '" + file + "' (any path needs the admin"
        + " token)");
  }

  /** {@code <tenant>/<path>}, or refused with {@code refusal} when the path is absolute, empty or leaves with '..'. */
  private static String confined(String tenant, String file, String refusal) {
    java.nio.file.Path path = java.nio.file.Path.of(file).normalize();
    if (path.isAbsolute() || path.startsWith("..") || path.toString().isEmpty()) {
      throw new IllegalArgumentException(refusal);
    }
    return tenant + "/" + path;
  }

  private static void require(String value, String field, String what) {
    if (value.isBlank()) {
      throw new IllegalArgumentException("field '" + field + "' is required: " + what);
    }
  }

  /**
   * Convert a build's status to a progress message.
   *
   * @param s the status
   * @param elapsedMs time since the call (or build) started, milliseconds
   * @return the message
   */
  static TrainingSetProgress progress(TrainingSetStatus s, long elapsedMs) {
    return TrainingSetProgress.newBuilder().setName(s.name()).setPhase(s.phase()).setEventsRead(s.eventsRead())
        .setTargetEvents(s.targetEvents()).setRows(s.rows()).setElapsedMs(elapsedMs).setOutput(s.output())
        .setManifest(s.manifest()).setStopMessageId(s.stopMessageId()).setError(s.error()).build();
  }

  /**
   * The summary of a COMPLETE build.
   *
   * @param s the status
   * @param rowsStreamed rows sent back in the call
   * @return the message: seconds from start to finish, rows per second of that (0 for an instant build)
   */
  static TrainingSetDone done(TrainingSetStatus s, long rowsStreamed) {
    double seconds = Math.max(0, s.finishedAtMs() - s.startedAtMs()) / 1000.0;
    return TrainingSetDone.newBuilder().setName(s.name()).setRows(s.rows()).setEventsRead(s.eventsRead())
        .setSeconds(seconds).setRowsPerSecond(seconds > 0 ? s.rows() / seconds : 0).setOutput(s.output())
        .setManifest(s.manifest()).setStopMessageId(s.stopMessageId()).setRowsStreamed(rowsStreamed).build();
  }

  private long elapsedMs() {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
  }

  /** Send progress; finish on COMPLETE or FAILED; else poll again after the interval. */
  private void step(TrainingSetStatus status) {
    if (status.phase().equals(TrainingSetStatus.FAILED)) {
      response.onError(Status.ABORTED.withDescription("training set '" + status.name() + "' FAILED: "
          + status.error()).asRuntimeException());
      return;
    }
    boolean complete = status.phase().equals(TrainingSetStatus.COMPLETE);
    if (complete || request.getDetach() || call == null || call.isReady()) {
      response.onNext(ExportTrainingSetResponse.newBuilder().setProgress(progress(status, elapsedMs())).build());
    }
    if (request.getDetach()) {
      response.onCompleted();
      return;
    }
    if (complete) {
      if (!request.getStreamRows()) {
        response.onNext(ExportTrainingSetResponse.newBuilder().setDone(done(status, 0)).build());
        response.onCompleted();
        return;
      }
      try {
        rowSender.execute(() -> sendRows(status));
      } catch (RejectedExecutionException closing) {
        shuttingDown(status.name());
      }
      return;
    }
    try {
      poller.schedule(this::poll, progressInterval.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      shuttingDown(status.name());
    }
  }

  private void shuttingDown(String name) {
    response.onError(Status.UNAVAILABLE.withDescription("the server is shutting down; the training set '" + name
        + "' may be built on: follow it with GetTrainingSet").asRuntimeException());
  }

  private void poll() {
    if (cancelled) {
      return;
    }
    TrainingSetStatus status;
    try {
      status = manager.trainingSet(request.getTenant(), request.getName());
    } catch (RuntimeException e) {
      LOG.debug("watching training set {}/{} failed", request.getTenant(), request.getName(), e);
      response.onError(TransformStatus.toStatus(e));
      return;
    }
    try {
      step(status);
    } catch (RuntimeException e) { // e.g. the call was cancelled between the check and onNext
      LOG.debug("cannot send the progress of training set {}/{}", request.getTenant(), request.getName(), e);
    }
  }

  /** Read the finished file back: header, rows in batches (flow-controlled), then the summary. */
  private void sendRows(TrainingSetStatus status) {
    long limit = request.getMaxRows() > 0 ? request.getMaxRows() : Long.MAX_VALUE;
    long sent = 0;
    try {
      JsonNode manifest = JSON.readTree(Files.readString(Path.of(status.manifest())));
      List<String> names = new ArrayList<>();
      List<String> types = new ArrayList<>();
      for (JsonNode column : manifest.path("columns")) {
        names.add(column.path("name").asText());
        types.add(column.path("type").asText());
      }
      if (!send(ExportTrainingSetResponse.newBuilder()
          .setHeader(TrainingSetHeader.newBuilder().addAllColumns(names).addAllTypes(types)).build())) {
        return;
      }
      try (TrainingSetRowReader reader = TrainingSetRowReader.open(Path.of(status.output()), names, types)) {
        TrainingSetRows.Builder batch = TrainingSetRows.newBuilder();
        TrainingSetRow row;
        while (sent < limit && (row = reader.next()) != null) {
          batch.addRows(row);
          sent++;
          if (batch.getRowsCount() == ROWS_PER_MESSAGE) {
            if (!send(ExportTrainingSetResponse.newBuilder().setRows(batch).build())) {
              return;
            }
            batch = TrainingSetRows.newBuilder();
          }
        }
        if (batch.getRowsCount() > 0 && !send(ExportTrainingSetResponse.newBuilder().setRows(batch).build())) {
          return;
        }
      }
      response.onNext(ExportTrainingSetResponse.newBuilder().setDone(done(status, sent)).build());
      response.onCompleted();
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot stream the rows of training set {}/{}", request.getTenant(), request.getName(), e);
      if (!cancelled) {
        response.onError(Status.INTERNAL.withDescription("training set '" + status.name() + "' is COMPLETE in "
            + status.output() + ", but reading it back failed after " + sent + " rows: " + e.getMessage())
            .asRuntimeException());
      }
    }
  }

  /** Send one message once the call is ready; false when the call was cancelled. */
  private boolean send(ExportTrainingSetResponse message) throws IOException {
    while (!cancelled && call != null && !call.isReady()) {
      try {
        ready.tryAcquire(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for the client", e);
      }
    }
    if (cancelled) {
      return false;
    }
    response.onNext(message);
    return true;
  }
}
