package dev.streamfold.core;

import java.util.regex.Pattern;

/**
 * A stream of a tenant's ledger: Pulsar topic {@code persistent://<tenant>/ledger/<stream>}.
 *
 * @param tenant tenant name (lowercase letters, digits, '_' and '-')
 * @param stream stream name (letters, digits, '_' and '-', 1 to 100 characters; neither {@code -partition-}
 *     nor a leading {@code __}, Pulsar's marks of a partition's topic and of its system topics)
 */
public record StreamRef(String tenant, String stream) {
  /** Namespace of a tenant that holds its streams. */
  public static final String LEDGER_NAMESPACE = "ledger";
  /** Namespace of a tenant that holds Streamfold's own topics (the transformation catalog). */
  public static final String SYSTEM_NAMESPACE = "system";

  private static final Pattern TENANT = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
  private static final Pattern STREAM = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]{0,99}");

  /**
   * Create a stream reference.
   *
   * @throws IllegalArgumentException if the tenant or stream name is malformed (the message quotes it)
   */
  public StreamRef {
    checkTenant(tenant);
    if (stream == null || !STREAM.matcher(stream).matches()) {
      throw new IllegalArgumentException("invalid stream name " + ClientText.quote(stream)
          + ": use a letter or '_' then letters, digits, '_' or '-' (at most 100 characters)");
    }
    // Pulsar's own topic names (TopicName.PARTITIONED_TOPIC_SUFFIX; SystemTopicNames): a stream named so would
    // be taken for a partition of another stream, or hidden among the system topics
    if (stream.contains(PARTITION_MARKER)) {
      throw new IllegalArgumentException("invalid stream name " + ClientText.quote(stream) + ": '" + PARTITION_MARKER
          + "' is how Pulsar names the topic of one partition of a partitioned stream");
    }
    if (stream.startsWith("__")) {
      throw new IllegalArgumentException("invalid stream name " + ClientText.quote(stream)
          + ": names starting with '__' are Pulsar's system topics");
    }
  }

  /** What Pulsar puts between a partitioned topic's name and a partition number. */
  private static final String PARTITION_MARKER = "-partition-";

  /**
   * Check a tenant name.
   *
   * @param tenant the name
   * @return the name
   * @throws IllegalArgumentException if malformed (the message quotes it)
   */
  public static String checkTenant(String tenant) {
    if (tenant == null || !TENANT.matcher(tenant).matches()) {
      throw new IllegalArgumentException("invalid tenant name " + ClientText.quote(tenant)
          + ": use lowercase letters, digits, '_' or '-' (at most 64 characters)");
    }
    return tenant;
  }

  /** The Pulsar topic, e.g. {@code persistent://demo/ledger/flights}. */
  public String topic() {
    return "persistent://" + tenant + "/" + LEDGER_NAMESPACE + "/" + stream;
  }

  /**
   * The Pulsar topic of one partition of a partitioned stream ({@code <topic>-partition-<p>}, Pulsar's
   * naming of a partitioned topic's internal topics).
   *
   * @param partition partition index, 0 to partitions - 1
   * @return the partition's topic
   */
  public String partitionTopic(int partition) {
    return topic() + PARTITION_MARKER + partition;
  }

  @Override
  public String toString() {
    return tenant + "/" + stream;
  }
}
