package dev.streamfold.deploy.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.StringReader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Broker configuration and environment of tiered storage, without starting anything. */
class TieredStorageTest {
  static final URI ENDPOINT = URI.create("http://127.0.0.1:9000");

  @TempDir
  Path dir;

  static Properties parse(String config) throws Exception {
    Properties p = new Properties();
    p.load(new StringReader(config));
    return p;
  }

  @Test
  void configHasTheOffloadKeysAndAbsoluteOffloaderDirectoriesButNoCredentials() throws Exception {
    TieredStorage offload = TieredStorage.builder(ENDPOINT, "streamfold-test")
        .credentials("AKIDEXAMPLE", "wJalrXUtnFEMI-secret")
        .smallSegments(50).deletionLagMs(2_000).retentionCheckIntervalSeconds(5).build();
    String text = PulsarStandaloneProcess.config(1, 2, 3, 4, dir, offload);
    Properties conf = parse(text);

    assertThat(conf).containsEntry("managedLedgerOffloadDriver", "S3")
        .containsEntry("managedLedgerOffloadServiceEndpoint", "http://127.0.0.1:9000")
        .containsEntry("managedLedgerOffloadRegion", "us-east-1")
        .containsEntry("managedLedgerOffloadBucket", "streamfold-test")
        .containsEntry("managedLedgerOffloadMaxBlockSizeInBytes", Long.toString(64L * 1024 * 1024))
        .containsEntry("managedLedgerOffloadDeletionLagMs", "2000")
        .containsEntry("managedLedgerDataReadPriority", "bookkeeper-first")
        .containsEntry("retentionCheckIntervalInSeconds", "5")
        .containsEntry("managedLedgerMaxEntriesPerLedger", "50")
        .containsEntry("managedLedgerMinLedgerRolloverTimeMinutes", "0")
        .containsEntry("offloadersDirectory", dir.resolve("offloaders").toString())
        .containsEntry("narExtractionDirectory", dir.resolve("nar").toString())
        .containsEntry("defaultRetentionTimeInMinutes", "-1")
        .containsEntry("defaultRetentionSizeInMB", "-1")
        .containsEntry("httpServerEnabled", "true")
        .containsEntry("httpServerPort", "4")
        .containsEntry("httpServerHost", "127.0.0.1");
    assertThat(Path.of(conf.getProperty("offloadersDirectory"))).isAbsolute();
    assertThat(text).doesNotContain("AKIDEXAMPLE").doesNotContain("wJalrXUtnFEMI-secret")
        .doesNotContainIgnoringCase("s3ManagedLedgerOffload").doesNotContain("ACCESS_KEY");
    assertThat(conf.stringPropertyNames()).noneMatch(k -> k.toLowerCase().contains("secret")
        || k.toLowerCase().contains("credential"));
  }

  @Test
  void productionDefaultsLeaveSegmentSizesToTheBroker() throws Exception {
    TieredStorage offload = TieredStorage.builder(URI.create("https://s3.eu-west-1.amazonaws.com"), "my.bucket-1")
        .region("eu-west-1").build();
    Properties conf = parse(PulsarStandaloneProcess.config(1, 2, 3, 0, dir, offload));
    assertThat(conf).containsEntry("managedLedgerOffloadRegion", "eu-west-1")
        .containsEntry("managedLedgerOffloadDeletionLagMs", Long.toString(4 * 3600 * 1000L))
        .containsEntry("retentionCheckIntervalInSeconds", "120")
        .doesNotContainKey("managedLedgerMaxEntriesPerLedger")
        .doesNotContainKey("managedLedgerMinLedgerRolloverTimeMinutes")
        .doesNotContainKey("httpServerEnabled");
  }

  @Test
  void withoutTieredStorageTheConfigHasNoOffloadKey() throws Exception {
    Properties conf = parse(PulsarStandaloneProcess.config(1, 2, 3, 0, dir, null));
    assertThat(conf.stringPropertyNames()).noneMatch(k -> k.contains("Offload") || k.startsWith("offloaders"))
        .contains("brokerServicePort", "webServicePort", "bookiePort");
    assertThat(conf).containsEntry("brokerServicePort", "1").containsEntry("webServicePort", "2")
        .containsEntry("bookiePort", "3");
  }

  @Test
  void credentialsGoToTheEnvironmentFromTheOptionsOrElseTheInheritedEnvironment() {
    TieredStorage explicit = TieredStorage.builder(ENDPOINT, "b-1").credentials("id", "secret").build();
    assertThat(explicit.brokerEnvironment(Map.of("ACCESS_KEY_ID", "other", "ACCESS_KEY_SECRET", "other")))
        .containsExactly(Map.entry("ACCESS_KEY_ID", "id"), Map.entry("ACCESS_KEY_SECRET", "secret"));

    TieredStorage fromEnv = TieredStorage.builder(ENDPOINT, "b-1").build();
    assertThat(fromEnv.brokerEnvironment(Map.of("ACCESS_KEY_ID", "env-id", "ACCESS_KEY_SECRET", "env-secret")))
        .containsEntry("ACCESS_KEY_ID", "env-id").containsEntry("ACCESS_KEY_SECRET", "env-secret");

    assertThatThrownBy(() -> fromEnv.brokerEnvironment(Map.of())).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ACCESS_KEY_ID").hasMessageContaining("ACCESS_KEY_SECRET")
        .hasMessageContaining("missing: ACCESS_KEY_ID, ACCESS_KEY_SECRET");
    assertThatThrownBy(() -> fromEnv.brokerEnvironment(Map.of("ACCESS_KEY_ID", "env-id", "ACCESS_KEY_SECRET", " ")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("missing: ACCESS_KEY_SECRET");
  }

  @Test
  void startWithoutCredentialsFailsLoudlyBeforeAnyProcessStarts() {
    assumeTrue(System.getenv("ACCESS_KEY_ID") == null && System.getenv("ACCESS_KEY_SECRET") == null,
        "this JVM's environment has S3 credentials");
    TieredStorage noCredentials = TieredStorage.builder(ENDPOINT, "b-1").build();
    Path data = dir.resolve("pulsar");
    assertThatThrownBy(() -> PulsarStandaloneProcess.start(data, 0, 0, 0, noCredentials))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ACCESS_KEY_ID").hasMessageContaining("ACCESS_KEY_SECRET");
    assertThat(Files.exists(data.resolve("standalone.conf"))).isFalse();
  }

  @Test
  void toStringHidesTheSecret() {
    TieredStorage offload = TieredStorage.builder(ENDPOINT, "b-1").credentials("AKID", "very-secret").build();
    assertThat(offload.toString()).contains("AKID").contains("****").doesNotContain("very-secret");
  }

  @Test
  void invalidValuesAreRejectedWithTheValue() {
    assertThatThrownBy(() -> TieredStorage.builder(ENDPOINT, "Bad_Bucket").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Bad_Bucket");
    assertThatThrownBy(() -> TieredStorage.builder(URI.create("ftp://x"), "b-1").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ftp://x");
    assertThatThrownBy(() -> TieredStorage.builder(ENDPOINT, "b-1").maxBlockSizeBytes(1024).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1024");
    assertThatThrownBy(() -> TieredStorage.builder(ENDPOINT, "b-1").credentials("id", null).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ACCESS_KEY_ID");
    assertThatThrownBy(() -> TieredStorage.builder(ENDPOINT, "b-1").deletionLagMs(-1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    assertThatThrownBy(() -> TieredStorage.builder(ENDPOINT, "b-1").smallSegments(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxEntriesPerLedger");
    assertThatThrownBy(() -> TieredStorage.builder(ENDPOINT, "b-1").build().brokerConfig(Path.of("offloaders"), dir))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("absolute");
  }

  @Test
  void bucketNamesFollowS3Rules() {
    assertThat(Arrays.asList("abc", "streamfold-test", "a.b-c", "0ab")).allMatch(S3ProxyProcess::isValidBucketName);
    assertThat(Arrays.asList("ab", "ABC", "a_b", "-ab", "ab-", "a..b", null, "x".repeat(64)))
        .noneMatch(S3ProxyProcess::isValidBucketName);
  }
}
