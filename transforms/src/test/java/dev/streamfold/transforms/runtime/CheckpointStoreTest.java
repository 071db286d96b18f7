package dev.streamfold.transforms.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.transforms.TransformDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoint layout, the newest completed checkpoint, deletion (local file system, no cluster). */
class CheckpointStoreTest {
  @TempDir
  Path root;

  private static TransformDefinition version(int version) {
    return new TransformDefinition("t", "v", "SELECT 1", "s", List.of("k"), new LinkedHashMap<>(), version, 0);
  }

  private Path checkpoint(int version, String job, int n, long modifiedMs, boolean complete) throws Exception {
    Path chk = root.resolve("t/v/v" + version + "/" + job + "/chk-" + n);
    Files.createDirectories(chk);
    if (complete) {
      Files.writeString(chk.resolve("_metadata"), "m");
    }
    Files.setLastModifiedTime(chk, FileTime.fromMillis(modifiedMs));
    return chk;
  }

  @Test
  void theNewestCompletedCheckpointOfAVersionIsFoundAcrossJobs() throws Exception {
    CheckpointStore store = new CheckpointStore(root.toUri().toString().replaceAll("/$", ""));
    assertThat(store.versionDir(version(2))).endsWith("/t/v/v2");
    assertThat(store.latest(version(1))).isEmpty();
    checkpoint(1, "jobA", 3, 1_000, true);
    Path newest = checkpoint(1, "jobB", 1, 3_000, true);
    checkpoint(1, "jobA", 4, 5_000, false); // not completed: no _metadata
    checkpoint(2, "jobC", 9, 9_000, true); // another version
    assertThat(store.latest(version(1))).hasValueSatisfying(uri -> assertThat(uri).endsWith(
        root.relativize(newest).toString()));
  }

  @Test
  void deletingAVersionKeepsTheOthersAndDeletingTheViewRemovesAll() throws Exception {
    CheckpointStore store = new CheckpointStore(root.toUri().toString().replaceAll("/$", ""));
    checkpoint(1, "jobA", 1, 1_000, true);
    checkpoint(2, "jobB", 1, 1_000, true);
    store.deleteVersion(version(1));
    assertThat(root.resolve("t/v/v1")).doesNotExist();
    assertThat(store.latest(version(2))).isPresent();
    store.deleteView(version(2));
    assertThat(root.resolve("t/v")).doesNotExist();
    store.deleteView(version(2)); // missing is fine
    Path scratch = Files.createDirectories(root.resolve("scratch/a/b"));
    Files.writeString(scratch.resolve("f"), "x");
    CheckpointStore.deleteLocalDir(root.resolve("scratch"));
    assertThat(root.resolve("scratch")).doesNotExist();
  }
}
