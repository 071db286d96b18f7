package dev.streamfold.bench;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.common.policies.data.RetentionPolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;

/**
 * The baseline side of the ingest and backfill benchmarks: the raw Pulsar client against the stack's own
 * broker, with the ledger's settings (a namespace with infinite retention and deduplication on; a named,
 * batching producer with explicit sequence ids, like the server's appender).
 */
final class PulsarRaw implements AutoCloseable {
  /** Tenant and namespace of the baseline topics; never a Streamfold tenant. */
  static final String TENANT = "benchraw";
  static final String NAMESPACE = TENANT + "/raw";
  /** The server appender's batching (StreamAppender): at most 1,000 messages or 1 ms per batch. */
  static final int BATCH_MAX_MESSAGES = 1000;
  static final long BATCH_MAX_DELAY_MS = 1;

  final PulsarClient client;
  final PulsarAdmin admin;

  PulsarRaw(String serviceUrl, String adminUrl) throws PulsarClientException {
    // Same client settings as the server's ledger (PulsarLedger.connect).
    client = PulsarClient.builder().serviceUrl(serviceUrl).operationTimeout(30, TimeUnit.SECONDS)
        .connectionTimeout(10, TimeUnit.SECONDS).memoryLimit(256, org.apache.pulsar.client.api.SizeUnit.MEGA_BYTES)
        .build();
    admin = PulsarAdmin.builder().serviceHttpUrl(adminUrl).build();
  }

  /** Create the baseline namespace with the ledger's policies, when missing. */
  void ensureNamespace() throws PulsarAdminException {
    if (!admin.tenants().getTenants().contains(TENANT)) {
      admin.tenants().createTenant(TENANT, TenantInfo.builder()
          .allowedClusters(Set.copyOf(admin.clusters().getClusters())).build());
    }
    List<String> namespaces = admin.namespaces().getNamespaces(TENANT);
    if (!namespaces.contains(NAMESPACE)) {
      admin.namespaces().createNamespace(NAMESPACE);
    }
    admin.namespaces().setRetention(NAMESPACE, new RetentionPolicies(-1, -1));
    admin.namespaces().setDeduplicationStatus(NAMESPACE, true);
  }

  static String topic(String name) {
    return "persistent://" + NAMESPACE + "/" + name;
  }

  /** A producer configured like the server's appender (StreamAppender.open). */
  Producer<byte[]> producer(String topic, String producerName) throws PulsarClientException {
    return client.newProducer(Schema.BYTES)
        .topic(topic)
        .producerName(producerName)
        .enableBatching(true)
        .batchingMaxMessages(BATCH_MAX_MESSAGES)
        .batchingMaxPublishDelay(BATCH_MAX_DELAY_MS, TimeUnit.MILLISECONDS)
        .blockIfQueueFull(true)
        .sendTimeout(30, TimeUnit.SECONDS)
        .create();
  }

  @Override
  public void close() throws PulsarClientException {
    admin.close();
    client.close();
  }
}
