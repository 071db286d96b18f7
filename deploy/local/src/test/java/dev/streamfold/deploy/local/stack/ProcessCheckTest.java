package dev.streamfold.deploy.local.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.streamfold.deploy.local.stack.StackState.ProcessRecord;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessCheckTest {
  static final long SELF = ProcessHandle.current().pid();

  static ProcessRecord record(long pid, long startedAtMs, String marker) {
    return new ProcessRecord("x", pid, startedAtMs, marker, "/d", "/d/x.log", Map.of());
  }

  @Test
  void findsTheVeryProcessItStarted() {
    long started = ProcessCheck.startedAtMs(SELF);
    String mainMarker = ProcessHandle.current().info().commandLine().orElse("").split(" ")[0];
    assertThat(ProcessCheck.find(record(SELF, started, mainMarker))).isPresent();
  }

  @Test
  void aReusedPidIsNotOurs() {
    long started = ProcessCheck.startedAtMs(SELF);
    assertThat(ProcessCheck.find(record(SELF, started - 60_000, ""))).isEmpty();
    assertThat(ProcessCheck.find(record(SELF, started, "/no/such/data/dir/server"))).isEmpty();
    assertThat(ProcessCheck.find(null)).isEmpty();
    assertThat(ProcessCheck.find(record(0, 0, ""))).isEmpty();
  }

  @Test
  void aStartTimeOffByAClockStepStillFindsTheProcessByItsMarker() {
    // The recorded start and the one computed now differ after the wall clock is stepped (the kernel's boot
    // time moves with it): the command marker still identifies the process.
    long started = ProcessCheck.startedAtMs(SELF);
    String mainMarker = ProcessHandle.current().info().commandLine().orElse("").split(" ")[0];
    assertThat(ProcessCheck.find(record(SELF, started - 6_000, mainMarker))).isPresent();
    assertThat(ProcessCheck.find(record(SELF, started + 3_600_000, mainMarker))).isPresent();
  }

  @Test
  void terminatesAProcessAndWaits() throws Exception {
    Process sleeper = new ProcessBuilder("sleep", "600").start();
    ProcessRecord r = record(sleeper.pid(), ProcessCheck.startedAtMs(sleeper.pid()), "sleep 600");
    assertThat(ProcessCheck.find(r)).isPresent();
    assertThat(ProcessCheck.terminate(sleeper.toHandle(), Duration.ofSeconds(5))).isTrue();
    assertThat(ProcessCheck.find(r)).isEmpty();
  }
}
