package io.nodeatlas.agent.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.testing.FakeSystemd;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A datagram socket plays systemd's notify socket. */
class SdNotifierTest {

  @TempDir Path dir;

  @Test
  void sendsEachNotificationAsOneDatagram() throws Exception {
    String socket = dir.resolve("notify").toString();
    try (FakeSystemd systemd = new FakeSystemd(socket);
         Notifier n = SdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", socket))) {
      n.notify("READY=1\nSTATUS=3 devices");
      n.notify("WATCHDOG=1");
      n.notify("STOPPING=1");

      assertThat(systemd.next()).isEqualTo("READY=1\nSTATUS=3 devices");
      assertThat(systemd.next()).isEqualTo("WATCHDOG=1");
      assertThat(systemd.next()).isEqualTo("STOPPING=1");
    }
  }

  @Test
  void abstractSocketNames() throws Exception {
    String name = "nodeatlas-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    try (FakeSystemd systemd = new FakeSystemd("\0" + name);
         Notifier n = SdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", "@" + name))) {
      n.notify("READY=1");

      assertThat(systemd.next()).isEqualTo("READY=1");
    }
  }

  @Test
  void withoutNotifySocketNothingIsSent() {
    assertThat(SdNotifier.fromEnvironment(Map.of())).isSameAs(Notifier.NONE);
  }

  @Test
  void aVanishedSystemdDoesNotThrow() {
    try (Notifier n = SdNotifier.fromEnvironment(Map.of("NOTIFY_SOCKET", dir.resolve("gone").toString()))) {
      n.notify("READY=1");
    }
  }

  @Test
  void watchdogIntervalIsHalfTheConfiguredPeriodForThisProcess() {
    assertThat(SdNotifier.watchdogInterval(Map.of("WATCHDOG_USEC", "30000000"), 42)).contains(Duration.ofSeconds(15));
    assertThat(SdNotifier.watchdogInterval(Map.of("WATCHDOG_USEC", "30000000", "WATCHDOG_PID", "7"), 42)).isEmpty();
    assertThat(SdNotifier.watchdogInterval(Map.of("WATCHDOG_USEC", "30000000", "WATCHDOG_PID", "42"), 42)).isPresent();
    assertThat(SdNotifier.watchdogInterval(Map.of(), 42)).isEmpty();
    assertThat(SdNotifier.watchdogInterval(Map.of("WATCHDOG_USEC", "soon"), 42)).isEmpty();
  }
}
