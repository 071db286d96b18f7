package dev.streamfold.ledger.pulsar.clock;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.clock.PollSchedule;
import dev.streamfold.ledger.pulsar.admin.StreamTopics;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.pulsar.client.api.PulsarClient;

/**
 * This server's clock writers: one {@link ClockWriter} per tenant it knows, all on one scheduler thread. Every
 * server of a cluster runs one per tenant; Pulsar lets one of them write (docs/design.md, "Many streams, one
 * clock"). Thread-safe.
 */
public final class TenantClocks implements AutoCloseable {
  /**
   * How often a writer lists its tenant's streams again, so that a stream another server created gets into the
   * ticks (one this server created or appended to is listed at once). Each listing is two admin (REST) calls.
   */
  public static final Duration DEFAULT_LIST_INTERVAL = Duration.ofSeconds(5);

  private final PulsarClient client;
  private final StreamTopics topics;
  private final ClockReader reader;
  private final Duration interval;
  private final Duration timeout;
  private final Clock clock;
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "ledger-clock");
    t.setDaemon(true);
    return t;
  });
  private final Map<String, ClockWriter> writers = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * Create the writers' home; no writer runs before {@link #start}.
   *
   * @param client the Pulsar client (not closed by this class)
   * @param topics the stream topics, to list each tenant's streams and their partitions
   * @param reader reads a clock's last tick when a writer takes over
   * @param interval how often each writer reads positions, > 0
   * @param timeout longest wait for one Pulsar operation
   * @param clock the wall clock of the ticks' times
   */
  public TenantClocks(PulsarClient client, StreamTopics topics, ClockReader reader, Duration interval,
      Duration timeout, Clock clock) {
    if (interval.isZero() || interval.isNegative()) {
      throw new IllegalArgumentException("clock interval must be > 0, got " + interval);
    }
    this.client = client;
    this.topics = topics;
    this.reader = reader;
    this.interval = interval;
    this.timeout = timeout;
    this.clock = clock;
  }

  /**
   * Run a tenant's clock writer on this server, if it does not run yet. Returns at once; the writer writes once
   * Pulsar grants it the clock topic.
   *
   * @param tenant a provisioned tenant
   */
  public void start(String tenant) {
    if (closed) {
      return;
    }
    writers.computeIfAbsent(tenant, t -> {
      ClockWriter writer = new ClockWriter(client, t, new StreamPositions(client, topics, t, clock,
          DEFAULT_LIST_INTERVAL, new PollSchedule(interval, PollSchedule.DEFAULT_MAX_IDLE.compareTo(interval) < 0
              ? interval : PollSchedule.DEFAULT_MAX_IDLE)), reader, scheduler, interval, timeout, clock);
      writer.start();
      return writer;
    });
  }

  /**
   * This server appended to (an acknowledged append) or created a stream: its writer asks about the stream in its
   * next round (it asks about streams nobody touched less often, see {@link PollSchedule}). Cheap, thread-safe.
   *
   * @param stream the stream
   */
  public void touched(StreamRef stream) {
    ClockWriter writer = writers.get(stream.tenant());
    if (writer != null) {
      writer.touched(stream);
    }
  }

  /** True when this server's writer of a tenant's clock holds the clock topic. */
  public boolean writing(String tenant) {
    ClockWriter writer = writers.get(tenant);
    return writer != null && writer.writing();
  }

  /**
   * Stop writing a tenant's clock on this server (another server's writer, if any, takes over).
   *
   * @param tenant the tenant
   */
  public void stop(String tenant) {
    ClockWriter writer = writers.remove(tenant);
    if (writer != null) {
      writer.close();
    }
  }

  @Override
  public void close() {
    closed = true;
    writers.values().forEach(ClockWriter::close);
    writers.clear();
    scheduler.shutdownNow();
  }
}
