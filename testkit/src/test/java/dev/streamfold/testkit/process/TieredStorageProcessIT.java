package dev.streamfold.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.streamfold.deploy.process.PulsarStandaloneProcess;
import dev.streamfold.deploy.process.S3ProxyProcess;
import dev.streamfold.testkit.Testkit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.pulsar.client.admin.LongRunningProcessStatus;
import org.apache.pulsar.client.admin.OffloadProcessStatus;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats.LedgerInfo;
import org.apache.pulsar.common.policies.data.RetentionPolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tiered storage with the real processes of {@link Testkit}: a Pulsar 4.0.8 broker offloading to s3proxy.
 * Offloaded segments land in the bucket, their local (BookKeeper) copies are deleted after the lag,
 * everything reads back from S3, and a read of offloaded data fails (bounded) while S3 is down and
 * succeeds once it is back on the same port.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TieredStorageProcessIT {
  static final int MESSAGES = 5_000;
  static final Duration S3_DOWN_READ_TIMEOUT = Duration.ofSeconds(5);

  static String payload(int i) {
    return "event-" + i;
  }

  static String seconds(long startNanos) {
    return String.format("%.1f s", (System.nanoTime() - startNanos) / 1e9);
  }

  /** Read up to {@code count} messages, each within {@code timeout}; stop at the first timeout. */
  static List<String> read(Reader<byte[]> reader, int count, Duration timeout) throws Exception {
    List<String> got = new ArrayList<>();
    while (got.size() < count) {
      Message<byte[]> m = reader.readNext((int) timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (m == null) {
        break;
      }
      got.add(new String(m.getValue(), StandardCharsets.UTF_8));
    }
    return got;
  }

  @Test
  void offloadsDeletesLocalCopiesReadsBackFromS3AndFailsBoundedWhileS3IsDown() throws Exception {
    S3ProxyProcess s3 = Testkit.s3();
    PulsarStandaloneProcess pulsar = Testkit.pulsar();
    assertThat(pulsar.tieredStorage()).isPresent();
    String tenant = Testkit.uniqueName("tiered");
    String namespace = tenant + "/ns";
    String topic = "persistent://" + namespace + "/events";
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < MESSAGES; i++) {
      expected.add(payload(i));
    }

    try (PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(pulsar.adminUrl()).build();
        PulsarClient client = PulsarClient.builder().serviceUrl(pulsar.serviceUrl())
            .operationTimeout(30, TimeUnit.SECONDS).build()) {
      admin.tenants().createTenant(tenant, TenantInfo.builder().allowedClusters(Set.of("standalone")).build());
      admin.namespaces().createNamespace(namespace);
      admin.namespaces().setRetention(namespace, new RetentionPolicies(-1, -1));

      long t0 = System.nanoTime();
      MessageId last;
      try (Producer<byte[]> producer = client.newProducer(Schema.BYTES).topic(topic).enableBatching(false)
          .blockIfQueueFull(true).maxPendingMessages(1000).create()) {
        List<CompletableFuture<MessageId>> sent = new ArrayList<>();
        for (String p : expected) {
          sent.add(producer.sendAsync(p.getBytes(StandardCharsets.UTF_8)));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        last = sent.get(sent.size() - 1).get();
      }
      System.out.println("[timing] produced " + MESSAGES + " unbatched messages in " + seconds(t0));

      List<LedgerInfo> ledgers = admin.topics().getInternalStats(topic).ledgers;
      String lastText = last.toString();
      long lastLedger = Long.parseLong(lastText.substring(0, lastText.indexOf(':')));
      List<Long> closed = ledgers.stream().map(l -> l.ledgerId).filter(id -> id < lastLedger).toList();
      assertThat(closed).as("closed segments of %d entries", Testkit.PULSAR_MAX_ENTRIES_PER_LEDGER)
          .hasSizeGreaterThanOrEqualTo(MESSAGES / Testkit.PULSAR_MAX_ENTRIES_PER_LEDGER - 1);
      assertThat(ledgers.stream().filter(l -> l.ledgerId < lastLedger).mapToLong(l -> l.entries).sum())
          .isEqualTo(MESSAGES - ledgers.stream().filter(l -> l.ledgerId >= lastLedger).mapToLong(l -> l.entries).sum());
      assertThat(pulsar.bookieLedgers()).as("the bookie holds every segment before the offload").containsAll(closed);

      t0 = System.nanoTime();
      admin.topics().triggerOffload(topic, last);
      OffloadProcessStatus status = await("offload of " + closed.size() + " segments").atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> admin.topics().offloadStatus(topic), s -> s.getStatus() != LongRunningProcessStatus.Status.RUNNING
              && s.getStatus() != LongRunningProcessStatus.Status.NOT_RUN);
      assertThat(status.getStatus()).as("offload status (last error: %s)", status.getLastError())
          .isEqualTo(LongRunningProcessStatus.Status.SUCCESS);
      System.out.println("[timing] offloaded " + closed.size() + " segments in " + seconds(t0)
          + "; first message not offloaded: " + status.getFirstUnoffloadedMessage());

      List<LedgerInfo> after = admin.topics().getInternalStats(topic).ledgers;
      List<Long> offloaded = after.stream().filter(l -> l.offloaded).map(l -> l.ledgerId).toList();
      assertThat(offloaded).containsExactlyElementsOf(closed);
      assertThat(after.stream().filter(l -> !l.offloaded).map(l -> l.ledgerId)).allMatch(id -> id >= lastLedger);

      t0 = System.nanoTime();
      await("deletion of the local copies (lag " + Testkit.OFFLOAD_DELETION_LAG_MS + " ms, check every "
          + Testkit.RETENTION_CHECK_INTERVAL_SECONDS + " s)").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(pulsar::bookieLedgers, local -> offloaded.stream().noneMatch(local::contains));
      SortedSet<Long> local = pulsar.bookieLedgers();
      assertThat(local).as("the segment holding the last message stays local").contains(lastLedger);
      System.out.println("[timing] local copies of " + offloaded.size() + " segments deleted " + seconds(t0)
          + " after the offload finished");

      Set<String> objects;
      try (Stream<Path> files = Files.walk(s3.bucketDir())) {
        objects = files.filter(Files::isRegularFile).map(f -> s3.bucketDir().relativize(f).toString())
            .collect(Collectors.toSet());
      }
      for (long id : offloaded) {
        assertThat(objects).as("objects of segment %d in %s", id, s3.bucketDir())
            .anyMatch(o -> o.endsWith("-ledger-" + id)).anyMatch(o -> o.endsWith("-ledger-" + id + "-index"));
      }

      t0 = System.nanoTime();
      try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(MessageId.earliest)
          .create()) {
        assertThat(read(reader, MESSAGES, Duration.ofSeconds(30))).containsExactlyElementsOf(expected);
      }
      System.out.println("[timing] read back " + MESSAGES + " messages (" + offloaded.size()
          + " segments from S3) in " + seconds(t0));

      // The broker keeps offloaded segments it has just read open (index and read buffer) and their entries
      // in its cache, and serves them without S3 for a while: unload the topic so that every read reopens
      // its segments from S3.
      admin.topics().unload(topic);
      s3.stop();
      try {
        t0 = System.nanoTime();
        try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(MessageId.earliest)
            .create()) {
          List<String> whileDown = read(reader, MESSAGES, S3_DOWN_READ_TIMEOUT);
          long downNanos = System.nanoTime() - t0;
          assertThat(whileDown).as("messages read while S3 is down").isEmpty();
          assertThat(Duration.ofNanos(downNanos)).isLessThan(S3_DOWN_READ_TIMEOUT.plusSeconds(10));
          System.out.println("[timing] read from earliest with S3 down: nothing within " + seconds(t0));

          t0 = System.nanoTime();
          s3.restart();
          System.out.println("[timing] s3proxy restarted on port " + s3.port() + " in " + seconds(t0));
          t0 = System.nanoTime();
          assertThat(read(reader, MESSAGES, Duration.ofSeconds(60))).as("the same reader, once S3 is back")
              .containsExactlyElementsOf(expected);
          System.out.println("[timing] the reader that waited read all " + MESSAGES + " messages " + seconds(t0)
              + " after the restart");
        }
      } finally {
        s3.restart();
      }
      assertThat(admin.topics().getInternalStats(topic).ledgers.stream().filter(l -> l.offloaded).count())
          .isEqualTo(offloaded.size());
    }
  }

  /**
   * The per-tenant policy of the issue: a namespace offload threshold (bytes) offloads closed segments
   * automatically, and a namespace deletion lag removes their local copies (the namespace policy makes the
   * broker look up its offloader again, in {@code ./offloaders} as well).
   */
  @Test
  void aNamespaceThresholdOffloadsClosedSegmentsAutomaticallyAndItsLagDeletesTheLocalCopies() throws Exception {
    PulsarStandaloneProcess pulsar = Testkit.pulsar();
    String tenant = Testkit.uniqueName("auto");
    String namespace = tenant + "/ns";
    String topic = "persistent://" + namespace + "/events";
    int messages = 1_000;
    try (PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(pulsar.adminUrl()).build();
        PulsarClient client = PulsarClient.builder().serviceUrl(pulsar.serviceUrl()).build()) {
      admin.tenants().createTenant(tenant, TenantInfo.builder().allowedClusters(Set.of("standalone")).build());
      admin.namespaces().createNamespace(namespace);
      admin.namespaces().setRetention(namespace, new RetentionPolicies(-1, -1));
      admin.namespaces().setOffloadThreshold(namespace, 0);
      admin.namespaces().setOffloadDeleteLag(namespace, 1, TimeUnit.SECONDS);
      assertThat(admin.namespaces().getOffloadThreshold(namespace)).isZero();
      assertThat(admin.namespaces().getOffloadDeleteLagMs(namespace)).isEqualTo(1_000L);

      long t0 = System.nanoTime();
      List<String> expected = new ArrayList<>();
      try (Producer<byte[]> producer = client.newProducer(Schema.BYTES).topic(topic).enableBatching(false).create()) {
        List<CompletableFuture<MessageId>> sent = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
          expected.add(payload(i));
          sent.add(producer.sendAsync(payload(i).getBytes(StandardCharsets.UTF_8)));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      }
      int closedSegments = messages / Testkit.PULSAR_MAX_ENTRIES_PER_LEDGER - 1;
      List<Long> offloaded = await("automatic offload").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
          .until(() -> admin.topics().getInternalStats(topic).ledgers.stream().filter(l -> l.offloaded)
              .map(l -> l.ledgerId).toList(), ids -> ids.size() >= closedSegments);
      System.out.println("[timing] namespace threshold 0: " + offloaded.size() + " segments offloaded automatically "
          + seconds(t0) + " after the first send");
      await("deletion of the local copies").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
          .until(pulsar::bookieLedgers, local -> offloaded.stream().noneMatch(local::contains));
      System.out.println("[timing] ... and their local copies deleted " + seconds(t0) + " after the first send");
      try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(MessageId.earliest)
          .create()) {
        assertThat(read(reader, messages, Duration.ofSeconds(30))).containsExactlyElementsOf(expected);
      }
    }
  }
}
