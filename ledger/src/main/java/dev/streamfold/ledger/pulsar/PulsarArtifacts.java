package dev.streamfold.ledger.pulsar;

import dev.streamfold.core.StreamRef;
import dev.streamfold.ledger.Ledger;
import dev.streamfold.ledger.LedgerException;
import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;

/**
 * Content-addressed artifacts in a tenant's ledger (see {@link Ledger#putArtifact}): one topic per
 * artifact, {@code persistent://<tenant>/system/artifact-<sha256>}, holding its parts in order. Each part
 * is keyed {@code <sha256>:<index>} and carries its index and the part count as properties; since the
 * topic is named by the content's hash, a part of a given index always has the same bytes, so a
 * repeated or interrupted store is harmless: a read takes each index once and checks the hash.
 */
final class PulsarArtifacts {
  private static final String PART = "sf.artifact.part";
  private static final String PARTS = "sf.artifact.parts";

  private final PulsarClient client;
  private final PulsarAdmin admin;

  PulsarArtifacts(PulsarClient client, PulsarAdmin admin) {
    this.client = client;
    this.admin = admin;
  }

  String put(String tenant, byte[] content) {
    if (content == null || content.length == 0) {
      throw new IllegalArgumentException("artifact is empty");
    }
    if (content.length > Ledger.MAX_ARTIFACT_BYTES) {
      throw new IllegalArgumentException("artifact is " + content.length + " bytes; at most "
          + Ledger.MAX_ARTIFACT_BYTES + " bytes are stored");
    }
    String sha256 = sha256(content);
    try {
      read(tenant, sha256);
      return sha256; // stored before
    } catch (LedgerException.ArtifactNotFound notYet) {
      // store it
    }
    int parts = (content.length + Ledger.ARTIFACT_PART_BYTES - 1) / Ledger.ARTIFACT_PART_BYTES;
    try (Producer<byte[]> producer = client.newProducer(Schema.BYTES).topic(topic(tenant, sha256))
        .enableBatching(false).sendTimeout(30, TimeUnit.SECONDS).create()) {
      for (int i = 0; i < parts; i++) {
        int from = i * Ledger.ARTIFACT_PART_BYTES;
        int to = Math.min(content.length, from + Ledger.ARTIFACT_PART_BYTES);
        producer.newMessage().key(sha256 + ":" + i).value(java.util.Arrays.copyOfRange(content, from, to))
            .property(PART, Integer.toString(i)).property(PARTS, Integer.toString(parts)).send();
      }
    } catch (PulsarClientException e) {
      throw new LedgerException.Unavailable("cannot store artifact sha256:" + sha256 + " of tenant '" + tenant + "'", e);
    }
    return sha256;
  }

  byte[] read(String tenant, String sha256) {
    if (sha256 == null || !sha256.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("artifact name must be a lower-case hex SHA-256, got '" + sha256 + "'");
    }
    String topic = topic(tenant, sha256);
    try {
      if (!admin.topics().getList(tenant + "/" + StreamRef.SYSTEM_NAMESPACE).contains(topic)) {
        throw new LedgerException.ArtifactNotFound(tenant, sha256);
      }
    } catch (PulsarAdminException.NotFoundException e) {
      throw new LedgerException.ArtifactNotFound(tenant, sha256);
    } catch (PulsarAdminException e) {
      throw new LedgerException.Unavailable("cannot list the system topics of tenant '" + tenant + "'", e);
    }
    Map<Integer, byte[]> parts = new TreeMap<>();
    int count = -1;
    try (Reader<byte[]> reader = client.newReader(Schema.BYTES).topic(topic).startMessageId(MessageId.earliest)
        .create()) {
      while (reader.hasMessageAvailable()) {
        Message<byte[]> message = reader.readNext(30, TimeUnit.SECONDS);
        if (message == null) {
          break;
        }
        try {
          count = Integer.parseInt(message.getProperty(PARTS));
          parts.putIfAbsent(Integer.parseInt(message.getProperty(PART)), message.getValue());
        } catch (NumberFormatException notAPart) {
          // not written by this class: ignore
        }
      }
    } catch (java.io.IOException e) {
      throw new LedgerException.Unavailable("cannot read artifact sha256:" + sha256 + " of tenant '" + tenant + "'", e);
    }
    if (count < 1 || parts.size() < count) {
      throw new LedgerException.ArtifactNotFound(tenant, sha256); // an interrupted store
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < count; i++) {
      byte[] part = parts.get(i);
      if (part == null) {
        throw new LedgerException.ArtifactNotFound(tenant, sha256);
      }
      out.writeBytes(part);
    }
    byte[] content = out.toByteArray();
    if (!sha256(content).equals(sha256)) {
      throw new LedgerException("artifact sha256:" + sha256 + " of tenant '" + tenant + "' is corrupt: its "
          + content.length + " bytes hash to sha256:" + sha256(content));
    }
    return content;
  }

  static String topic(String tenant, String sha256) {
    return "persistent://" + tenant + "/" + StreamRef.SYSTEM_NAMESPACE + "/artifact-" + sha256;
  }

  static String sha256(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
