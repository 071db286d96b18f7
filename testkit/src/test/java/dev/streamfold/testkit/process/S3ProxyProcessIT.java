package dev.streamfold.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.streamfold.deploy.process.S3ProxyProcess;
import dev.streamfold.testkit.Testkit;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** s3proxy as a process of its own: bucket on disk, secret only in a mode-600 file, stop and restart in place. */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class S3ProxyProcessIT {
  static int status(String url) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void startsWithItsBucketStopsAndRestartsOnTheSamePortAndData() throws Exception {
    Path dir = Testkit.workDir().resolve(Testkit.uniqueName("s3"));
    try (S3ProxyProcess s3 = S3ProxyProcess.start(dir, 0, "bucket-1", "id-1", "secret-that-stays-hidden")) {
      assertThat(s3.bucketDir()).isDirectory().isEqualTo(dir.resolve("buckets/bucket-1"));
      assertThat(status(s3.endpoint() + "/")).as("unsigned request").isEqualTo(403);
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(s3.propertiesFile())))
          .isEqualTo("rw-------");
      assertThat(ProcessHandle.of(s3.pid()).orElseThrow().info().commandLine().orElse(""))
          .contains(s3.propertiesFile().toString()).doesNotContain("secret-that-stays-hidden");
      Files.writeString(s3.bucketDir().resolve("kept"), "object");

      assertThatThrownBy(() -> S3ProxyProcess.start(dir.resolve("other"), s3.port(), "bucket-2", "i", "s"))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining(Integer.toString(s3.port()));

      long pid = s3.pid();
      s3.stop();
      assertThat(s3.isRunning()).isFalse();
      assertThat(s3.pid()).isEqualTo(-1);
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
      assertThatThrownBy(() -> status(s3.endpoint() + "/")).isInstanceOf(java.io.IOException.class);

      s3.restart();
      assertThat(s3.isRunning()).isTrue();
      assertThat(s3.pid()).isNotEqualTo(pid);
      assertThat(status(s3.endpoint() + "/")).isEqualTo(403);
      assertThat(s3.bucketDir().resolve("kept")).hasContent("object");
      s3.restart();
      assertThat(s3.isRunning()).as("restart of a running endpoint changes nothing").isTrue();
    }
  }
}
