package dev.streamfold.transforms.fold;

import dev.streamfold.ledger.Ledger;
import dev.streamfold.transforms.TransformDefinition;
import dev.streamfold.transforms.TransformException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jars of Java transformations: each is kept forever in its tenant's ledger, content-addressed by its
 * SHA-256 (so a view can be rebuilt or replayed years later), with a local copy under
 * {@code <data dir>/jars/<tenant>/<sha256>.jar} that is fetched back from the ledger when missing (a new
 * server, a wiped data directory). Flink ships the attached jars to the tasks' class loader.
 */
public final class FoldJarStore {
  private static final Logger LOG = LoggerFactory.getLogger(FoldJarStore.class);

  private final Ledger ledger;
  private final Path dir;

  /** A stored jar: the shape of its transformation class and the jar's SHA-256 (hex) in the ledger. */
  public record Stored(FoldClasses.Shape shape, String sha256) {}

  /**
   * @param ledger where the jars are kept (its artifacts)
   * @param dir the local copies' directory, one subdirectory per tenant
   */
  public FoldJarStore(Ledger ledger, Path dir) {
    this.ledger = ledger;
    this.dir = dir.toAbsolutePath();
  }

  /**
   * Check that {@code className} in {@code jar} can run (see {@link FoldClasses#inspect}), then keep the jar in
   * the tenant's ledger and locally. Nothing is stored when the class cannot run.
   *
   * @param tenant tenant name
   * @param name the transformation (for logs)
   * @param jar the jar's bytes, not empty
   * @param className the {@link Transformation} class
   * @return the class's shape and the jar's SHA-256
   * @throws TransformException.InvalidFold if the class cannot run
   * @throws TransformException if the local copy cannot be written
   * @throws dev.streamfold.ledger.LedgerException.Unavailable if Pulsar fails
   */
  public Stored store(String tenant, String name, byte[] jar, String className) {
    Path tenantDir = dir.resolve(tenant);
    Path upload;
    try {
      Files.createDirectories(tenantDir);
      upload = Files.createTempFile(tenantDir, "upload-", ".jar");
      Files.write(upload, jar);
    } catch (IOException e) {
      throw new TransformException("cannot write the jar under " + tenantDir + ": " + e.getMessage(), e);
    }
    try {
      FoldClasses.Shape shape = FoldClasses.inspect(upload, className);
      String sha256 = ledger.putArtifact(tenant, jar);
      Files.move(upload, tenantDir.resolve(sha256 + ".jar"), StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
      LOG.info("stored jar sha256:{} ({} bytes) of {}/{} in the ledger", sha256, jar.length, tenant, name);
      return new Stored(shape, sha256);
    } catch (IOException e) {
      throw new TransformException("cannot keep the jar under " + tenantDir + ": " + e.getMessage(), e);
    } finally {
      try {
        Files.deleteIfExists(upload);
      } catch (IOException ignored) {
        // a leftover upload file is harmless
      }
    }
  }

  /**
   * Attach the jars of the Java transformations among {@code definitions} to a job graph (each once).
   *
   * @throws TransformException if a missing local copy cannot be written
   * @throws dev.streamfold.ledger.LedgerException if the ledger cannot return a jar
   */
  public void attach(JobGraph graph, List<TransformDefinition> definitions) {
    for (TransformDefinition definition : definitions) {
      if (definition.isFold()) {
        org.apache.flink.core.fs.Path jar = new org.apache.flink.core.fs.Path(local(definition).toUri());
        if (!graph.getUserJars().contains(jar)) {
          graph.addJar(jar);
        }
      }
    }
  }

  /** The local copy of a Java transformation's jar, fetched from the ledger when missing. */
  private Path local(TransformDefinition definition) {
    Path tenantDir = dir.resolve(definition.tenant());
    Path file = tenantDir.resolve(definition.jarSha256() + ".jar");
    if (Files.isRegularFile(file)) {
      return file;
    }
    byte[] jar = ledger.artifact(definition.tenant(), definition.jarSha256());
    try {
      Files.createDirectories(tenantDir);
      Path temp = Files.createTempFile(tenantDir, "fetch-", ".jar");
      Files.write(temp, jar);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new TransformException("cannot keep the jar of " + definition.name() + " under " + tenantDir + ": "
          + e.getMessage(), e);
    }
    LOG.info("fetched jar sha256:{} of {}/{} from the ledger", definition.jarSha256(), definition.tenant(),
        definition.name());
    return file;
  }
}
