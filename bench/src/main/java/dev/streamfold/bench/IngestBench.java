package dev.streamfold.bench;

import dev.streamfold.api.v1.AppendRequest;
import dev.streamfold.api.v1.AppendResponse;
import dev.streamfold.api.v1.Event;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;

/**
 * Benchmark 1, ingest. {@code AppendStream} of real flights events and of 1 KB synthetic events into one
 * stream, against the raw Pulsar producer with the same batching into the same broker (topics of the
 * {@value PulsarRaw#NAMESPACE} namespace, deduplication on like the ledger), each side with the same
 * client flow control: requests of {@code --batch} events (default 2,000, the CLI's), at most
 * {@code --window} (16) awaiting acknowledgement. Figures: events/s over the run and the ack latency of
 * a request (first event sent to its acknowledgement), p50/p99. Then unary {@code Append} with batches of
 * 1, 100 and 1,000 events, one call at a time, against the raw producer sending the same batch and
 * waiting for its last acknowledgement.
 *
 * <p>Flags: {@code --flights FILE} (Parquet), {@code --events N} (flights per run, default 200,000),
 * {@code --synthetic-events N} (1 KB events per run, default 50,000), {@code --warmup N} (1; warm-up runs
 * per side, repeated until each side has run {@code --warmup-s} seconds, default 10, in all),
 * {@code --reps N} (5), {@code --unary-events N} (events per unary case, default 20,000; batch 1 uses a
 * fortieth), {@code --clock-rounds N} (2; rounds of the tenant clock's cost, clock off against on, see
 * {@link #clockCase}; 0 skips it).
 */
final class IngestBench {
  static final String FLIGHTS_STREAM = "bench_ingest_flights";
  static final String SYNTH_STREAM = "bench_ingest_1kb";
  static final List<String> SYNTH_COLUMNS = List.of("id:BIGINT", "pad:STRING");
  static final int SYNTH_PAYLOAD_BYTES = 1024;
  static final int SYNTH_KEYS = 1000;

  private final BenchEnv env;
  private final Report report;
  /** Least time each side of a stream case spends in warm-up runs (the server's JIT warms up, not Pulsar's). */
  private long warmupNanos;

  IngestBench(BenchEnv env) {
    this.env = env;
    this.report = new Report("1-ingest", env.resultsDir);
  }

  void run() throws Exception {
    int batch = env.getInt("batch", 2000);
    int window = env.getInt("window", 16);
    int warmup = env.getInt("warmup", 1);
    double warmupSeconds = env.getDouble("warmup-s", 10);
    int reps = env.getInt("reps", 5);
    Path parquet = Path.of(env.get("flights", env.dataDir.resolve("cache/flights-3m.parquet").toString()));
    List<Event> flights = FlightEvents.read(parquet, env.getLong("events", 200_000));
    List<Event> synth = synthetic(env.getInt("synthetic-events", 50_000));
    report.detail("parameters", Map.of("batchEvents", batch, "windowRequests", window, "warmup", warmup,
        "warmupSeconds", warmupSeconds, "reps", reps,
        "flightEvents", flights.size(), "syntheticEvents", synth.size(), "syntheticPayloadBytes", SYNTH_PAYLOAD_BYTES));
    System.out.printf("[1-ingest] %,d flights events, %,d synthetic 1 KB events; batch %d, window %d, %d warm-up"
        + " (each side at least %.0f s) + %d reps%n", flights.size(), synth.size(), batch, window, warmup, warmupSeconds,
        reps);
    this.warmupNanos = (long) (warmupSeconds * 1e9);

    try (Streamfold sf = new Streamfold(env.grpcTarget(), env.tenant, env.adminToken());
        PulsarRaw raw = new PulsarRaw(env.stack().pulsarServiceUrl(), env.stack().pulsarAdminUrl())) {
      raw.ensureNamespace();
      sf.ensureStream(FLIGHTS_STREAM, FlightEvents.COLUMNS);
      sf.ensureStream(SYNTH_STREAM, SYNTH_COLUMNS);
      streamCase(sf, raw, "AppendStream, flights (~" + avgPayload(flights) + " B payload)", "flights", FLIGHTS_STREAM,
          flights, batch, window, warmup, reps);
      streamCase(sf, raw, "AppendStream, 1 KB synthetic", "synthetic", SYNTH_STREAM, synth, batch, window, warmup, reps);
      int unaryEvents = env.getInt("unary-events", 20_000);
      for (int unaryBatch : new int[] {1, 100, 1000}) {
        int n = unaryBatch == 1 ? Math.max(100, unaryEvents / 40) : unaryEvents;
        unaryCase(sf, raw, flights.subList(0, Math.min(n, flights.size())), unaryBatch, warmup, reps);
      }
    }
    clockCase(flights, batch, window, warmup, env.getInt("clock-rounds", 2));
    report.write();
  }

  /**
   * The tenant clock's cost on ingest (docs/design.md, "The clock, as built"): AppendStream of the flights into a
   * server whose clock writer is off ({@code --clock-interval-ms 0}) and one where it runs as it was started,
   * each a restart of the stack's server, in alternating order for {@code rounds} rounds. Each side warms up as
   * the stream cases do, then measures two runs.
   */
  private void clockCase(List<Event> events, int batch, int window, int warmup, int rounds) throws Exception {
    if (rounds <= 0) {
      return;
    }
    ServerControl server = new ServerControl(env);
    String asStarted = server.current(ServerControl.CLOCK_FLAG).orElse("100");
    List<AppendRequest> requests = requests(env.tenant, FLIGHTS_STREAM, events, batch);
    Stats.Series on = new Stats.Series();
    Stats.Series off = new Stats.Series();
    for (int round = 0; round < rounds; round++) {
      for (int side = 0; side < 2; side++) {
        boolean clockOn = (side == 0) == (round % 2 == 1);
        server.restartWith(ServerControl.CLOCK_FLAG, clockOn ? asStarted : "0");
        try (Streamfold sf = new Streamfold(env.grpcTarget(), env.tenant, env.adminToken())) {
          long warmed = 0;
          for (int w = 0; w < warmup || warmed < warmupNanos; w++) {
            long t0 = System.nanoTime();
            appendStream(sf, requests, window);
            warmed += System.nanoTime() - t0;
          }
          for (int rep = 0; rep < 2; rep++) {
            Run r = appendStream(sf, requests, window);
            (clockOn ? on : off).add("events/s", r.eventsPerSecond);
            System.out.printf("[1-ingest] clock %s, round %d, run %d: %,.0f events/s%n", clockOn ? "on (" + asStarted
                + " ms)" : "off", round + 1, rep + 1, r.eventsPerSecond);
          }
        }
      }
    }
    server.restartWith(ServerControl.CLOCK_FLAG, asStarted);
    report.row("AppendStream, flights: tenant clock on (" + asStarted + " ms ticks) vs off", "events/s", true,
        on.summary("events/s"), "clock off", off.summary("events/s"), "ratio >= 0.95",
        on.summary("events/s").median() >= 0.95 * off.summary("events/s").median());
  }

  private void streamCase(Streamfold sf, PulsarRaw raw, String caseName, String tag, String stream, List<Event> events,
      int batch, int window, int warmup, int reps) throws Exception {
    List<AppendRequest> requests = requests(env.tenant, stream, events, batch);
    RawMessages messages = RawMessages.of(events);
    Stats.Series ours = new Stats.Series();
    Stats.Series base = new Stats.Series();
    String topic = PulsarRaw.topic("ingest-" + tag);
    try (Producer<byte[]> producer = raw.producer(topic, "bench-raw-" + tag)) {
      long[] seq = {producer.getLastSequenceId() + 1};
      // Warm-up: at least --warmup runs per side, and then more until each side has run for --warmup-s
      // seconds in all (the same rule for both): one run of 100,000 events is well under a second, far
      // too short for the server's JIT (the measured repetitions kept rising, docs/performance.md).
      long[] warmedNanos = new long[2];
      int warmupRuns = warmup;
      for (int rep = 0; rep < warmupRuns + reps; rep++) {
        boolean measured = rep >= warmupRuns;
        String label = measured ? "rep " + (rep - warmupRuns + 1) : "warm-up";
        if (rep == 0) {
          // JFR's first start in the server re-instruments JDK classes (deoptimizing hot I/O code): do it
          // before the warm-up, not at the first measured repetition (which was always the slowest).
          env.jfrStart("ingest-" + tag + "-warmup");
        }
        if (measured && rep == warmupRuns) {
          env.jfrDiscard("ingest-" + tag + "-warmup");
          env.jfrStart("ingest-" + tag);
        }
        // Alternate the order so that neither side always runs on a warmer (or more fragmented) broker.
        for (int side = 0; side < 2; side++) {
          boolean oursNow = (side == 0) == (rep % 2 == 0);
          long t0 = System.nanoTime();
          long[] cpu0 = cpuNanos();
          Run r = oursNow ? appendStream(sf, requests, window) : rawStream(producer, messages, seq, batch, window);
          if (measured) {
            addCpu(oursNow ? ours : base, cpu0, cpuNanos(), events.size(), oursNow);
          }
          if (!measured) {
            warmedNanos[oursNow ? 0 : 1] += System.nanoTime() - t0;
          }
          System.out.printf("[1-ingest] %s %s %s: %,.0f events/s, request ack p50 %.1f ms, p99 %.1f ms%n",
              tag, oursNow ? "AppendStream" : "raw producer", label, r.eventsPerSecond, r.latencies.percentileMs(50),
              r.latencies.percentileMs(99));
          if (measured) {
            Stats.Series s = oursNow ? ours : base;
            s.add("events/s", r.eventsPerSecond);
            s.add("p50", r.latencies.percentileMs(50));
            s.add("p99", r.latencies.percentileMs(99));
          }
        }
        if (!measured && rep == warmupRuns - 1 && Math.min(warmedNanos[0], warmedNanos[1]) < warmupNanos) {
          warmupRuns++; // one more warm-up round (both sides)
        }
      }
      System.out.printf("[1-ingest] %s: %d warm-up rounds, %.1f s ours, %.1f s raw%n", tag, warmupRuns,
          warmedNanos[0] / 1e9, warmedNanos[1] / 1e9);
      env.jfrStop("ingest-" + tag);
    }
    String baseName = "raw Pulsar producer";
    report.row(caseName, "events/s", true, ours.summary("events/s"), baseName, base.summary("events/s"),
        "ratio >= 0.8", ours.summary("events/s").median() >= 0.8 * base.summary("events/s").median());
    if (ours.has("cpu")) {
      // The server's own CPU time (user + system, all threads) per appended event: less sensitive to other
      // work on the machine than events/s (docs/performance.md, session 5).
      report.row(caseName, "server CPU per event (us, user + system)", false, ours.summary("cpu"), null, null, null,
          null);
    }
    if (ours.has("cpu total") && base.has("cpu total")) {
      // Every process's CPU per event, each side: on 2 cores a side that needs more CPU per event cannot keep
      // up once the cores are busy, so raw/ours of these totals bounds the events/s ratio from above.
      report.row(caseName, "client CPU per event (us; ours: gRPC client, raw: Pulsar producer)", false,
          ours.summary("cpu client"), baseName, base.summary("cpu client"), null, null);
      report.row(caseName, "broker CPU per event (us)", false, ours.summary("cpu broker"), baseName,
          base.summary("cpu broker"), null, null);
      report.row(caseName, "CPU per event, all processes (us)", false, ours.summary("cpu total"), baseName,
          base.summary("cpu total"), null, null);
    }
    report.row(caseName, "ack latency p50 (ms, per " + batch + "-event request)", false, ours.summary("p50"), baseName,
        base.summary("p50"), null, null);
    report.row(caseName, "ack latency p99 (ms, per " + batch + "-event request)", false, ours.summary("p99"), baseName,
        base.summary("p99"), null, null);
  }

  private void unaryCase(Streamfold sf, PulsarRaw raw, List<Event> events, int batch, int warmup, int reps)
      throws Exception {
    List<AppendRequest> requests = requests(env.tenant, FLIGHTS_STREAM, events, batch);
    RawMessages messages = RawMessages.of(events);
    Stats.Series ours = new Stats.Series();
    Stats.Series base = new Stats.Series();
    try (Producer<byte[]> producer = raw.producer(PulsarRaw.topic("ingest-unary"), "bench-raw-unary")) {
      long[] seq = {producer.getLastSequenceId() + 1};
      for (int rep = 0; rep < warmup + reps; rep++) {
        boolean measured = rep >= warmup;
        for (int side = 0; side < 2; side++) {
          boolean oursNow = (side == 0) == (rep % 2 == 0);
          Run r = oursNow ? unaryAppend(sf, requests) : rawUnary(producer, messages, seq, batch);
          System.out.printf("[1-ingest] unary batch %d %s %s: %,.0f events/s, call p50 %.2f ms, p99 %.2f ms%n", batch,
              oursNow ? "Append" : "raw producer", measured ? "rep " + (rep - warmup + 1) : "warm-up",
              r.eventsPerSecond, r.latencies.percentileMs(50), r.latencies.percentileMs(99));
          if (measured) {
            Stats.Series s = oursNow ? ours : base;
            s.add("events/s", r.eventsPerSecond);
            s.add("p50", r.latencies.percentileMs(50));
            s.add("p99", r.latencies.percentileMs(99));
          }
        }
      }
    }
    String caseName = "unary Append, batch " + batch + " (one call at a time)";
    String baseName = "raw producer, same batch, wait for last ack";
    report.row(caseName, "events/s", true, ours.summary("events/s"), baseName, base.summary("events/s"),
        null, null);
    report.row(caseName, "call latency p50 (ms)", false, ours.summary("p50"), baseName, base.summary("p50"), null, null);
    report.row(caseName, "call latency p99 (ms)", false, ours.summary("p99"), baseName, base.summary("p99"), null, null);
  }

  /**
   * CPU time used so far by the server, the Pulsar broker and this benchmark's own JVM (the client of both
   * sides), ns; an entry is -1 when unknown.
   */
  private long[] cpuNanos() {
    return new long[] {ProcCpu.process(Long.toString(env.serverPid())),
        ProcCpu.process(Long.toString(env.pids().get("pulsar"))), ProcCpu.process("self")};
  }

  /** Record per-event CPU (us) of one run: "cpu" (the server's), "cpu client", "cpu broker" and "cpu total". */
  private static void addCpu(Stats.Series s, long[] before, long[] after, int events, boolean ours) {
    for (int i = 0; i < 3; i++) {
      if (before[i] < 0 || after[i] < 0) {
        return;
      }
    }
    double server = (after[0] - before[0]) / 1e3 / events;
    double broker = (after[1] - before[1]) / 1e3 / events;
    double client = (after[2] - before[2]) / 1e3 / events;
    if (ours) {
      s.add("cpu", server);
    }
    s.add("cpu broker", broker);
    s.add("cpu client", client);
    // The raw side does not use the server: its idle CPU then is not the raw producer's cost.
    s.add("cpu total", broker + client + (ours ? server : 0));
  }

  /** One run: throughput and per-request ack latencies. */
  record Run(double eventsPerSecond, Stats.Latencies latencies) {}

  static List<AppendRequest> requests(String tenant, String stream, List<Event> events, int batch) {
    List<AppendRequest> requests = new ArrayList<>();
    for (int i = 0; i < events.size(); i += batch) {
      requests.add(AppendRequest.newBuilder().setTenant(tenant).setStream(stream).setRequestSeq(requests.size() + 1)
          .addAllEvents(events.subList(i, Math.min(events.size(), i + batch))).build());
    }
    return requests;
  }

  /** Append pre-built requests over one AppendStream call with at most {@code window} unacknowledged. */
  static Run appendStream(Streamfold sf, List<AppendRequest> requests, int window) throws InterruptedException {
    Semaphore permits = new Semaphore(window);
    long[] sentAt = new long[requests.size() + 1];
    Stats.Latencies latencies = new Stats.Latencies();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    long[] events = {0};
    ClientResponseObserver<AppendRequest, AppendResponse> observer = new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<AppendRequest> requestStream) {}

      @Override
      public void onNext(AppendResponse response) {
        long now = System.nanoTime();
        synchronized (latencies) {
          latencies.add(now - sentAt[(int) response.getRequestSeq()]);
          events[0] += response.getMessageIdsCount();
        }
        permits.release();
      }

      @Override
      public void onError(Throwable t) {
        failure.set(t);
        permits.release(window);
        done.countDown();
      }

      @Override
      public void onCompleted() {
        done.countDown();
      }
    };
    long start = System.nanoTime();
    io.grpc.stub.StreamObserver<AppendRequest> call = sf.ingestAsync().appendStream(observer);
    for (AppendRequest request : requests) {
      permits.acquire();
      if (failure.get() != null) {
        break;
      }
      sentAt[(int) request.getRequestSeq()] = System.nanoTime();
      call.onNext(request);
    }
    call.onCompleted();
    if (!done.await(10, TimeUnit.MINUTES)) {
      throw new IllegalStateException("AppendStream: no completion within 10 minutes");
    }
    if (failure.get() != null) {
      throw new IllegalStateException("AppendStream failed: " + failure.get(), failure.get());
    }
    long elapsed = System.nanoTime() - start;
    return new Run(events[0] * 1e9 / elapsed, latencies);
  }

  /** The raw producer with the same flow control: groups of {@code batch} messages, {@code window} groups in flight. */
  static Run rawStream(Producer<byte[]> producer, RawMessages messages, long[] seq, int batch, int window)
      throws InterruptedException {
    Semaphore permits = new Semaphore(window);
    Stats.Latencies latencies = new Stats.Latencies();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    int n = messages.size();
    int groups = (n + batch - 1) / batch;
    CountDownLatch allAcked = new CountDownLatch(groups);
    long start = System.nanoTime();
    for (int g = 0; g < groups; g++) {
      permits.acquire();
      if (failure.get() != null) {
        break;
      }
      int from = g * batch;
      int to = Math.min(n, from + batch);
      AtomicInteger remaining = new AtomicInteger(to - from);
      long t0 = System.nanoTime();
      for (int i = from; i < to; i++) {
        send(producer, messages, i, seq[0]++).whenComplete((id, error) -> {
          if (error != null) {
            failure.compareAndSet(null, error);
          }
          if (remaining.decrementAndGet() == 0) {
            long now = System.nanoTime();
            synchronized (latencies) {
              latencies.add(now - t0);
            }
            permits.release();
            allAcked.countDown();
          }
        });
      }
    }
    if (!allAcked.await(10, TimeUnit.MINUTES) || failure.get() != null) {
      throw new IllegalStateException("raw producer failed: " + failure.get(), failure.get());
    }
    long elapsed = System.nanoTime() - start;
    return new Run(n * 1e9 / elapsed, latencies);
  }

  static Run unaryAppend(Streamfold sf, List<AppendRequest> requests) {
    Stats.Latencies latencies = new Stats.Latencies();
    long events = 0;
    long start = System.nanoTime();
    for (AppendRequest request : requests) {
      long t0 = System.nanoTime();
      AppendResponse response = sf.ingestBlocking().withDeadlineAfter(60, TimeUnit.SECONDS).append(request);
      latencies.add(System.nanoTime() - t0);
      events += response.getMessageIdsCount();
    }
    return new Run(events * 1e9 / (System.nanoTime() - start), latencies);
  }

  static Run rawUnary(Producer<byte[]> producer, RawMessages messages, long[] seq, int batch) throws Exception {
    Stats.Latencies latencies = new Stats.Latencies();
    int n = messages.size();
    long start = System.nanoTime();
    for (int from = 0; from < n; from += batch) {
      long t0 = System.nanoTime();
      CompletableFuture<MessageId> last = null;
      List<CompletableFuture<MessageId>> all = new ArrayList<>(batch);
      for (int i = from; i < Math.min(n, from + batch); i++) {
        last = send(producer, messages, i, seq[0]++);
        all.add(last);
      }
      CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
      latencies.add(System.nanoTime() - t0);
    }
    return new Run(n * 1e9 / (System.nanoTime() - start), latencies);
  }

  static CompletableFuture<MessageId> send(Producer<byte[]> producer, RawMessages m, int i, long sequenceId) {
    return producer.newMessage().key(m.keys[i]).eventTime(m.eventTimesMs[i]).sequenceId(sequenceId)
        .value(m.payloads[i]).sendAsync();
  }

  /** The same events as the raw producer sends them: key, event time, payload bytes (what the ledger stores). */
  record RawMessages(String[] keys, long[] eventTimesMs, byte[][] payloads) {
    static RawMessages of(List<Event> events) {
      int n = events.size();
      String[] keys = new String[n];
      long[] times = new long[n];
      byte[][] payloads = new byte[n][];
      long now = System.currentTimeMillis();
      for (int i = 0; i < n; i++) {
        Event e = events.get(i);
        keys[i] = e.getKey();
        times[i] = e.getEventTimeMs() > 0 ? e.getEventTimeMs() : now;
        payloads[i] = e.getPayloadJson().getBytes(StandardCharsets.UTF_8);
      }
      return new RawMessages(keys, times, payloads);
    }

    int size() {
      return keys.length;
    }
  }

  static List<Event> synthetic(int n) {
    List<Event> events = new ArrayList<>(n);
    String prefix = "{\"id\":";
    long base = 978_307_200_000L; // 2001-01-01T00:00:00Z
    for (int i = 0; i < n; i++) {
      String head = prefix + i + ",\"pad\":\"";
      int padLength = SYNTH_PAYLOAD_BYTES - head.length() - 2;
      StringBuilder json = new StringBuilder(SYNTH_PAYLOAD_BYTES).append(head);
      for (int j = 0; j < padLength; j++) {
        json.append((char) ('a' + (i + j) % 26));
      }
      json.append("\"}");
      events.add(Event.newBuilder().setKey("k" + (i % SYNTH_KEYS)).setEventTimeMs(base + i).setPayloadJson(json.toString())
          .build());
    }
    return events;
  }

  static int avgPayload(List<Event> events) {
    long bytes = 0;
    for (Event e : events) {
      bytes += e.getPayloadJson().length();
    }
    return events.isEmpty() ? 0 : (int) (bytes / events.size());
  }
}
