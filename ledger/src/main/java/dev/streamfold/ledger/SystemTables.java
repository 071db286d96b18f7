package dev.streamfold.ledger;

/**
 * Streamfold's own data in the ledger: keyed system tables of a tenant or of the cluster, and artifacts.
 * Part of {@link Ledger}. Thread-safe.
 */
public interface SystemTables {

  /**
   * Open a keyed system table of a tenant (a compacted topic in its {@code system} namespace), e.g. the
   * transformation catalog.
   *
   * @param tenant tenant name
   * @param table table name, e.g. {@code transforms}
   * @return the table
   */
  SystemTable systemTable(String tenant, String table);

  /**
   * Store an artifact (the jar of a Java transformation) in the tenant's ledger, content-addressed and
   * kept forever like every other ledger topic (infinite retention, offloaded to S3 with the rest):
   * topic {@code persistent://<tenant>/system/artifact-<sha256>}, in parts of at most
   * {@link #ARTIFACT_PART_BYTES} (below Pulsar's default 5 MiB {@code maxMessageSize}). Storing the same
   * bytes again stores nothing.
   *
   * @param tenant tenant name
   * @param content the bytes (at most {@link #MAX_ARTIFACT_BYTES})
   * @return the SHA-256 of the bytes, lower-case hex (64 characters): the artifact's name
   * @throws IllegalArgumentException if the content is empty or larger than {@link #MAX_ARTIFACT_BYTES}
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  String putArtifact(String tenant, byte[] content);

  /**
   * Read an artifact stored with {@link #putArtifact}.
   *
   * @param tenant tenant name
   * @param sha256 the artifact's SHA-256, lower-case hex
   * @return its bytes, checked against the SHA-256
   * @throws LedgerException.ArtifactNotFound if the tenant has no complete artifact with that SHA-256
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  byte[] artifact(String tenant, String sha256);

  /** Part size of stored artifacts: 1 MiB. */
  int ARTIFACT_PART_BYTES = 1 << 20;
  /** Largest artifact: 256 MiB. */
  int MAX_ARTIFACT_BYTES = 256 << 20;

  /**
   * Open a keyed system table of the cluster rather than of one tenant (e.g. the tenant registry): a
   * compacted topic in the namespace {@code system} of the Pulsar tenant
   * {@value dev.streamfold.ledger.pulsar.PulsarLedger#CLUSTER_TENANT}, a name no Streamfold tenant can have.
   *
   * @param table table name, e.g. {@code tenants}
   * @return the table
   * @throws LedgerException.Unavailable if Pulsar fails
   */
  SystemTable clusterTable(String table);
}
