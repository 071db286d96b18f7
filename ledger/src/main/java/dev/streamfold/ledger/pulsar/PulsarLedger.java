package dev.streamfold.ledger.pulsar;

import dev.streamfold.core.MessageId;
import dev.streamfold.core.StreamRef;
import dev.streamfold.core.Tick;
import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.OffloadStatus;
import dev.streamfold.ledger.StoredEvent;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.ledger.StreamStorage;
import dev.streamfold.ledger.SystemTable;
import dev.streamfold.ledger.pulsar.admin.StreamTopics;
import dev.streamfold.ledger.pulsar.admin.TenantProvisioner;
import dev.streamfold.ledger.pulsar.clock.ClockReader;
import dev.streamfold.ledger.pulsar.clock.TenantClocks;
import dev.streamfold.ledger.pulsar.clock.TickLocator;
import dev.streamfold.ledger.pulsar.read.StreamReader;
import dev.streamfold.ledger.pulsar.schema.PulsarSchemaRegistry;
import dev.streamfold.ledger.pulsar.storage.BookieAdmin;
import dev.streamfold.ledger.pulsar.storage.TieredStorageAdmin;
import dev.streamfold.schema.EventEnvelope;
import dev.streamfold.schema.StreamColumn;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.SizeUnit;

/**
 * The {@link Ledger} on Pulsar. Each stream has one named producer ({@value #PRODUCER_NAME}) with
 * explicit sequence ids, so the broker's deduplication (namespace policy) stores a message the client
 * library resends (after a reconnect) once, and a stream's event count is its latest sequence id + 1.
 * Client idempotency keys are enforced by a per-stream {@link IdempotencyIndex}.
 *
 * <p>This class owns the Pulsar clients and the executors and hands each role to its class:
 * {@link TenantProvisioner}, {@link StreamTopics}, {@link PulsarSchemaRegistry}, {@link StreamReader},
 * {@link StreamAppenders}, {@link TieredStorageAdmin}, the system tables and artifacts, and the tenants' clocks
 * ({@link ClockReader}; {@link TenantClocks} when {@link LedgerOptions#clockInterval} is set).
 */
public final class PulsarLedger implements Ledger {
  /** Producer name of Streamfold's appender on every stream (the broker deduplicates per name). */
  public static final String PRODUCER_NAME = "streamfold-appender";
  /**
   * Pulsar tenant of the cluster-level system tables ({@link #clusterTable}). Not a valid Streamfold tenant
   * name (it starts with '_'), so no customer tenant can be named so, and {@link #tenants()} leaves it out.
   */
  public static final String CLUSTER_TENANT = TenantProvisioner.CLUSTER_TENANT;
  /** How often the idempotency index's high-water mark is advanced, milliseconds. */
  public static final long HWM_INTERVAL_MS = 5_000;

  private final LedgerOptions options;
  private final PulsarClient client;
  private final PulsarAdmin admin;
  private final ExecutorService sendPool = Executors.newCachedThreadPool(new ThreadFactory() {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "ledger-append-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  });
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "ledger-idempotency-hwm");
    t.setDaemon(true);
    return t;
  });
  private final TenantProvisioner tenants;
  private final StreamTopics topics;
  private final PulsarSchemaRegistry schemas;
  private final TieredStorageAdmin storage;
  private final StreamReader reader;
  private final StreamAppenders appenders;
  private final Map<String, PulsarSystemTable> tables = new ConcurrentHashMap<>();
  private final PulsarArtifacts artifacts;
  private final ClockReader clockReader;
  private final TenantClocks clocks; // null: this ledger writes no clock

  private PulsarLedger(LedgerOptions options, PulsarClient client, PulsarAdmin admin) {
    this.options = options;
    this.client = client;
    this.admin = admin;
    this.clockReader = new ClockReader(client, options.operationTimeout(), new TickLocator(admin, client,
        options.operationTimeout(), TickLocator.DEFAULT_SCAN_ENTRIES));
    this.tenants = new TenantProvisioner(admin, this::startClock);
    this.topics = new StreamTopics(admin, tenants);
    this.schemas = new PulsarSchemaRegistry(admin, topics);
    this.storage = new TieredStorageAdmin(admin, tenants, topics, new BookieAdmin(options.bookieAdminUrl()));
    this.reader = new StreamReader(client, topics, storage, options.operationTimeout());
    this.appenders = new StreamAppenders(client, topics, reader::describe, options.operationTimeout(), sendPool);
    this.artifacts = new PulsarArtifacts(client, admin);
    this.clocks = options.writesClock() ? new TenantClocks(client, topics, clockReader, options.clockInterval(),
        options.operationTimeout(), Clock.systemUTC()) : null;
    scheduler.scheduleWithFixedDelay(appenders::advanceHighWaterMarks, HWM_INTERVAL_MS, HWM_INTERVAL_MS,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Connect to a Pulsar cluster.
   *
   * @param options URLs and timeout
   * @return the ledger; close it when done
   * @throws LedgerException.Unavailable if the clients cannot be built
   */
  public static PulsarLedger connect(LedgerOptions options) {
    try {
      int timeoutMs = (int) options.operationTimeout().toMillis();
      PulsarClient client = PulsarClient.builder().serviceUrl(options.serviceUrl())
          .operationTimeout(timeoutMs, TimeUnit.MILLISECONDS)
          .connectionTimeout(10, TimeUnit.SECONDS)
          .memoryLimit(256, SizeUnit.MEGA_BYTES)
          .build();
      PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(options.adminUrl())
          .connectionTimeout(10, TimeUnit.SECONDS)
          .readTimeout(timeoutMs, TimeUnit.MILLISECONDS)
          .requestTimeout(timeoutMs, TimeUnit.MILLISECONDS)
          .build();
      return new PulsarLedger(options, client, admin);
    } catch (PulsarClientException e) {
      throw new LedgerException.Unavailable("cannot connect to Pulsar at " + options.serviceUrl(), e);
    }
  }

  /**
   * Run this ledger's writer of a tenant's clock, if it writes clocks ({@link LedgerOptions#clockInterval}) and
   * does not run one yet; a server calls it for each tenant it serves. A tenant this ledger provisions (its
   * first stream, table or artifact here) gets one too. Returns at once: the writer writes once Pulsar grants
   * it the clock (one writer per tenant at a time, across servers).
   *
   * @param tenant a tenant name
   */
  public void startClock(String tenant) {
    if (clocks != null) {
      clocks.start(tenant);
    }
  }

  /**
   * Tell whether this ledger writes a tenant's clock now (of the servers that run a writer for a tenant, one
   * writes; see {@link LedgerOptions#clockInterval}).
   *
   * @param tenant a tenant name
   * @return false also when this ledger writes no clock
   */
  public boolean writesClock(String tenant) {
    return clocks != null && clocks.writing(tenant);
  }

  /**
   * Stop writing a tenant's clock here; another ledger's writer of it, if any, takes over.
   *
   * @param tenant a tenant name
   */
  public void stopClock(String tenant) {
    if (clocks != null) {
      clocks.stop(tenant);
    }
  }

  @Override
  public java.time.Duration clockInterval() {
    return options.clockInterval();
  }

  @Override
  public Optional<Tick> lastTick(String tenant) {
    return clockReader.last(tenant);
  }

  @Override
  public List<Tick> ticks(String tenant, long afterTick, int maxTicks) {
    return clockReader.ticks(tenant, afterTick, maxTicks);
  }

  @Override
  public Optional<Tick> firstTick(String tenant, java.util.function.Predicate<Tick> test) {
    return clockReader.first(tenant, test);
  }

  @Override
  public void ensureTenant(String tenant) {
    tenants.ensureTenant(tenant);
  }

  @Override
  public boolean createStream(StreamRef stream, List<StreamColumn> columns, long watermarkDelayMs, int partitions) {
    boolean created = topics.create(stream, columns, watermarkDelayMs, partitions);
    if (created && !columns.isEmpty()) {
      schemas.register(stream, columns);
    }
    if (clocks != null) {
      clocks.touched(stream);
    }
    return created;
  }

  @Override
  public StreamInfo updateSchema(StreamRef stream, List<StreamColumn> columns) {
    if (schemas.update(stream, columns)) {
      appenders.discard(stream); // the next append opens one that validates against the new columns
    }
    return describe(stream);
  }

  @Override
  public List<StreamRef> listStreams(String tenant) {
    return topics.list(tenant);
  }

  @Override
  public StreamInfo describe(StreamRef stream) {
    return reader.describe(stream);
  }

  /** One admin call (the topic's properties), where {@link #describe} also opens a reader per partition. */
  @Override
  public List<StreamColumn> columns(StreamRef stream) {
    return topics.columns(stream);
  }

  @Override
  public CompletableFuture<List<Appended>> append(StreamRef stream, List<EventEnvelope> events) {
    CompletableFuture<List<Appended>> appended = appenders.append(stream, events);
    if (clocks == null) {
      return appended;
    }
    // Once acknowledged, the events are persisted: the clock's writer asks about the stream in its next round.
    return appended.whenComplete((done, failed) -> {
      if (failed == null) {
        clocks.touched(stream);
      }
    });
  }

  @Override
  public SystemTable systemTable(String tenant, String table) {
    ensureTenant(tenant);
    String topic = "persistent://" + tenant + "/" + StreamRef.SYSTEM_NAMESPACE + "/" + table;
    return tables.computeIfAbsent(topic, t -> new PulsarSystemTable(client, t));
  }

  @Override
  public String putArtifact(String tenant, byte[] content) {
    ensureTenant(tenant);
    return artifacts.put(tenant, content);
  }

  @Override
  public byte[] artifact(String tenant, String sha256) {
    StreamRef.checkTenant(tenant);
    return artifacts.read(tenant, sha256);
  }

  @Override
  public SystemTable clusterTable(String table) {
    tenants.ensureClusterTenant();
    String topic = "persistent://" + CLUSTER_TENANT + "/" + StreamRef.SYSTEM_NAMESPACE + "/" + table;
    return tables.computeIfAbsent(topic, t -> new PulsarSystemTable(client, t));
  }

  @Override
  public List<String> tenants() {
    return tenants.tenants();
  }

  @Override
  public void setOffloadPolicy(String tenant, long thresholdBytes, long deletionLagMs) {
    storage.setOffloadPolicy(tenant, thresholdBytes, deletionLagMs);
  }

  @Override
  public StreamStorage storage(StreamRef stream) {
    return storage.storage(stream);
  }

  @Override
  public List<StoredEvent> read(StreamRef stream, Optional<MessageId> after, int maxEvents, long timeoutMs) {
    return reader.read(stream, after, maxEvents, timeoutMs);
  }

  @Override
  public Optional<StoredEvent> locate(StreamRef stream, MessageId id, long timeoutMs) {
    return reader.locate(stream, id, timeoutMs);
  }

  @Override
  public OffloadStatus offload(StreamRef stream) {
    return storage.offload(stream);
  }

  /** The status of a stream's offload; for a partitioned stream, see {@link TieredStorageAdmin#offloadStatus}. */
  @Override
  public OffloadStatus offloadStatus(StreamRef stream) {
    return storage.offloadStatus(stream);
  }

  @Override
  public void deleteSubscription(StreamRef stream, String subscription) {
    topics.deleteSubscription(stream, subscription);
  }

  @Override
  public String serviceUrl() {
    return options.serviceUrl();
  }

  @Override
  public String adminUrl() {
    return options.adminUrl();
  }

  @Override
  public void close() {
    if (clocks != null) {
      clocks.close();
    }
    scheduler.shutdownNow();
    sendPool.shutdown();
    appenders.close();
    tables.values().forEach(PulsarSystemTable::close);
    try {
      client.close();
    } catch (PulsarClientException ignored) {
      // closing anyway
    }
    admin.close();
  }
}
