package dev.streamfold.deploy.local.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.deploy.process.TieredStorage;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local S3 endpoint's credentials and the broker's offload to it, without starting anything. */
class S3CredentialsTest {
  @TempDir
  Path dir;

  @Test
  void madeUpOnceWithOwnerOnlyModeAndReusedAfterwards() throws Exception {
    Path file = dir.resolve("s3/credentials");
    S3Credentials first = S3Credentials.loadOrCreate(file);
    assertThat(first.accessKeyId()).hasSize(20).matches("[A-Z2-7]+");
    assertThat(first.secretAccessKey()).hasSize(40).matches("[A-Za-z0-9]+");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    assertThat(Files.readString(file)).contains("ACCESS_KEY_ID=" + first.accessKeyId())
        .contains("ACCESS_KEY_SECRET=" + first.secretAccessKey());

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(S3Credentials.loadOrCreate(file)).isEqualTo(first);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    assertThat(S3Credentials.loadOrCreate(dir.resolve("other/credentials"))).isNotEqualTo(first);
  }

  @Test
  void aFileWithoutTheSecretIsNamed() throws Exception {
    Path file = Files.writeString(dir.resolve("credentials"), "ACCESS_KEY_ID=abc\n");
    assertThatThrownBy(() -> S3Credentials.loadOrCreate(file)).isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(file.toString()).hasMessageContaining("ACCESS_KEY_SECRET");
  }

  @Test
  void toStringHidesTheSecret() {
    assertThat(new S3Credentials("AKID", "the-secret").toString()).contains("AKID").doesNotContain("the-secret");
  }

  @Test
  void theLocalBrokerOffloadsSegmentsOf500EntriesWithTheGivenLag() {
    S3Credentials credentials = new S3Credentials("AKIDLOCAL", "local-secret");
    TieredStorage offload = LocalStack.tieredStorage("http://127.0.0.1:40007", credentials, Duration.ofHours(4));
    assertThat(offload.bucket()).isEqualTo(LocalStack.S3_BUCKET);
    assertThat(offload.endpoint()).hasToString("http://127.0.0.1:40007");
    assertThat(offload.deletionLagMs()).isEqualTo(4 * 3600 * 1000L);
    assertThat(offload.maxEntriesPerLedger()).isEqualTo(LocalStack.LOCAL_MAX_ENTRIES_PER_LEDGER);
    assertThat(offload.minLedgerRolloverTimeMinutes()).isZero();
    assertThat(offload.accessKeyId()).isEqualTo("AKIDLOCAL");
    assertThat(offload.toString()).doesNotContain("local-secret");
  }
}
