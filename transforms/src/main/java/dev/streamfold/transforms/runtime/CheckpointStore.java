package dev.streamfold.transforms.runtime;

import dev.streamfold.transforms.TransformDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;

/**
 * Where view versions' retained Flink checkpoints live, read and deleted through Flink's file systems
 * (local, S3, ...): {@code <checkpoints URI>/<tenant>/<view>/v<version>/<job id>/chk-N/_metadata}.
 */
public final class CheckpointStore {
  private final String checkpointsUri;

  /**
   * @param checkpointsUri the root of every view's checkpoints, e.g. {@code file:///data/checkpoints}
   */
  public CheckpointStore(String checkpointsUri) {
    this.checkpointsUri = checkpointsUri;
  }

  /** URI of a version's retained checkpoints: {@code <checkpoints URI>/<tenant>/<view>/v<version>}. */
  public String versionDir(TransformDefinition definition) {
    return viewDir(definition) + "/v" + definition.version();
  }

  private String viewDir(TransformDefinition definition) {
    return checkpointsUri + "/" + definition.tenant() + "/" + definition.name();
  }

  /**
   * Delete every version's checkpoints of a view; missing is fine.
   *
   * @throws UncheckedIOException if the file system fails
   */
  public void deleteView(TransformDefinition definition) {
    deleteUri(viewDir(definition));
  }

  /**
   * Delete one version's checkpoints; missing is fine.
   *
   * @throws UncheckedIOException if the file system fails
   */
  public void deleteVersion(TransformDefinition definition) {
    deleteUri(versionDir(definition));
  }

  /** Delete a directory of checkpoints through Flink's file systems (local, S3, ...); missing is fine. */
  private static void deleteUri(String uri) {
    try {
      org.apache.flink.core.fs.Path path = new org.apache.flink.core.fs.Path(uri);
      FileSystem fs = path.getFileSystem();
      if (fs.exists(path)) {
        fs.delete(path, true);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete checkpoints " + uri, e);
    }
  }

  /**
   * Delete a local scratch directory (a replay's or training set's) and everything in it; missing is fine.
   *
   * @throws UncheckedIOException if listing it fails
   */
  public static void deleteLocalDir(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The newest completed retained checkpoint of a version: {@code <dir>/<job id>/chk-N/_metadata}.
   *
   * @return the {@code chk-N} directory's URI, or empty when the version has none
   * @throws UncheckedIOException if the file system fails
   */
  public Optional<String> latest(TransformDefinition definition) {
    org.apache.flink.core.fs.Path dir = new org.apache.flink.core.fs.Path(versionDir(definition));
    try {
      FileSystem fs = dir.getFileSystem();
      if (!fs.exists(dir)) {
        return Optional.empty();
      }
      FileStatus newest = null;
      for (FileStatus job : fs.listStatus(dir)) {
        if (!job.isDir()) {
          continue;
        }
        for (FileStatus chk : fs.listStatus(job.getPath())) {
          if (chk.isDir() && chk.getPath().getName().startsWith("chk-")
              && fs.exists(new org.apache.flink.core.fs.Path(chk.getPath(), "_metadata"))
              && (newest == null || chk.getModificationTime() > newest.getModificationTime())) {
            newest = chk;
          }
        }
      }
      return Optional.ofNullable(newest).map(s -> s.getPath().toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the checkpoints under " + dir, e);
    }
  }
}
