package dev.streamfold.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.DropVirtualStateResponse;
import dev.streamfold.api.v1.Event;
import dev.streamfold.api.v1.LedgerSegment;
import dev.streamfold.api.v1.OffloadStatus;
import dev.streamfold.api.v1.ReplayProgress;
import dev.streamfold.api.v1.ReplayRequest;
import dev.streamfold.api.v1.SetOffloadPolicyRequest;
import dev.streamfold.api.v1.StreamInfo;
import dev.streamfold.api.v1.StreamRequest;
import dev.streamfold.api.v1.StreamStorage;
import dev.streamfold.api.v1.VirtualState;
import dev.streamfold.api.v1.VirtualStateRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/**
 * Benchmark 5: replay. Builds a virtual state of {@value BackfillBench#VIEW} at the message ID {@code --at}
 * events into the flights stream (default 1,000,000: every event up to and including the 1,000,000th) with
 * {@code ReplayService.Replay}, timed from the call until its progress stream reports COMPLETE, and compares
 * the rate with the backfill rate of the same view measured in the same run (from {@code 2-backfill.json} in
 * the results directory; measured here with {@code --backfill-reps} backfills when that file is missing).
 * Every state is checked against a plain group-by of the same {@code --at} payloads, then dropped.
 *
 * <p>Then the same replay with those events offloaded to S3 and their local copies deleted: stream
 * {@code flights_tiered_<at>} holds the first {@code --at} flights of the same file (so the same payloads in
 * the same order), plus at least one segment (500 single-event entries) after them, so that the segment
 * holding the stop is closed and can be offloaded. The stream is the benchmark's own and is kept in the data
 * directory like {@code flights}: the flights stream itself is never offloaded, so that later runs'
 * backfills still read BookKeeper. While its history is still local, the replay is measured on it first
 * (the same stream, before the offload); then the bench sets the tenant's policy (manual offload, deletion
 * lag {@code --deletion-lag-ms}, default 0), offloads the stream, waits until every closed segment is
 * offloaded and its local copy deleted ({@code DescribeStorage}; the broker deletes at its retention check,
 * every 120 s), and replays again. A later run on the same data directory finds the stream offloaded and
 * measures only the replay from S3. The view {@code delays_by_origin_tiered_<at>} that the replays of that
 * stream need is deleted at the end (a later run creates it again).
 *
 * <p>Flags: {@code --at N} (1,000,000), {@code --events N} (3,000,000: the flights stream is loaded to this
 * size when shorter, like the backfill benchmark does), {@code --warmup N} (1), {@code --reps N} (3),
 * {@code --tiered true|false} (true), {@code --tiered-reps N} (2), {@code --backfill-reps N} (1),
 * {@code --deletion-lag-ms MS} (0), {@code --deletion-timeout-s S} (600).
 */
final class ReplayBench {
  static final String TIERED_STREAM_PREFIX = "flights_tiered_";
  static final String TIERED_VIEW_PREFIX = "delays_by_origin_tiered_";
  static final String STATE_PREFIX = "bench_replay_";
  /** Entries per ledger segment of the local stack's broker (LocalStack.LOCAL_MAX_ENTRIES_PER_LEDGER). */
  static final int SEGMENT_ENTRIES = 500;
  static final Duration REPLAY_TIMEOUT = Duration.ofMinutes(30);

  private final BenchEnv env;
  private final Report report;
  private final List<Map<String, Object>> runs = new ArrayList<>();

  ReplayBench(BenchEnv env) {
    this.env = env;
    this.report = new Report("5-replay", env.resultsDir);
  }

  void run() throws Exception {
    long at = env.getLong("at", 1_000_000);
    long events = Math.max(at, env.getLong("events", 3_000_000));
    int warmup = env.getInt("warmup", 1);
    int reps = env.getInt("reps", 3);
    report.detail("at", at);
    try (Streamfold sf = new Streamfold(env.grpcTarget(), env.tenant, env.adminToken());
        PulsarRaw raw = new PulsarRaw(env.stack().pulsarServiceUrl(), env.stack().pulsarAdminUrl())) {
      StreamInfo flights = FlightEvents.ensureLoaded(env, sf, FlightEvents.STREAM, events, report);
      ensureView(sf, BackfillBench.VIEW, FlightEvents.STREAM);
      report.detail("streamEvents", flights.getEventCount());

      // The stop, and the group-by of the same events for the check.
      List<byte[]> payloads = new ArrayList<>((int) at);
      String stop = messageIdAt(raw, flights.getTopic(), at, payloads);
      Map<String, long[]> oracle = BackfillBench.parseAndFold(payloads, new String[payloads.size()], new int[payloads.size()]);
      payloads = null;
      System.out.printf("[5-replay] event %,d of stream %s (%,d events) is %s; %d origins up to it%n", at,
          FlightEvents.STREAM, flights.getEventCount(), stop, oracle.size());
      report.detail("stop", stop);

      Stats.Series local = replays(sf, BackfillBench.VIEW, stop, at, oracle, warmup, reps, "local", "replay");
      Stats.Summary backfill = backfillRate(sf);
      String what = String.format("%s at the message ID %,d events into %s (%,d events), Replay call -> COMPLETE",
          BackfillBench.VIEW, at, FlightEvents.STREAM, flights.getEventCount());
      boolean met = local.summary("events/s").median() >= backfill.median();
      report.row(what, "events/s", true, local.summary("events/s"), backfillBaselineName, backfill,
          "ratio >= 1 (as fast as backfill)", met);
      report.row(what, "seconds", false, local.summary("seconds"), null, null, null, null);
      report.row(what, "peak server RSS (MiB)", false, local.summary("peak server RSS MiB"), null, null, null, null);

      if (Boolean.parseBoolean(env.get("tiered", "true"))) {
        tiered(sf, raw, at, stop, oracle, local);
      }
      report.detail("runs", runs);
      report.write();
    }
  }

  private String backfillBaselineName = "backfill of the same view, same run";

  /** The backfill rate of delays_by_origin in this run: from 2-backfill.json, else measured here. */
  private Stats.Summary backfillRate(Streamfold sf) throws Exception {
    Path file = env.resultsDir.resolve("2-backfill.json");
    if (Files.exists(file)) {
      JsonNode doc = Report.JSON.readTree(file.toFile());
      for (JsonNode row : doc.path("rows")) {
        if (row.path("figure").asText().equals("events/s") && row.path("case").asText().endsWith("create -> LIVE")) {
          List<Double> values = new ArrayList<>();
          row.path("ours").path("repetitions").forEach(v -> values.add(v.asDouble()));
          backfillBaselineName = "backfill of the same view (" + String.format("%,d", doc.path("details").path("events").asLong())
              + " events, create -> LIVE), benchmark 2 of this run";
          report.detail("backfillBaseline", "2-backfill.json of this run");
          return Stats.of(values);
        }
      }
    }
    int reps = env.getInt("backfill-reps", 1);
    Stats.Series series = new Stats.Series();
    String name = BackfillBench.VIEW + "_rb";
    for (int i = 0; i < reps; i++) {
      sf.deleteTransform(name);
      long t0 = System.nanoTime();
      sf.createTransform(name, String.format(FlightEvents.DELAYS_BY_ORIGIN_SQL_TEMPLATE, FlightEvents.STREAM),
          List.of("origin"));
      var live = sf.awaitLive(name, BackfillBench.LIVE_TIMEOUT, 50, s -> {});
      double seconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf("[5-replay] baseline backfill of %s: %,d events in %.1f s = %,.0f events/s%n", name,
          live.getEventsApplied(), seconds, live.getEventsApplied() / seconds);
      series.add("events/s", live.getEventsApplied() / seconds);
      sf.deleteTransform(name);
    }
    backfillBaselineName = "backfill of the same view, measured by this benchmark (no 2-backfill.json in the run)";
    report.detail("backfillBaseline", "measured by the replay benchmark, " + reps + " run(s)");
    return series.summary("events/s");
  }

  /** Replay the same events from a stream whose history is offloaded to S3, local copies deleted. */
  private void tiered(Streamfold sf, PulsarRaw raw, long at, String flightsStop, Map<String, long[]> oracle,
      Stats.Series local) throws Exception {
    int reps = env.getInt("tiered-reps", 2);
    String stream = TIERED_STREAM_PREFIX + at;
    String view = TIERED_VIEW_PREFIX + at;
    StreamInfo info = FlightEvents.ensureLoaded(env, sf, stream, at, report);
    String stop = messageIdAt(raw, info.getTopic(), at, null);
    closeSegmentOf(sf, stream, stop);
    ensureView(sf, view, stream);
    StreamRequest request = StreamRequest.newBuilder().setTenant(env.tenant).setStream(stream).build();
    StreamStorage storage = sf.admin().describeStorage(request);
    Stats.Series before = null;
    if (!historyInS3(storage, stop)) {
      before = replays(sf, view, stop, at, oracle, 0, reps, "local, before the offload", "replay on " + stream);
      sf.admin().setOffloadPolicy(SetOffloadPolicyRequest.newBuilder().setTenant(env.tenant).setThresholdBytes(-1)
          .setDeletionLagMs(env.getLong("deletion-lag-ms", 0)).build());
      long t0 = System.nanoTime();
      OffloadStatus status = sf.admin().offload(request);
      while (!status.getState().equals("SUCCESS") && !status.getState().equals("ERROR")) {
        Thread.sleep(500);
        status = sf.admin().getOffloadStatus(request);
      }
      if (!status.getState().equals("SUCCESS")) {
        throw new IllegalStateException("offload of " + stream + " ended " + status.getState() + ": " + status.getError());
      }
      double offloadSeconds = (System.nanoTime() - t0) / 1e9;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(env.getLong("deletion-timeout-s", 600));
      storage = sf.admin().describeStorage(request);
      while (!historyInS3(storage, stop)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the local copies of " + stream + " were not deleted in time: " + describe(storage));
        }
        Thread.sleep(1_000);
        storage = sf.admin().describeStorage(request);
      }
      double deletedSeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf("[5-replay] offloaded %s in %.1f s; local copies deleted %.1f s after the offload call: %s%n",
          stream, offloadSeconds, deletedSeconds, describe(storage));
      report.detail("offload", Map.of("stream", stream, "offloadSeconds", offloadSeconds,
          "localCopiesDeletedAfterSeconds", deletedSeconds));
    } else {
      System.out.printf("[5-replay] %s is already offloaded with its local copies deleted: %s%n", stream, describe(storage));
    }
    report.detail("tieredStorage", Map.of("stream", stream, "stop", stop, "segments", describe(storage),
        "localBytes", storage.getLocalBytes(), "offloadedBytes", storage.getOffloadedBytes()));
    Stats.Series s3 = replays(sf, view, stop, at, oracle, 0, reps, "from S3", "replay on " + stream);
    String what = String.format("the same replay (%,d events, stream %s) with them offloaded to S3, local copies deleted",
        at, stream);
    if (before != null) {
      report.row(what, "events/s", true, s3.summary("events/s"), "the same replay on the same stream before the offload",
          before.summary("events/s"), null, null);
    }
    report.row(what, "events/s", true, s3.summary("events/s"), String.format("replay at %,d events into %s (local)", at,
        FlightEvents.STREAM), local.summary("events/s"), null, null);
    report.row(what, "seconds", false, s3.summary("seconds"), before == null ? null : "before the offload",
        before == null ? null : before.summary("seconds"), null, null);
    report.row(what, "peak RSS of s3proxy (MiB)", false, s3.summary("peak s3 RSS MiB"), null, null, null, null);
    sf.deleteTransform(view); // a job less for the benchmarks after this one; the next run rebuilds it (from S3)
  }

  /** True when every segment up to the one holding {@code stop} is offloaded and deleted locally. */
  private static boolean historyInS3(StreamStorage storage, String stop) {
    long stopLedger = Long.parseLong(stop.split(":")[0]);
    List<LedgerSegment> upTo = storage.getSegmentsList().stream().filter(s -> s.getLedgerId() <= stopLedger).toList();
    return !upTo.isEmpty() && upTo.stream().allMatch(s -> s.getOffloaded() && s.getLocalDeleted());
  }

  private static String describe(StreamStorage storage) {
    long offloaded = storage.getSegmentsList().stream().filter(LedgerSegment::getOffloaded).count();
    long deleted = storage.getSegmentsList().stream().filter(LedgerSegment::getLocalDeleted).count();
    return String.format("%d segments, %d offloaded, %d local copies deleted; %,d bytes local, %,d offloaded",
        storage.getSegmentsCount(), offloaded, deleted, storage.getLocalBytes(), storage.getOffloadedBytes());
  }

  /**
   * Append single-event entries (one unary Append each) until the segment holding {@code stop} is closed: the
   * broker closes a segment after {@value #SEGMENT_ENTRIES} entries, and only closed segments are offloaded.
   */
  private void closeSegmentOf(Streamfold sf, String stream, String stop) throws Exception {
    long stopLedger = Long.parseLong(stop.split(":")[0]);
    StreamRequest request = StreamRequest.newBuilder().setTenant(env.tenant).setStream(stream).build();
    List<Event> filler = FlightEvents.read(Path.of(env.get("flights",
        env.dataDir.resolve("cache/flights-3m.parquet").toString())), 100);
    int appended = 0;
    while (true) {
      List<LedgerSegment> segments = sf.admin().describeStorage(request).getSegmentsList();
      if (segments.get(segments.size() - 1).getLedgerId() > stopLedger) {
        break;
      }
      if (appended > 4 * SEGMENT_ENTRIES) {
        throw new IllegalStateException("the segment " + stopLedger + " of " + stream + " is still open after "
            + appended + " single-event appends");
      }
      for (int i = 0; i < 100; i++, appended++) {
        sf.ingestBlocking().withDeadlineAfter(30, TimeUnit.SECONDS).append(AppendRequest.newBuilder()
            .setTenant(env.tenant).setStream(stream).addEvents(filler.get(i)).build());
      }
    }
    if (appended > 0) {
      System.out.printf("[5-replay] appended %d single-event entries to %s after its first %s events, so that the"
          + " segment holding the stop is closed%n", appended, stream, stop);
    }
  }

  /** Create a delays_by_origin view on a stream unless it exists, and wait until it is LIVE. */
  private void ensureView(Streamfold sf, String view, String stream) throws Exception {
    if (sf.status(view).isEmpty()) {
      sf.createTransform(view, String.format(FlightEvents.DELAYS_BY_ORIGIN_SQL_TEMPLATE, stream), List.of("origin"));
    }
    sf.awaitLive(view, BackfillBench.LIVE_TIMEOUT, 200, s -> {});
  }

  /**
   * Return the message ID (text form) of the {@code n}-th event of a topic (1-based), read with the raw reader
   * from earliest; keep the payloads of the first {@code n} events when {@code keep} is given.
   */
  private static String messageIdAt(PulsarRaw raw, String topic, long n, List<byte[]> keep) throws Exception {
    try (Reader<byte[]> reader = raw.client.newReader(Schema.BYTES).topic(topic).startMessageId(MessageId.earliest)
        .create()) {
      Message<byte[]> m = null;
      for (long i = 0; i < n; i++) {
        m = reader.readNext(60, TimeUnit.SECONDS);
        if (m == null) {
          throw new IllegalStateException("raw reader: no message within 60 s after " + i + " of " + n + " in " + topic);
        }
        if (keep != null) {
          keep.add(m.getData());
        }
      }
      MessageIdAdv id = (MessageIdAdv) m.getMessageId();
      return id.getLedgerId() + ":" + id.getEntryId() + ":" + id.getPartitionIndex() + ":" + id.getBatchIndex();
    }
  }

  /**
   * Replay {@code view} up to and including {@code stop} into fresh virtual states, {@code warmup + reps} times;
   * each state is checked against the group-by and dropped.
   */
  private Stats.Series replays(Streamfold sf, String view, String stop, long at, Map<String, long[]> oracle,
      int warmup, int reps, String where, String label) throws Exception {
    Stats.Series series = new Stats.Series();
    // With --jfr, one more repetition after the measured ones is recorded and not counted: in the full run of
    // session 6 the recorded (last measured) replay took 9.6 s against 2.7-3.5 s for the others.
    int profiled = env.jfrDir == null ? 0 : 1;
    for (int rep = 0; rep < warmup + reps + profiled; rep++) {
      boolean profile = rep == warmup + reps;
      boolean measured = rep >= warmup && !profile;
      String state = STATE_PREFIX + view;
      drop(sf, state);
      String jfrName = "replay-" + where.replaceAll("[^a-zA-Z0-9]+", "-").replaceAll("-$", "");
      if (profile) {
        env.jfrStart(jfrName);
      }
      Map<String, Double> peak;
      VirtualState done;
      // Progress timeline (seen in the ~200 ms progress messages): first events applied, all applied.
      double firstApplied = -1;
      double allApplied = -1;
      double seconds;
      try (RssSampler sampler = RssSampler.start(env.pids(), 100)) {
        long t0 = System.nanoTime();
        Iterator<ReplayProgress> progress = sf.replay().withDeadlineAfter(REPLAY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .replay(ReplayRequest.newBuilder().setTenant(env.tenant).setView(view).setTo(stop).setAs(state).build());
        VirtualState last = null;
        while (progress.hasNext()) {
          last = progress.next().getState();
          if (firstApplied < 0 && last.getEventsApplied() > 0) {
            firstApplied = (System.nanoTime() - t0) / 1e9;
          }
          if (allApplied < 0 && last.getEventsApplied() >= at) {
            allApplied = (System.nanoTime() - t0) / 1e9;
          }
        }
        seconds = (System.nanoTime() - t0) / 1e9;
        peak = sampler.peaksMib();
        done = last;
      }
      if (profile) {
        env.jfrStop(jfrName);
      }
      if (done == null || !done.getPhase().equals("COMPLETE")) {
        throw new IllegalStateException("replay " + state + " ended " + (done == null ? "without progress" : done.getPhase()
            + " " + done.getError()));
      }
      int mismatches = BackfillBench.check(env.respUri(), state, oracle);
      double eps = done.getEventsApplied() / seconds;
      System.out.printf("[5-replay] %s %s %s: %,d events in %.2f s = %,.0f events/s, %d rows, position %s; %d/%d origins"
          + " differ from the group-by; peak RSS MiB server %.0f, s3 %.0f; progress: first events applied at %.1f s, all"
          + " at %.1f s%n", label, where,
          profile ? "profiled (not counted)" : measured ? "rep " + (rep - warmup + 1) : "warm-up", done.getEventsApplied(), seconds, eps, done.getRows(),
          done.getPositionList(), mismatches, oracle.size(), peak.getOrDefault("server", 0.0), peak.getOrDefault("s3", 0.0),
          firstApplied, allApplied);
      Map<String, Object> run = new LinkedHashMap<>();
      run.put("view", view);
      run.put("where", where);
      run.put("measured", measured);
      run.put("events", done.getEventsApplied());
      run.put("seconds", seconds);
      run.put("firstEventsAppliedSeconds", firstApplied);
      run.put("allEventsAppliedSeconds", allApplied);
      run.put("rows", done.getRows());
      run.put("position", done.getPositionList());
      run.put("peakRssMib", peak);
      run.put("originsDifferingFromGroupBy", mismatches);
      runs.add(run);
      drop(sf, state);
      if (mismatches != 0 || done.getEventsApplied() != at) {
        throw new IllegalStateException("replay " + state + " applied " + done.getEventsApplied() + " events (expected "
            + at + ") and differs from the group-by in " + mismatches + " origins");
      }
      if (measured) {
        series.add("events/s", eps);
        series.add("seconds", seconds);
        series.add("peak server RSS MiB", peak.getOrDefault("server", 0.0));
        series.add("peak s3 RSS MiB", peak.getOrDefault("s3", 0.0));
      }
    }
    return series;
  }

  private void drop(Streamfold sf, String state) {
    try {
      DropVirtualStateResponse ignored = sf.replay().withDeadlineAfter(Streamfold.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .dropVirtualState(VirtualStateRequest.newBuilder().setTenant(env.tenant).setName(state).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
        throw e;
      }
    }
  }
}
