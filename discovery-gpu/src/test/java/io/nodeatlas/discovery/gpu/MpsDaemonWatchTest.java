package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: the MPS control daemon's own {@code /dev/shm} (a directory per daemon bound there in the daemon's private
 * mount namespace and in each client container), and the daemons watched while the agent runs
 * ({@link DeviceRealiser#upkeep}), with the stand-in daemon as a real background process.
 */
class MpsDaemonWatchTest {

  static final String GPU = GpuRealiserTest.GPU;
  static final String MPS = GpuRealiserTest.HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":"
      + "{\"defaultActiveThreadPercentage\":30}}}";

  @TempDir Path host;
  @TempDir Path dir;
  Path state;
  HostContext ctx;
  DeviceRealiser realiser;
  Device gpu;

  @BeforeEach
  void setUp() throws Exception {
    FixtureTree.at(host).file("dev/nvidia0", "").file("dev/nvidiactl", "")
        .file("proc/devices", "Character devices:\n195 nvidia-frontend\n");
    FakeNvml.h200().install(dir);
    Path tools = Files.createDirectories(dir.resolve("tools"));
    Files.copy(Path.of("src", "test", "tools", "fake-nvidia-cuda-mps-control"), tools.resolve("fake-nvidia-cuda-mps-control"),
        StandardCopyOption.COPY_ATTRIBUTES);
    ctx = new HostContext(HostFs.of(host), new SourceOptions(Map.of("gpu.nvmlLibrary", FakeNvml.library().toString(),
        "gpu.mpsControl", tools.resolve("fake-nvidia-cuda-mps-control").toString(),
        // Never a mount on the host: tests may run as root (the tmpfs is tested in a namespace of its own below).
        "gpu.mpsShmSize", "0")), Clock.systemUTC());
    state = dir.resolve("state");
    realiser = new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow();
    gpu = new GpuDiscoverySource().discover(ctx).devices().stream().filter(d -> d.name().equals("gpu-0")).findFirst()
        .orElseThrow();
  }

  @AfterEach
  void stopDaemons() throws Exception {
    // The stand-in daemon ends once its control file is gone.
    if (Files.exists(state)) {
      try (var s = Files.walk(state)) {
        s.filter(p -> p.getFileName().toString().equals("control")).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void theClientsDevShmIsTheDaemonsOwnDirectory() throws Exception {
    Placement r = realiser.realise("uid-mps", gpu, List.of(MPS));
    Path daemonDir = state.resolve("mps/" + GPU);
    long pid = GpuRealiserTest.daemons(daemonDir.resolve("pipe")).get(0);
    ContainerEdits edits = realiser.containerEdits(gpu, r).containerEdits();
    assertThat(edits.mounts()).filteredOn(m -> m.containerPath().equals("/dev/shm"))
        .extracting(ContainerEdits.Mount::hostPath).as("the daemon's shm directory at the container's /dev/shm")
        .containsExactly(daemonDir.resolve("shm").toString());
    assertThat(edits.mounts()).filteredOn(m -> m.containerPath().equals("/dev/shm")).singleElement()
        .satisfies(m -> assertThat(m.options()).contains("bind", "nosuid", "nodev"));
    assertThat(Files.readString(daemonDir.resolve("shm/fake-mps-daemon")).strip())
        .as("the daemon wrote into its /dev/shm, which is that directory").isEqualTo(pid + " " + GPU);
    Path hostShm = Path.of("/dev/shm/fake-mps-daemon");
    assertThat(!Files.exists(hostShm) || !Files.readString(hostShm).startsWith(pid + " "))
        .as("the host's /dev/shm is not the daemon's").isTrue();
    assertThat(realiser.unrealise("uid-mps", gpu.name(), r)).isTrue();
    assertThat(daemonDir).doesNotExist();
  }

  @Test
  void aLinkInPlaceOfTheShmDirectoryIsNeverFollowed() throws Exception {
    Path daemonDir = Files.createDirectories(state.resolve("mps/" + GPU));
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.createSymbolicLink(daemonDir.resolve("shm"), elsewhere);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> realiser.realise("uid-mps", gpu, List.of(MPS)))
        .hasMessageContaining("is not a directory");
    assertThat(elsewhere).isEmptyDirectory();
    assertThat(GpuRealiserTest.daemons(daemonDir.resolve("pipe"))).isEmpty();
  }

  @Test
  void aDaemonThatDiesWhileHeldIsStartedAgainOnce() throws Exception {
    Placement r = realiser.realise("uid-mps", gpu, List.of(MPS));
    Path pipe = state.resolve("mps/" + GPU + "/pipe");
    long first = GpuRealiserTest.daemons(pipe).get(0);
    assertThat(realiser.upkeep(Set.of("uid-mps"))).as("a running daemon is left alone").isEmpty();

    ProcessHandle daemon = ProcessHandle.of(first).orElseThrow();
    daemon.destroyForcibly();
    daemon.onExit().get(60, TimeUnit.SECONDS);
    assertThat(realiser.upkeep(Set.of("uid-mps"))).containsExactly(Map.entry("gpu_mps_daemon_restarted", 1));
    List<Long> now = GpuRealiserTest.daemons(pipe);
    assertThat(now).hasSize(1).doesNotContain(first);
    assertThat(Files.readAllLines(pipe.resolveSibling("log").resolve("control.log")))
        .as("started again in its directories with the claim's defaults").containsExactly(
            "started for " + GPU, "set_default_active_thread_percentage 30",
            "started for " + GPU, "set_default_active_thread_percentage 30");
    assertThat(realiser.upkeep(Set.of("uid-mps"))).as("exactly once").isEmpty();
    assertThat(GpuRealiserTest.daemons(pipe)).isEqualTo(now);
    assertThat(realiser.unrealise("uid-mps", gpu.name(), r)).isTrue();
  }

  @Test
  void aDaemonWithoutALiveHolderIsStoppedButAPrepareOnItsWayIsNot() throws Exception {
    realiser.realise("uid-gone", gpu, List.of(MPS));
    Path daemonDir = state.resolve("mps/" + GPU);
    Path pipe = daemonDir.resolve("pipe");
    long pid = GpuRealiserTest.daemons(pipe).get(0);
    assertThat(realiser.upkeep(Set.of())).as("a holder written moments ago may be a Prepare not yet committed")
        .isEmpty();
    assertThat(GpuRealiserTest.daemons(pipe)).containsExactly(pid);

    Files.setLastModifiedTime(daemonDir.resolve("holders/uid-gone"),
        FileTime.from(Instant.now().minus(GpuSharing.HOLDER_GRACE).minus(Duration.ofMinutes(1))));
    assertThat(realiser.upkeep(Set.of("uid-other"))).containsExactly(Map.entry("gpu_mps_daemon_stopped", 1));
    assertThat(daemonDir).doesNotExist();
    ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
    assertThat(GpuRealiserTest.daemons(pipe)).isEmpty();
  }

  @Test
  void aDirectoryWithoutItsStartParametersIsNotStartedBlindly() throws Exception {
    realiser.realise("uid-mps", gpu, List.of(MPS));
    Path daemonDir = state.resolve("mps/" + GPU);
    long pid = GpuRealiserTest.daemons(daemonDir.resolve("pipe")).get(0);
    Files.delete(daemonDir.resolve(GpuSharing.PARAMS_FILE));
    ProcessHandle daemon = ProcessHandle.of(pid).orElseThrow();
    daemon.destroyForcibly();
    daemon.onExit().get(60, TimeUnit.SECONDS);
    assertThat(realiser.upkeep(Set.of("uid-mps"))).containsExactly(Map.entry("gpu_mps_daemon_restart_failed", 1));
    assertThat(GpuRealiserTest.daemons(daemonDir.resolve("pipe"))).isEmpty();
    assertThat(daemonDir.resolve("holders/uid-mps")).as("the holder stays for the next start").exists();
  }
}
