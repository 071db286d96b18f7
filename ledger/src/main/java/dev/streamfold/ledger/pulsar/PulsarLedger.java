package dev.streamfold.ledger.pulsar;

import dev.streamfold.ledger.Appended;
import dev.streamfold.ledger.EventEnvelope;
import dev.streamfold.ledger.EventValidator;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.LedgerException;
import dev.streamfold.ledger.LedgerSegment;
import dev.streamfold.ledger.OffloadStatus;
import dev.streamfold.ledger.StreamStorage;
import dev.streamfold.ledger.LedgerOptions;
import dev.streamfold.ledger.MessageIdText;
import dev.streamfold.ledger.Names;
import dev.streamfold.ledger.StreamColumn;
import dev.streamfold.ledger.StreamInfo;
import dev.streamfold.ledger.StreamRef;
import dev.streamfold.ledger.StreamSchemas;
import dev.streamfold.ledger.SystemTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.TypedMessageBuilder;
import org.apache.pulsar.common.policies.data.RetentionPolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;

/**
 * The {@link Ledger} on Pulsar. Each stream has one named producer ({@value #PRODUCER_NAME}) with
 * explicit sequence ids, so the broker's deduplication (namespace policy) stores a message the client
 * library resends (after a reconnect) once, and a stream's event count is its latest sequence id + 1.
 * Client idempotency keys are enforced by a per-stream {@link IdempotencyIndex}.
 */
public final class PulsarLedger implements Ledger {
  /** Producer name of Streamfold's appender on every stream (the broker deduplicates per name). */
  public static final String PRODUCER_NAME = "streamfold-appender";
  /** Topic property holding the stream's declared columns ({@link StreamColumn#encode}). */
  public static final String COLUMNS_PROPERTY = "streamfold.columns";
  /**
   * Topic property holding the stream's schema as JSON ({@link StreamColumn#encodeSchema}: types, NOT NULL,
   * DEFAULT); absent on streams created before schemas, whose columns are {@link #COLUMNS_PROPERTY}.
   */
  public static final String SCHEMA_PROPERTY = "streamfold.schema";
  /** Topic property holding a stream's watermark delay, milliseconds (absent: 0). */
  public static final String WATERMARK_DELAY_PROPERTY = "streamfold.watermark_delay_ms";
  /**
   * Pulsar tenant of the cluster-level system tables ({@link #clusterTable}). Not a valid Streamfold tenant
   * name (it starts with '_'), so no customer tenant can be named so, and {@link #tenants()} leaves it out.
   */
  public static final String CLUSTER_TENANT = "_streamfold";
  /** How often the idempotency index's high-water mark is advanced, milliseconds. */
  public static final long HWM_INTERVAL_MS = 5_000;

  private final LedgerOptions options;
  private final PulsarClient client;
  private final PulsarAdmin admin;
  private final Map<StreamRef, StreamAppender> appenders = new ConcurrentHashMap<>();
  private final Map<StreamRef, Integer> partitionCounts = new ConcurrentHashMap<>();
  /** Per stream, runs its validated append requests one at a time in arrival order on {@link #sendPool}. */
  private final Map<StreamRef, SerialExecutor> senders = new ConcurrentHashMap<>();
  private final ExecutorService sendPool = Executors.newCachedThreadPool(new ThreadFactory() {
    private final java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "ledger-append-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  });
  private final Map<String, PulsarSystemTable> tables = new ConcurrentHashMap<>();
  private final PulsarArtifacts artifacts;
  private final Set<String> provisioned = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "ledger-idempotency-hwm");
    t.setDaemon(true);
    return t;
  });

  private PulsarLedger(LedgerOptions options, PulsarClient client, PulsarAdmin admin) {
    this.options = options;
    this.client = client;
    this.admin = admin;
    this.artifacts = new PulsarArtifacts(client, admin);
    scheduler.scheduleWithFixedDelay(() -> appenders.values().forEach(StreamAppender::advanceHighWaterMark),
        HWM_INTERVAL_MS, HWM_INTERVAL_MS, TimeUnit.MILLISECONDS);
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
          .memoryLimit(256, org.apache.pulsar.client.api.SizeUnit.MEGA_BYTES)
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

  @Override
  public void ensureTenant(String tenant) {
    StreamRef.checkTenant(tenant);
    provision(tenant);
  }

  private void provision(String tenant) {
    if (provisioned.contains(tenant)) {
      return;
    }
    try {
      if (!admin.tenants().getTenants().contains(tenant)) {
        List<String> clusters = admin.clusters().getClusters();
        try {
          admin.tenants().createTenant(tenant, TenantInfo.builder().allowedClusters(Set.copyOf(clusters)).build());
        } catch (PulsarAdminException.ConflictException raced) {
          // created concurrently
        }
      }
      List<String> namespaces = admin.namespaces().getNamespaces(tenant);
      for (String ns : List.of(StreamRef.LEDGER_NAMESPACE, StreamRef.SYSTEM_NAMESPACE)) {
        String full = tenant + "/" + ns;
        if (!namespaces.contains(full)) {
          try {
            admin.namespaces().createNamespace(full);
          } catch (PulsarAdminException.ConflictException raced) {
            // created concurrently
          }
        }
        // Infinite retention: the ledger is never trimmed (docs/design.md: the ledger is the truth).
        admin.namespaces().setRetention(full, new RetentionPolicies(-1, -1));
        admin.namespaces().setDeduplicationStatus(full, true);
      }
      admin.namespaces().setCompactionThreshold(tenant + "/" + StreamRef.SYSTEM_NAMESPACE, 1024 * 1024);
      provisioned.add(tenant);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot provision tenant '" + tenant + "'", e);
    }
  }

  @Override
  public boolean createStream(StreamRef stream, List<StreamColumn> columns, long watermarkDelayMs, int partitions) {
    if (watermarkDelayMs < 0) {
      throw new IllegalArgumentException("watermark delay must be >= 0 ms, got " + watermarkDelayMs);
    }
    if (partitions < 0 || partitions > MAX_PARTITIONS) {
      throw new IllegalArgumentException("partitions must be 0 or 1 (unpartitioned) or 2 to " + MAX_PARTITIONS
          + ", got " + partitions);
    }
    int wanted = partitions == 1 ? 0 : partitions;
    StreamColumn.checkDistinct(columns);
    ensureTenant(stream.tenant());
    try {
      Optional<Map<String, String>> existing = properties(stream);
      if (existing.isPresent()) {
        List<StreamColumn> have = columns(existing.get());
        if (!have.equals(columns)) {
          throw new LedgerException.StreamExists(stream, describe(have), describe(columns));
        }
        int havePartitions = partitions(stream);
        if (havePartitions != wanted) {
          throw new LedgerException.StreamExists(stream, "with " + partitionsText(havePartitions) + ", not "
              + partitionsText(wanted) + " (the partition count is fixed at creation)");
        }
        return false;
      }
      Map<String, String> props = Map.of(COLUMNS_PROPERTY, StreamColumn.encode(columns),
          SCHEMA_PROPERTY, StreamColumn.encodeSchema(columns), WATERMARK_DELAY_PROPERTY, Long.toString(watermarkDelayMs));
      try {
        if (wanted == 0) {
          admin.topics().createNonPartitionedTopic(stream.topic(), props);
        } else {
          admin.topics().createPartitionedTopic(stream.topic(), wanted, props);
        }
      } catch (PulsarAdminException.ConflictException raced) {
        return false;
      }
      partitionCounts.put(stream, wanted);
      if (!columns.isEmpty()) {
        registerSchema(stream, columns);
      }
      return true;
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot create stream " + stream, e);
    }
  }

  private static String partitionsText(int partitions) {
    return partitions == 0 ? "unpartitioned" : partitions + " partitions";
  }

  /**
   * A stream's partition count: 0 when unpartitioned (Pulsar's partitioned-topic metadata; fixed at
   * creation, so cached).
   */
  int partitions(StreamRef stream) throws PulsarAdminException {
    Integer known = partitionCounts.get(stream);
    if (known != null) {
      return known;
    }
    int n = admin.topics().getPartitionedTopicMetadata(stream.topic()).partitions;
    partitionCounts.put(stream, n);
    return n;
  }

  /** The Pulsar topics holding a stream's events: the topic itself, or each partition's topic in order. */
  List<String> physicalTopics(StreamRef stream) throws PulsarAdminException {
    int n = partitions(stream);
    if (n == 0) {
      return List.of(stream.topic());
    }
    List<String> topics = new ArrayList<>(n);
    for (int p = 0; p < n; p++) {
      topics.add(stream.partitionTopic(p));
    }
    return topics;
  }

  private static List<StreamColumn> columns(Map<String, String> props) {
    String schema = props.get(SCHEMA_PROPERTY);
    return schema != null ? StreamColumn.decodeSchema(schema) : StreamColumn.decode(props.get(COLUMNS_PROPERTY));
  }

  private static String describe(List<StreamColumn> columns) {
    return String.join(", ", columns.stream().map(StreamColumn::describe).toList());
  }

  /**
   * Register the columns as the next version of the topic's schema in Pulsar's registry: type JSON (the
   * payloads are JSON objects), the definition an Avro record with one field per column (NOT NULL columns
   * as the plain type, the others as a union with null; DEFAULT as the field's default; TIMESTAMP as a
   * string with {@code "sqlType": "TIMESTAMP"}). Our appender is a schemaless (BYTES) producer, which the
   * broker accepts on a topic with a schema while {@code schemaValidationEnforced} is off (Pulsar's default,
   * verified by {@code StreamSchemaIT}); events are validated by {@link EventValidator} instead.
   *
   * @throws LedgerException.IncompatibleSchema if Pulsar's compatibility check refuses it
   */
  private void registerSchema(StreamRef stream, List<StreamColumn> columns) {
    org.apache.pulsar.common.schema.SchemaInfo info = org.apache.pulsar.common.schema.SchemaInfo.builder()
        .name(stream.stream()).type(org.apache.pulsar.common.schema.SchemaType.JSON)
        .schema(avroRecord(stream, columns).getBytes(StandardCharsets.UTF_8)).properties(Map.of()).build();
    try {
      admin.schemas().createSchema(stream.topic(), info);
    } catch (PulsarAdminException.ConflictException | PulsarAdminException.ServerSideErrorException refused) {
      throw new LedgerException.IncompatibleSchema(stream, "Pulsar's schema registry refused it ("
          + registryRefusal(refused) + ")");
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot register the schema of stream " + stream, e);
    }
  }

  /** The first line of the broker's "Message: ..." in a refusal (its full text carries a stack trace). */
  static String registryRefusal(Exception refused) {
    String text = String.valueOf(refused.getMessage());
    for (String line : text.split("\n")) {
      if (line.startsWith("Message: ")) {
        return line.substring("Message: ".length()).trim();
      }
    }
    return Names.shorten(text.trim());
  }

  /** The Avro record schema (JSON text) of a stream's columns, as registered in Pulsar. */
  static String avroRecord(StreamRef stream, List<StreamColumn> columns) {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    com.fasterxml.jackson.databind.node.ObjectNode record = json.createObjectNode().put("type", "record")
        .put("name", stream.stream().replace('-', '_')).put("namespace", "streamfold." + stream.tenant().replace('-', '_'));
    com.fasterxml.jackson.databind.node.ArrayNode fields = record.putArray("fields");
    for (StreamColumn c : columns) {
      String avro = switch (c.type()) {
        case "BOOLEAN" -> "boolean";
        case "INT" -> "int";
        case "BIGINT" -> "long";
        case "DOUBLE" -> "double";
        default -> "string";
      };
      com.fasterxml.jackson.databind.node.ObjectNode field = fields.addObject().put("name", c.name());
      com.fasterxml.jackson.databind.JsonNode defaultValue;
      try {
        defaultValue = c.defaultJson() == null ? null : json.readTree(c.defaultJson());
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
      if (c.type().equals("TIMESTAMP") && defaultValue != null && defaultValue.isNumber()) {
        defaultValue = json.getNodeFactory().textNode(defaultValue.asText());
      }
      if (c.required()) {
        field.put("type", avro);
        if (defaultValue != null) {
          field.set("default", defaultValue);
        }
      } else if (defaultValue == null) {
        field.putArray("type").add("null").add(avro);
        field.putNull("default");
      } else {
        // an Avro union's default must be of its first branch
        field.putArray("type").add(avro).add("null");
        field.set("default", defaultValue);
      }
      field.put("sqlType", c.type());
    }
    return record.toString();
  }

  @Override
  public StreamInfo updateSchema(StreamRef stream, List<StreamColumn> columns) {
    StreamColumn.checkDistinct(columns);
    try {
      Map<String, String> props = properties(stream).orElseThrow(() -> new LedgerException.StreamNotFound(stream));
      List<StreamColumn> old = columns(props);
      String problem = StreamSchemas.incompatibility(old, columns);
      if (problem == null) {
        problem = earlierDefinitionProblem(stream, old, columns);
      }
      if (problem != null) {
        throw new LedgerException.IncompatibleSchema(stream, problem);
      }
      if (old.equals(columns)) {
        return describe(stream);
      }
      if (!columns.isEmpty()) {
        registerSchema(stream, columns);
      }
      Map<String, String> updated = new java.util.HashMap<>(props);
      updated.put(COLUMNS_PROPERTY, StreamColumn.encode(columns));
      updated.put(SCHEMA_PROPERTY, StreamColumn.encodeSchema(columns));
      admin.topics().updateProperties(stream.topic(), updated);
      StreamAppender appender = appenders.remove(stream);
      if (appender != null) {
        appender.close(); // the next append opens one that validates against the new columns
      }
      return describe(stream);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot update the schema of stream " + stream, e);
    }
  }

  /**
   * Check columns that come back after being removed against every earlier version of the stream's schema in
   * Pulsar's registry: stored events were read with the column's earlier type and DEFAULT, so it may return only
   * with both unchanged. Comparing with the current schema alone let a type or DEFAULT change through in two
   * updates (remove, then add back), and replays then disagreed with the views built before.
   *
   * @return what is incompatible, or null
   * @throws PulsarAdminException if the registry cannot be read
   */
  private String earlierDefinitionProblem(StreamRef stream, List<StreamColumn> current, List<StreamColumn> next)
      throws PulsarAdminException {
    java.util.Set<String> present = new java.util.HashSet<>();
    current.forEach(c -> present.add(c.name().toLowerCase(java.util.Locale.ROOT)));
    List<StreamColumn> returning = next.stream()
        .filter(c -> !present.contains(c.name().toLowerCase(java.util.Locale.ROOT))).toList();
    if (returning.isEmpty()) {
      return null;
    }
    List<org.apache.pulsar.common.schema.SchemaInfo> versions;
    try {
      versions = admin.schemas().getAllSchemas(stream.topic());
    } catch (PulsarAdminException.NotFoundException none) {
      return null; // no schema registered yet (a stream created without columns)
    }
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    for (StreamColumn column : returning) {
      for (org.apache.pulsar.common.schema.SchemaInfo version : versions) {
        com.fasterxml.jackson.databind.JsonNode fields;
        try {
          fields = json.readTree(new String(version.getSchema(), StandardCharsets.UTF_8)).path("fields");
        } catch (com.fasterxml.jackson.core.JsonProcessingException unreadable) {
          continue; // not one of ours
        }
        for (com.fasterxml.jackson.databind.JsonNode field : fields) {
          if (!field.path("name").asText().equalsIgnoreCase(column.name())) {
            continue;
          }
          String type = field.path("sqlType").asText();
          String earlierDefault = defaultText(field.get("default"));
          String nextDefault;
          try {
            nextDefault = column.defaultJson() == null ? null : defaultText(json.readTree(column.defaultJson()));
          } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e); // a StreamColumn's DEFAULT is valid JSON
          }
          if (!type.equals(column.type()) || !java.util.Objects.equals(earlierDefault, nextDefault)) {
            return "column '" + column.name() + "' was " + type + (earlierDefault == null ? " without a DEFAULT"
                : " DEFAULT " + earlierDefault) + " in an earlier schema of the stream, and stored events were read"
                + " with that: it can come back only as it was (a removed column keeps its meaning), so use a new name";
          }
        }
      }
    }
    return null;
  }

  /** A DEFAULT as comparable text: a JSON string's value, other JSON as written; null for none. */
  private static String defaultText(com.fasterxml.jackson.databind.JsonNode value) {
    if (value == null || value.isNull()) {
      return null;
    }
    return value.isTextual() ? value.asText() : value.toString();
  }

  private Optional<Map<String, String>> properties(StreamRef stream) throws PulsarAdminException {
    try {
      Map<String, String> props = admin.topics().getProperties(stream.topic());
      return Optional.of(props == null ? Map.of() : props);
    } catch (PulsarAdminException.NotFoundException e) {
      return Optional.empty();
    }
  }

  @Override
  public List<StreamRef> listStreams(String tenant) {
    StreamRef.checkTenant(tenant);
    try {
      List<String> topics = new ArrayList<>(admin.topics().getList(tenant + "/" + StreamRef.LEDGER_NAMESPACE));
      topics.addAll(admin.topics().getPartitionedTopicList(tenant + "/" + StreamRef.LEDGER_NAMESPACE));
      String prefix = "persistent://" + tenant + "/" + StreamRef.LEDGER_NAMESPACE + "/";
      List<StreamRef> streams = new ArrayList<>();
      for (String topic : topics) {
        if (topic.startsWith(prefix)) {
          String name = topic.substring(prefix.length());
          if (!name.startsWith("__") && !name.contains("-partition-")) {
            streams.add(new StreamRef(tenant, name));
          }
        }
      }
      streams = new ArrayList<>(new java.util.LinkedHashSet<>(streams));
      streams.sort((a, b) -> a.stream().compareTo(b.stream()));
      return streams;
    } catch (PulsarAdminException.NotFoundException e) {
      return List.of();
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot list streams of tenant '" + tenant + "'", e);
    }
  }

  @Override
  public StreamInfo describe(StreamRef stream) {
    try {
      Map<String, String> props = properties(stream).orElseThrow(() -> new LedgerException.StreamNotFound(stream));
      List<StreamColumn> columns = columns(props);
      long delay = Long.parseLong(props.getOrDefault(WATERMARK_DELAY_PROPERTY, "0"));
      int partitions = partitions(stream);
      List<MessageIdText> latestPositions = new ArrayList<>();
      Message<byte[]> newest = null;
      int newestIndex = -1;
      List<String> topics = physicalTopics(stream);
      for (int p = 0; p < topics.size(); p++) {
        Optional<Message<byte[]>> last = lastMessage(stream, topics.get(p));
        if (last.isPresent()) {
          latestPositions.add(PulsarMessageIds.toText(last.get().getMessageId(), partitions == 0 ? -1 : p));
          if (newest == null || last.get().getSequenceId() > newest.getSequenceId()) {
            newest = last.get();
            newestIndex = partitions == 0 ? -1 : p;
          }
        }
      }
      Optional<MessageIdText> latest = Optional.empty();
      if (newest != null) {
        latest = Optional.of(PulsarMessageIds.toText(newest.getMessageId(), newestIndex));
      }
      return new StreamInfo(stream, columns, latest, newest == null ? 0L : newest.getSequenceId() + 1, delay,
          partitions, List.copyOf(latestPositions));
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot describe stream " + stream, e);
    }
  }

  /** One admin call (the topic's properties), where {@link #describe} also opens a reader per partition. */
  @Override
  public List<StreamColumn> columns(StreamRef stream) {
    try {
      return columns(properties(stream).orElseThrow(() -> new LedgerException.StreamNotFound(stream)));
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot describe stream " + stream, e);
    }
  }

  /**
   * The broker's last message ID of one topic (admin). The broker reads the last entry for it, which races
   * with the trimmer closing an offloaded segment's read handle: {@link OffloadReadRace} retries that.
   */
  private MessageId lastMessageId(String topic) throws PulsarAdminException {
    try {
      return OffloadReadRace.call(() -> admin.topics().getLastMessageId(topic));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LedgerException.Unavailable("interrupted while asking for the last message ID of " + topic, e);
    }
  }

  private Optional<Message<byte[]>> lastMessage(StreamRef stream, String topic) {
    // The broker's last message ID (admin; entry -1 only for a topic without messages, as empty ledgers are
    // skipped: apache/pulsar#1550), then one reader starting at it, inclusive. A reader at MessageId.latest
    // inclusive costs ~100 ms more: the client seeks after subscribing, which reconnects the consumer.
    MessageId last;
    try {
      last = lastMessageId(topic);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot find the latest event of " + stream, e);
    }
    if (!(last instanceof org.apache.pulsar.client.api.MessageIdAdv adv) || adv.getEntryId() < 0) {
      // no entry named (an empty topic, or an answer this code does not know): the slower, general lookup
      return lastMessageBySeek(stream, topic);
    }
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(last)
        .startMessageIdInclusive().create()) {
      Message<byte[]> m = reader.readNext((int) options.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
      if (m == null) {
        throw new LedgerException.Unavailable("cannot read the latest event of " + stream + " (" + last + ") within "
            + options.operationTimeout().toMillis() + " ms: " + whereStored(stream, topic, Optional.empty()), null);
      }
      // Read on to the end: events appended meanwhile, and the rest of a batched entry if the broker's answer
      // did not name its last message (it does on 4.0, with the batch index).
      while (reader.hasMessageAvailable()) {
        Message<byte[]> next = reader.readNext((int) options.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        if (next == null) {
          break;
        }
        m = next;
      }
      return Optional.of(m);
    } catch (LedgerException e) {
      throw e;
    } catch (Exception e) {
      throw new LedgerException.Unavailable("cannot read the latest event of " + stream, e);
    }
  }

  /** The latest message through a reader at {@link MessageId#latest}, inclusive (the client seeks to it). */
  private Optional<Message<byte[]>> lastMessageBySeek(StreamRef stream, String topic) {
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic)
        .startMessageId(MessageId.latest).startMessageIdInclusive().create()) {
      if (!reader.hasMessageAvailable()) {
        return Optional.empty();
      }
      return Optional.ofNullable(reader.readNext((int) options.operationTimeout().toMillis(), TimeUnit.MILLISECONDS));
    } catch (Exception e) {
      throw new LedgerException.Unavailable("cannot read the latest event of " + stream, e);
    }
  }

  @Override
  public CompletableFuture<List<Appended>> append(StreamRef stream, List<EventEnvelope> events) {
    StreamAppender appender = appenders.get(stream);
    if (appender == null) {
      appender = appenders.computeIfAbsent(stream, this::openAppender);
    }
    List<StreamColumn> columns = appender.columns();
    List<LedgerException.InvalidEvent> invalid = new ArrayList<>();
    int invalidEvents = 0;
    long nowMs = System.currentTimeMillis();
    // Each payload is encoded once: validated from these bytes and sent as them (docs/performance.md, session 5).
    byte[][] payloads = new byte[events.size()][];
    for (int i = 0; i < events.size(); i++) {
      String payload = events.get(i).payloadJson();
      payloads[i] = payload == null ? null : payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      try {
        EventValidator.check(i, events.get(i), payloads[i], columns, nowMs);
      } catch (LedgerException.InvalidEvent e) {
        invalidEvents++;
        if (invalid.size() < LedgerException.InvalidEvent.MAX_LISTED) {
          invalid.add(e);
        }
      }
    }
    if (!invalid.isEmpty()) {
      throw LedgerException.InvalidEvent.ofRequest(invalid, invalidEvents, events.size());
    }
    // Send on the stream's sender, in the order requests got here, so that the caller (a gRPC call's only
    // thread) parses and validates its next request while this one is sent (docs/performance.md, "Ingest: one
    // future per request, a sender per stream").
    StreamAppender validatedFor = appender;
    Executor sender = senders.computeIfAbsent(stream, s -> new SerialExecutor(sendPool));
    return CompletableFuture.supplyAsync(() -> validatedFor.append(events, payloads), sender).thenCompose(appended -> appended);
  }

  private StreamAppender openAppender(StreamRef stream) {
    StreamInfo info = describe(stream);
    try {
      return new StreamAppender(client, stream, info.columns(), physicalTopics(stream), options.operationTimeout());
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot open an appender on stream " + stream, e);
    }
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
    provision(CLUSTER_TENANT);
    String topic = "persistent://" + CLUSTER_TENANT + "/" + StreamRef.SYSTEM_NAMESPACE + "/" + table;
    return tables.computeIfAbsent(topic, t -> new PulsarSystemTable(client, t));
  }

  @Override
  public List<String> tenants() {
    try {
      List<String> result = new ArrayList<>();
      for (String tenant : admin.tenants().getTenants()) {
        if (tenant.equals("public") || tenant.equals("pulsar") || tenant.equals("sample")
            || tenant.equals(CLUSTER_TENANT) || !tenant.matches("[a-z0-9][a-z0-9_-]{0,63}")) {
          continue;
        }
        if (admin.namespaces().getNamespaces(tenant).contains(tenant + "/" + StreamRef.SYSTEM_NAMESPACE)) {
          result.add(tenant);
        }
      }
      result.sort(null);
      return result;
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot list tenants", e);
    }
  }

  @Override
  public void setOffloadPolicy(String tenant, long thresholdBytes, long deletionLagMs) {
    if (thresholdBytes < -1) {
      throw new IllegalArgumentException("offload threshold must be >= -1 bytes, got " + thresholdBytes);
    }
    if (deletionLagMs < 0) {
      throw new IllegalArgumentException("offload deletion lag must be >= 0 ms, got " + deletionLagMs);
    }
    ensureTenant(tenant);
    String namespace = tenant + "/" + StreamRef.LEDGER_NAMESPACE;
    try {
      admin.namespaces().setOffloadThreshold(namespace, thresholdBytes);
      admin.namespaces().setOffloadDeleteLag(namespace, deletionLagMs, TimeUnit.MILLISECONDS);
      // Retention stays infinite whatever the offload policy (offloaded data must never be trimmed).
      admin.namespaces().setRetention(namespace, new RetentionPolicies(-1, -1));
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot set the offload policy of tenant '" + tenant + "'", e);
    }
  }

  @Override
  public StreamStorage storage(StreamRef stream) {
    try {
      properties(stream).orElseThrow(() -> new LedgerException.StreamNotFound(stream));
      List<LedgerSegment> segments = new ArrayList<>();
      long local = 0;
      long offloaded = 0;
      for (String topic : physicalTopics(stream)) {
        StreamStorage one = storage(stream, topic);
        segments.addAll(one.segments());
        local += one.localBytes();
        offloaded += one.offloadedBytes();
      }
      return new StreamStorage(stream, segments, local, offloaded);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot read the storage of stream " + stream, e);
    }
  }

  /** The storage of one of a stream's topics (the stream's own, or one partition's). */
  private StreamStorage storage(StreamRef stream, String topic) {
    try {
      var stats = admin.topics().getInternalStats(topic);
      Map<Long, com.fasterxml.jackson.databind.JsonNode> info = internalInfoByLedger(stream, topic);
      Optional<Set<Long>> onBookies = bookieLedgers();
      String offloadTarget = offloadTarget(stream);
      List<LedgerSegment> segments = new ArrayList<>();
      long local = 0;
      long offloaded = 0;
      for (int i = 0; i < stats.ledgers.size(); i++) {
        var ledger = stats.ledgers.get(i);
        if (i == stats.ledgers.size() - 1 && !ledger.offloaded && ledger.entries == 0) {
          // the open segment: its counts are kept as the topic's current-ledger figures
          ledger.entries = stats.currentLedgerEntries;
          ledger.size = stats.currentLedgerSize;
        }
        com.fasterxml.jackson.databind.JsonNode detail = info.get(ledger.ledgerId);
        com.fasterxml.jackson.databind.JsonNode context = detail == null ? null : detail.path("offloadContext");
        boolean deleted = ledger.offloaded && (onBookies.isPresent()
            ? !onBookies.get().contains(ledger.ledgerId)
            : context != null && context.path("bookkeeperDeleted").asBoolean(false));
        String location = "bookkeeper";
        if (ledger.offloaded) {
          location = offloadTarget;
          offloaded += ledger.size;
        }
        if (!ledger.offloaded || !deleted) {
          local += ledger.size;
        }
        segments.add(new LedgerSegment(ledger.ledgerId, ledger.entries, ledger.size, ledger.offloaded, deleted, location,
            PulsarMessageIds.partitionOfTopic(topic), i == stats.ledgers.size() - 1 && !ledger.offloaded));
      }
      return new StreamStorage(stream, segments, local, offloaded);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot read the storage of stream " + stream, e);
    }
  }

  /** Where the topic's segments are offloaded (the applied offload policy): e.g. "S3 bucket streamfold-ledger". */
  private String offloadTarget(StreamRef stream) {
    try {
      var policies = admin.topics().getOffloadPolicies(stream.topic(), true);
      if (policies != null && policies.getManagedLedgerOffloadDriver() != null) {
        String bucket = policies.getManagedLedgerOffloadBucket();
        return policies.getManagedLedgerOffloadDriver() + (bucket == null ? "" : " bucket " + bucket);
      }
    } catch (PulsarAdminException | RuntimeException e) {
      // fall through
    }
    return "tiered storage";
  }

  /**
   * The ledger ids BookKeeper still holds, from its admin REST API ({@code GET /api/v1/ledger/list/}),
   * or empty when no bookie admin URL is configured or it does not answer.
   */
  private Optional<Set<Long>> bookieLedgers() {
    if (options.bookieAdminUrl() == null) {
      return Optional.empty();
    }
    try {
      java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(options.bookieAdminUrl() + "/api/v1/ledger/list/"))
              .timeout(java.time.Duration.ofSeconds(10)).GET().build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return Optional.empty();
      }
      Set<Long> ids = new java.util.HashSet<>();
      com.fasterxml.jackson.databind.JsonNode root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body());
      root.fieldNames().forEachRemaining(id -> ids.add(Long.parseLong(id)));
      return Optional.of(ids);
    } catch (java.io.IOException | NumberFormatException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The managed ledger's own description of each segment (offload context included), by ledger id. */
  private Map<Long, com.fasterxml.jackson.databind.JsonNode> internalInfoByLedger(StreamRef stream, String topic)
      throws PulsarAdminException {
    Map<Long, com.fasterxml.jackson.databind.JsonNode> byLedger = new java.util.HashMap<>();
    try {
      com.fasterxml.jackson.databind.JsonNode root = new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(admin.topics().getInternalInfo(topic));
      for (com.fasterxml.jackson.databind.JsonNode ledger : root.path("ledgers")) {
        byLedger.put(ledger.path("ledgerId").asLong(), ledger);
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new LedgerException.Unavailable("unreadable internal info of " + stream, e);
    }
    return byLedger;
  }


  @Override
  public List<dev.streamfold.ledger.StoredEvent> read(StreamRef stream, Optional<MessageIdText> after, int maxEvents,
      long timeoutMs) {
    if (maxEvents < 1) {
      throw new IllegalArgumentException("maxEvents must be >= 1, got " + maxEvents);
    }
    int partitions;
    try {
      properties(stream).orElseThrow(() -> new LedgerException.StreamNotFound(stream));
      partitions = partitions(stream);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot read stream " + stream, e);
    }
    if (partitions == 0) {
      return readTopic(stream, stream.topic(), -1, after, maxEvents, timeoutMs);
    }
    if (after.isPresent()) {
      int p = after.get().partition();
      if (p < 0 || p >= partitions) {
        throw new IllegalArgumentException("message ID " + after.get() + " names partition " + p + ", but stream "
            + stream + " has partitions 0 to " + (partitions - 1));
      }
      return readTopic(stream, stream.partitionTopic(p), p, after, maxEvents, timeoutMs);
    }
    List<dev.streamfold.ledger.StoredEvent> merged = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      merged.addAll(readTopic(stream, stream.partitionTopic(p), p, Optional.empty(), maxEvents, timeoutMs));
    }
    merged.sort(java.util.Comparator.comparingLong(dev.streamfold.ledger.StoredEvent::sequence));
    return merged.size() > maxEvents ? List.copyOf(merged.subList(0, maxEvents)) : merged;
  }

  private List<dev.streamfold.ledger.StoredEvent> readTopic(StreamRef stream, String topic, int partition,
      Optional<MessageIdText> after, int maxEvents, long timeoutMs) {
    List<dev.streamfold.ledger.StoredEvent> events = new ArrayList<>();
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic)
        .startMessageId(after.map(PulsarMessageIds::toPulsar).orElse(MessageId.earliest)).create()) {
      while (events.size() < maxEvents && hasMessageAvailable(reader, stream, topic, lastRead(events, after), timeoutMs)) {
        Message<byte[]> m = reader.readNext((int) timeoutMs, TimeUnit.MILLISECONDS);
        if (m == null) {
          throw new LedgerException.Unavailable("cannot read stream " + stream + " after "
              + after.map(Object::toString).orElse("earliest") + " within " + timeoutMs + " ms: "
              + whereStored(stream, topic, lastRead(events, after)), null);
        }
        events.add(new dev.streamfold.ledger.StoredEvent(PulsarMessageIds.toText(m.getMessageId(), partition), envelope(m),
            m.getSequenceId()));
      }
    } catch (LedgerException e) {
      throw e;
    } catch (Exception e) {
      // Any step may be the one that needs offloaded data: hasMessageAvailable asks the broker for the
      // last message ID, and the broker reads the last entry (for its batch size) even when that entry is
      // only in S3. So every failure names where the next events are stored, not only a readNext timeout.
      throw new LedgerException.Unavailable("cannot read stream " + stream + " ("
          + whereStored(stream, topic, lastRead(events, after)) + ")", e);
    }
    return events;
  }

  @Override
  public Optional<dev.streamfold.ledger.StoredEvent> locate(StreamRef stream, MessageIdText id, long timeoutMs) {
    String topic;
    int partitions;
    try {
      properties(stream).orElseThrow(() -> new LedgerException.StreamNotFound(stream));
      partitions = partitions(stream);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot read stream " + stream, e);
    }
    if (partitions == 0) {
      if (id.partition() != -1) {
        return Optional.empty(); // an unpartitioned stream's message IDs have partition -1
      }
      topic = stream.topic();
    } else {
      if (id.partition() < 0 || id.partition() >= partitions) {
        return Optional.empty();
      }
      topic = stream.partitionTopic(id.partition());
    }
    // A reader starting inclusively at a batch message ID skips the batch's earlier messages
    // (Pulsar client: startMessageIdInclusive with a batch index), so the first message read is the one
    // at {@code id} when it exists, or the next one when it does not.
    String wholeEntry; // the refusal of a batch index -1 that names a batched entry, thrown after the reader closed
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic)
        .startMessageId(PulsarMessageIds.toPulsar(id)).startMessageIdInclusive().create()) {
      if (!hasMessageAvailable(reader, stream, topic, Optional.of(id), timeoutMs)) {
        return Optional.empty();
      }
      Message<byte[]> m = reader.readNext((int) timeoutMs, TimeUnit.MILLISECONDS);
      if (m == null) {
        throw new LedgerException.Unavailable("cannot read stream " + stream + " at " + id + " within "
            + timeoutMs + " ms: " + whereStored(stream, topic, Optional.of(id)), null);
      }
      MessageIdText found = PulsarMessageIds.toText(m.getMessageId(), partitions == 0 ? -1 : id.partition());
      if (found.equals(id)) {
        return Optional.of(new dev.streamfold.ledger.StoredEvent(found, envelope(m), m.getSequenceId()));
      }
      if (id.batchIndex() >= 0 || found.batchIndex() < 0 || found.ledgerId() != id.ledgerId()
          || found.entryId() != id.entryId()) {
        return Optional.empty();
      }
      wholeEntry = wholeBatchedEntry(stream, id, m.getMessageId() instanceof MessageIdAdv adv ? adv.getBatchSize() : 0);
    } catch (LedgerException e) {
      throw e;
    } catch (Exception e) {
      throw new LedgerException.Unavailable("cannot read stream " + stream + " at " + id + " ("
          + whereStored(stream, topic, Optional.of(id)) + ")", e);
    }
    throw new IllegalArgumentException(wholeEntry);
  }

  /**
   * Say that a message ID with batch index -1 names a batched entry, which holds no event at batch index -1.
   *
   * @param stream the stream
   * @param id the message ID, batch index -1
   * @param batchSize events in the entry; 0 when unknown
   * @return the message, with the batch indexes the entry holds
   */
  static String wholeBatchedEntry(StreamRef stream, MessageIdText id, int batchSize) {
    String entry = id.ledgerId() + ":" + id.entryId() + ":" + id.partition() + ":";
    String holds = batchSize > 0
        ? "it holds batch indexes 0 to " + (batchSize - 1) + " (" + entry + "0 to " + entry + (batchSize - 1)
            + "; up to and including " + entry + (batchSize - 1) + " is the whole entry)"
        : "its batch indexes start at 0 (" + entry + "0 is its first event)";
    return "message ID " + id + " names no event of stream " + stream + ": entry " + id.ledgerId() + ":"
        + id.entryId() + " is batched (the ingestion API batches the events it appends), so each of its events has its"
        + " own batch index, and " + holds + "; batch index -1 names an entry that is not batched";
  }

  /**
   * Whether the reader has a next message, within the caller's timeout rather than the client's operation
   * timeout: the broker answers from the last entry, which it reads from S3 when only S3 holds it.
   *
   * @throws LedgerException.Unavailable if the broker does not answer within {@code timeoutMs} (the message
   *     names where the events after {@code at} are stored)
   */
  private boolean hasMessageAvailable(Reader<byte[]> reader, StreamRef stream, String topic,
      Optional<MessageIdText> at, long timeoutMs) throws Exception {
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      return OffloadReadRace.call(() -> reader.hasMessageAvailableAsync()
          .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
    } catch (java.util.concurrent.TimeoutException e) {
      throw new LedgerException.Unavailable("cannot read stream " + stream + " after "
          + at.map(Object::toString).orElse("earliest") + ": the broker did not say within " + timeoutMs
          + " ms whether more events follow (" + whereStored(stream, topic, at) + ")", null);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  private static Optional<MessageIdText> lastRead(List<dev.streamfold.ledger.StoredEvent> events,
      Optional<MessageIdText> after) {
    return events.isEmpty() ? after : Optional.of(events.get(events.size() - 1).messageId());
  }

  /** Name the segment after {@code at} and where it is stored, for an error message. */
  private String whereStored(StreamRef stream, String topic, Optional<MessageIdText> at) {
    try {
      return storage(stream, topic).whereAfter(at);
    } catch (RuntimeException e) {
      return "the broker does not answer (" + e.getMessage() + ")";
    }
  }

  private static EventEnvelope envelope(Message<byte[]> m) {
    Map<String, String> headers = new java.util.TreeMap<>(m.getProperties());
    String type = headers.remove(EventEnvelope.TYPE_PROPERTY);
    String idempotencyKey = headers.remove(EventEnvelope.IDEMPOTENCY_KEY_PROPERTY);
    headers.remove(EventEnvelope.FINGERPRINT_PROPERTY);
    return new EventEnvelope(m.hasKey() ? m.getKey() : "", type == null ? "" : type, m.getEventTime(),
        new String(m.getValue(), StandardCharsets.UTF_8), idempotencyKey == null ? "" : idempotencyKey, headers);
  }

  @Override
  public OffloadStatus offload(StreamRef stream) {
    try {
      properties(stream).orElseThrow(() -> new LedgerException.StreamNotFound(stream));
      for (String topic : physicalTopics(stream)) {
        // Pulsar offloads the segments before the one holding the given position (ManagedLedgerImpl.
        // asyncOffloadPrefix). The latest message's position missed a segment closed right after its last add
        // ("closing ledger for being full"): the latest message was in a closed segment that stayed local.
        // The first position of the open segment (the last one of the topic's internal stats; valid also
        // while it is empty) covers every closed segment.
        var ledgers = admin.topics().getInternalStats(topic).ledgers;
        MessageId upTo = ledgers == null || ledgers.isEmpty() ? lastMessageId(topic)
            : new org.apache.pulsar.client.impl.MessageIdImpl(ledgers.get(ledgers.size() - 1).ledgerId, 0, -1);
        admin.topics().triggerOffload(topic, upTo);
      }
      return offloadStatus(stream);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot offload stream " + stream, e);
    }
  }

  /**
   * The status of a stream's offload. For a partitioned stream: RUNNING while any partition's runs, else
   * ERROR when any failed (errors joined, each naming its partition), else the first partition's; the
   * first unoffloaded message is the first partition's that has one.
   */
  @Override
  public OffloadStatus offloadStatus(StreamRef stream) {
    try {
      List<String> topics = physicalTopics(stream);
      String state = null;
      String firstText = "";
      List<String> errors = new ArrayList<>();
      for (int p = 0; p < topics.size(); p++) {
        var status = admin.topics().offloadStatus(topics.get(p));
        String name = status.getStatus().name();
        if (state == null || name.equals("RUNNING") || (name.equals("ERROR") && !state.equals("RUNNING"))) {
          state = name;
        }
        MessageId first = status.getFirstUnoffloadedMessage();
        if (firstText.isEmpty() && first instanceof org.apache.pulsar.client.api.MessageIdAdv) {
          firstText = PulsarMessageIds.toText(first, topics.size() == 1 ? -1 : p).toString();
        }
        if (status.getLastError() != null && !status.getLastError().isEmpty()) {
          errors.add(topics.size() == 1 ? status.getLastError() : "partition " + p + ": " + status.getLastError());
        }
      }
      return new OffloadStatus(state == null ? "NOT_RUN" : state, firstText, String.join("; ", errors));
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot read the offload status of stream " + stream, e);
    }
  }

  @Override
  public void deleteSubscription(StreamRef stream, String subscription) {
    try {
      admin.topics().deleteSubscription(stream.topic(), subscription, true);
    } catch (PulsarAdminException.NotFoundException gone) {
      // nothing to delete
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot delete subscription " + subscription + " of " + stream, e);
    }
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
    scheduler.shutdownNow();
    sendPool.shutdown();
    appenders.values().forEach(StreamAppender::close);
    tables.values().forEach(PulsarSystemTable::close);
    try {
      client.close();
    } catch (PulsarClientException ignored) {
      // closing anyway
    }
    admin.close();
  }


}
