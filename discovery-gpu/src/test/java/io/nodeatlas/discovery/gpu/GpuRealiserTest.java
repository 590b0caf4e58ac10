package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.gpu.nvml.JnaNvmlLibrary;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.ClaimDevice;
import io.nodeatlas.discovery.share.DevicePlacer;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import java.math.BigDecimal;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claim's GPU sharing configuration at Prepare against the fake H200 and stand-ins for
 * {@code nvidia-smi} ({@link FakeNvidiaSmi}) and {@code nvidia-cuda-mps-control} (src/test/tools): the time slice set and reset,
 * the MPS control daemon started with the claim's defaults and stopped, what the container gets, and the
 * refusals.
 */
class GpuRealiserTest {

  static final String GPU = "GPU-0a7d4e52-93c1-4f0e-b6a2-1c9d8e7f6a50";
  static final String HEAD = "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\",\"kind\":\"GpuConfig\"";

  @TempDir Path host;
  @TempDir Path dir;
  Path tools;
  Path state;
  HostContext ctx;
  DeviceRealiser realiser;

  @BeforeEach
  void setUp() throws Exception {
    StringBuilder minors = new StringBuilder();
    for (int gi = 0; gi < 15; gi++) {
      minors.append("gpu0/gi").append(gi).append("/access ").append(100 + gi * 10).append('\n');
      minors.append("gpu0/gi").append(gi).append("/ci0/access ").append(101 + gi * 10).append('\n');
    }
    FixtureTree.at(host).file("dev/nvidia0", "").file("dev/nvidiactl", "")
        .file("proc/devices", "Character devices:\n195 nvidia-frontend\n235 nvidia-caps\n")
        .file("proc/driver/nvidia-caps/mig-minors", minors.toString());
    FakeNvml.h200().set("device.0.mig.mode", "1").set("mig.state", dir.resolve("mig-state").toString()).install(dir);
    tools = Files.createDirectories(dir.resolve("tools"));
    FakeNvidiaSmi.write(tools.resolve("fake-nvidia-smi"));
    Files.copy(Path.of("src", "test", "tools", "fake-nvidia-cuda-mps-control"), tools.resolve("fake-nvidia-cuda-mps-control"),
        StandardCopyOption.COPY_ATTRIBUTES);
    Map<String, String> options = new HashMap<>();
    options.put("gpu.nvmlLibrary", FakeNvml.library().toString());
    options.put("gpu.migPartitions", "true");
    options.put("gpu.mpsShmSize", "0"); // never a mount on the host: tests may run as root
    options.put("gpu.nvidiaSmi", tools.resolve("fake-nvidia-smi").toString());
    options.put("gpu.mpsControl", tools.resolve("fake-nvidia-cuda-mps-control").toString());
    ctx = new HostContext(HostFs.of(host), new SourceOptions(options), Clock.systemUTC());
    state = dir.resolve("state");
    realiser = new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow();
  }

  @AfterEach
  void everyInitWasShutDown() {
    assertThat(FakeNvml.initCount()).as("nvmlInit/nvmlShutdown pairs").isZero();
  }

  private Device device(String name) throws Exception {
    return new GpuDiscoverySource().discover(ctx).devices().stream().filter(d -> d.name().equals(name)).findFirst()
        .orElseThrow();
  }

  private static int gpuInstances() throws Exception {
    try (NvmlSession nvml = JnaNvmlLibrary.load(FakeNvml.library()).init()) {
      int n = 0;
      for (int profile : List.of(19, 20, 15, 14, 9, 5, 0)) {
        n += nvml.gpuInstances(nvml.deviceByIndex(0), profile, 16).size();
      }
      return n;
    }
  }

  @Test
  void anExclusiveWholeGpuNeedsNothing() throws Exception {
    Device gpu = device("gpu-0");
    assertThat(realiser.realises(gpu)).isTrue();
    assertThat(realiser.realise("uid-1", gpu, List.of())).isEqualTo(Placement.NONE);
    assertThat(realiser.realise("uid-1", gpu, List.of(HEAD + ",\"sharing\":{\"strategy\":\"Exclusive\"}}")))
        .isEqualTo(Placement.NONE);
  }

  @Test
  void timeSlicingSetsTheSliceForTheClaimAndResetsIt() throws Exception {
    Device gpu = device("gpu-0");
    Placement r = realiser.realise("uid-ts", gpu,
        List.of(HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Medium\"}}}"));
    assertThat(Files.readString(tools.resolve("timeslice-" + GPU)).strip()).isEqualTo("2");
    assertThat(realiser.containerEdits(gpu, r).containerEdits().env())
        .contains("NODEATLAS_GPU_SHARING=TimeSlicing", "NODEATLAS_GPU_TIMESLICE=Medium");
    assertThat(realiser.unrealise("uid-ts", gpu.name(), r)).isTrue();
    assertThat(Files.readString(tools.resolve("timeslice-" + GPU)).strip()).isEqualTo("0");
  }

  @Test
  void mpsStartsOneControlDaemonWithTheClaimsDefaultsAndStopsIt() throws Exception {
    Device gpu = device("gpu-0");
    Placement r = realiser.realise("uid-mps", gpu, List.of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":"
        + "{\"defaultActiveThreadPercentage\":40,\"defaultPinnedDeviceMemoryLimit\":\"8Gi\"}}}"));
    Path pipe = state.resolve("mps/" + GPU + "/pipe");
    Path log = state.resolve("mps/" + GPU + "/log/control.log");
    assertThat(Files.readString(pipe.resolve("control")).strip()).isEqualTo(GPU);
    assertThat(Files.readAllLines(log)).containsExactly("started for " + GPU, "set_default_active_thread_percentage 40",
        "set_default_device_pinned_mem_limit 0 8192M");
    ContainerEdits edits = realiser.containerEdits(gpu, r).containerEdits();
    assertThat(edits.env()).contains("NODEATLAS_GPU_SHARING=MPS", "CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps",
        "CUDA_MPS_LOG_DIRECTORY=/tmp/nvidia-mps-log", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=40",
        "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M");
    assertThat(edits.mounts()).extracting(ContainerEdits.Mount::hostPath, ContainerEdits.Mount::containerPath)
        .contains(org.assertj.core.groups.Tuple.tuple(pipe.toString(), "/tmp/nvidia-mps"),
            org.assertj.core.groups.Tuple.tuple(state.resolve("mps/" + GPU + "/log").toString(), "/tmp/nvidia-mps-log"));
    assertThat(edits.deviceNodes()).extracting(ContainerEdits.DeviceNode::path).contains("/dev/nvidia0");
    assertThat(realiser.unrealise("uid-mps", gpu.name(), r)).isTrue();
    assertThat(state.resolve("mps/" + GPU)).doesNotExist();
  }

  @Test
  void mpsOnAMigPartitionCreatesTheInstanceAndTheDaemonAndUndoesBoth() throws Exception {
    Device part = device("gpu-0-mig-3g-71gb-4");
    Placement r = realiser.realise("uid-mig", part, List.of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}"));
    assertThat(gpuInstances()).isEqualTo(1);
    Path daemon = Path.of(pipeOf(r)).getParent();
    assertThat(daemon.getParent()).isEqualTo(state.resolve("mps"));
    assertThat(daemon.getFileName().toString()).as("the MIG device's own daemon (the fake gives no MIG UUID)")
        .startsWith(GPU + "-gi");
    assertThat(daemon.resolve("pipe/control")).exists();
    ContainerEdits edits = realiser.containerEdits(part, r).containerEdits();
    assertThat(edits.deviceNodes()).extracting(ContainerEdits.DeviceNode::path)
        .contains("/dev/nvidia-caps/nvidia-cap110", "/dev/nvidia-caps/nvidia-cap111");
    assertThat(edits.env()).contains("CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps");
    assertThat(realiser.unrealise("uid-mig", part.name(), r)).isTrue();
    assertThat(gpuInstances()).isZero();
    assertThat(daemon).doesNotExist();
  }

  @Test
  void refusalsLeaveNothingBehind() throws Exception {
    Device part = device("gpu-0-mig-1g-18gb-0");
    assertThatThrownBy(() -> realiser.realise("uid-x", part,
        List.of(HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\"}}")))
        .hasMessageContaining("TimeSlicing applies to a whole GPU");
    assertThatThrownBy(() -> realiser.realise("uid-x", device("gpu-0"), List.of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\","
        + "\"mpsConfig\":{\"defaultActiveThreadPercentage\":0}}}")))
        .hasMessageContaining("GPU configuration (gpu.nodeatlas.io/v1alpha1 GpuConfig)").hasMessageContaining("from 1 to 100");
    // The MPS daemon of this claim cannot start: the MIG instance made for it goes again, and so do its directories.
    Path broken = tools.resolve("broken-mps-control");
    Files.writeString(broken, "#!/bin/sh\necho 'cannot start the daemon' >&2\nexit 1\n");
    broken.toFile().setExecutable(true);
    Map<String, String> options = new HashMap<>();
    options.put("gpu.nvmlLibrary", FakeNvml.library().toString());
    options.put("gpu.migPartitions", "true");
    options.put("gpu.mpsShmSize", "0"); // never a mount on the host: tests may run as root
    options.put("gpu.mpsControl", broken.toString());
    DeviceRealiser failing = new GpuDiscoverySource().deviceRealiser(new HostContext(HostFs.of(host),
        new SourceOptions(options), Clock.systemUTC()), state).orElseThrow();
    assertThatThrownBy(() -> failing.realise("uid-x", part, List.of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}")))
        .hasMessageContaining("GPU sharing MPS not set up").hasMessageContaining("cannot start the daemon");
    assertThat(gpuInstances()).isZero();
    assertThat(state.resolve("mps")).isEmptyDirectory();
  }

  @Test
  void theDaemonOfAClaimThatIsGoneIsStoppedAtStart() throws Exception {
    Device gpu = device("gpu-0");
    Placement kept = realiser.realise("uid-live", device("gpu-0-mig-1g-18gb-0"),
        List.of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}"));
    realiser.realise("uid-gone", gpu, List.of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}"));
    Path gone = state.resolve("mps/" + GPU + "/pipe");
    assertThat(daemons(gone)).hasSize(1);
    DeviceRealiser restarted = new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow();
    assertThat(restarted.reconcile(List.of(new DeviceRealiser.Realised("uid-live", "gpu-0-mig-1g-18gb-0", kept)),
        Set.of("uid-live"))).isEmpty();
    assertThat(state.resolve("mps/" + GPU)).doesNotExist();
    awaitNoDaemon(gone);
    assertThat(Path.of(pipeOf(kept)).resolve("control")).exists();
    assertThat(realiser.unrealise("uid-live", "gpu-0-mig-1g-18gb-0", kept)).isTrue();
  }

  @Test
  void aClaimWithTwoDevicesConfiguredForMpsGetsADaemonForEach() throws Exception {
    String mps = HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}";
    Placement first = realiser.realise("uid-two", device("gpu-0-mig-1g-18gb-0"), List.of(mps));
    Placement second = realiser.realise("uid-two", device("gpu-0-mig-1g-18gb-1"), List.of(mps));
    assertThat(pipeOf(first)).isNotEqualTo(pipeOf(second));
    assertThat(daemons(Path.of(pipeOf(first)))).hasSize(1);
    assertThat(daemons(Path.of(pipeOf(second)))).hasSize(1);
    assertThat(realiser.unrealise("uid-two", "gpu-0-mig-1g-18gb-0", first)).isTrue();
    assertThat(Path.of(pipeOf(second)).resolve("control")).as("the other device's daemon stays").exists();
    assertThat(realiser.unrealise("uid-two", "gpu-0-mig-1g-18gb-1", second)).isTrue();
    assertThat(gpuInstances()).isZero();
    awaitNoDaemon(Path.of(pipeOf(first)));
    awaitNoDaemon(Path.of(pipeOf(second)));
  }

  /** gpu-0 published for several claims, and the share of claim {@code claim} placed among {@code others}. */
  private Share placedShare(String claim, long gib, List<Share> others, String config) throws Exception {
    Device gpu = SharedGpus.shared(device("gpu-0")).orElseThrow();
    TreeMap<String, BigDecimal> consumed = new TreeMap<>();
    consumed.put(GpuDevices.MEMORY, BigDecimal.valueOf(gib << 30));
    Share s = new Share(claim, gpu.name(), "s-" + claim, consumed, Placement.NONE);
    DevicePlacer.Decision d = new GpuSharePlacer().forDevice(gpu, null).orElseThrow().place(s, others, List.of(config));
    assertThat(d.refusal()).isNull();
    s = s.placed(d.placement());
    return s.placed(realiser.realiseShare(s, gpu));
  }

  private static List<String> edits(Share s) {
    Device cdi = Device.builder("gpu-0-" + s.shareId(), "gpu").attribute(Device.TYPE, "gpu").build();
    ContainerEdits e = new GpuSharePlacer().containerEdits(List.of(ClaimDevice.share(cdi, s))).get(0).containerEdits();
    List<String> out = new java.util.ArrayList<>(e.env());
    e.mounts().forEach(m -> out.add(m.hostPath() + ":" + m.containerPath()));
    return out;
  }

  @Test
  void mpsSharesOfOneGpuUseOneDaemonUntilTheLastIsUndone() throws Exception {
    Share a = placedShare("uid-a", 40, List.of(), HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}");
    Share b = placedShare("uid-b", 20, List.of(a), HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":"
        + "{\"defaultActiveThreadPercentage\":30,\"defaultPinnedDeviceMemoryLimit\":\"8Gi\"}}}");
    Path pipe = state.resolve("mps/" + GPU + "/pipe");
    assertThat(daemons(pipe)).as("one daemon for the GPU").hasSize(1);
    assertThat(Files.readAllLines(state.resolve("mps/" + GPU + "/log/control.log")))
        .as("started once, without defaults: each client has its own limits").containsExactly("started for " + GPU);
    // Each claim's containers: the GPU's pipe directory, and their own limits (the claim's, else its share's memory).
    assertThat(edits(a)).contains("NODEATLAS_GPU_SHARING=MPS", "CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps",
        "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=40960M", pipe + ":/tmp/nvidia-mps")
        .noneMatch(e -> e.startsWith("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE="));
    assertThat(edits(b)).contains("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30",
        pipe + ":/tmp/nvidia-mps");

    // A restart keeps exactly one daemon: left alone while it runs, started again when gone.
    long pid = daemons(pipe).get(0);
    DeviceRealiser restarted = new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow();
    assertThat(restarted.reconcile(List.of(), List.of(a, b), Set.of("uid-a", "uid-b"))).isEmpty();
    assertThat(daemons(pipe)).containsExactly(pid);
    ProcessHandle daemon = ProcessHandle.of(pid).orElseThrow();
    daemon.destroyForcibly();
    daemon.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
    restarted.reconcile(List.of(), List.of(a, b), Set.of("uid-a", "uid-b"));
    assertThat(daemons(pipe)).hasSize(1).doesNotContain(pid);

    // The first Unprepare keeps the daemon for the other claim; the last stops it and removes its directories.
    assertThat(realiser.unrealiseShare(a)).isTrue();
    assertThat(daemons(pipe)).hasSize(1);
    assertThat(realiser.unrealiseShare(b)).isTrue();
    assertThat(state.resolve("mps/" + GPU)).doesNotExist();
    awaitNoDaemon(pipe);
  }

  @Test
  void aStartWithoutALiveShareStopsTheGpusDaemon() throws Exception {
    Share a = placedShare("uid-a", 40, List.of(), HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}");
    Share b = placedShare("uid-b", 40, List.of(a), HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}");
    Path pipe = state.resolve("mps/" + GPU + "/pipe");
    DeviceRealiser restarted = new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow();
    // Claim b went while the agent was down: the daemon stays for a, and b's Unprepare is not needed to stop it.
    restarted.reconcile(List.of(), List.of(a), Set.of("uid-a"));
    assertThat(daemons(pipe)).hasSize(1);
    assertThat(restarted.unrealiseShare(a)).isTrue();
    assertThat(state.resolve("mps/" + GPU)).as("a was the last holder").doesNotExist();
    awaitNoDaemon(pipe);
    assertThat(realiser.unrealiseShare(b)).as("undoing what is gone succeeds").isTrue();
  }

  @Test
  void aTimeSliceAmongSharesIsSetByTheFirstAndResetAfterTheLast() throws Exception {
    String longSlice = HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Long\"}}}";
    Share a = placedShare("uid-a", 40, List.of(), longSlice);
    Share b = placedShare("uid-b", 40, List.of(a), longSlice);
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).as("set once, by the first").containsExactly("3");
    assertThat(edits(b)).contains("NODEATLAS_GPU_SHARING=TimeSlicing", "NODEATLAS_GPU_TIMESLICE=Long");
    Device gpu = SharedGpus.shared(device("gpu-0")).orElseThrow();
    Share c = new Share("uid-c", gpu.name(), "s-c", new TreeMap<>(), Placement.NONE);
    assertThat(new GpuSharePlacer().forDevice(gpu, null).orElseThrow().place(c, List.of(a, b), List.of(longSlice
        .replace("Long", "Short"))).refusal()).contains("interval Long", "asks for sharing.strategy TimeSlicing (interval Short)");
    assertThat(realiser.unrealiseShare(a)).isTrue();
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).containsExactly("3");
    assertThat(realiser.unrealiseShare(b)).isTrue();
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).as("Default again after the last").containsExactly("3", "0");

    // A start after a crash that left a holder no live share names resets the slice.
    Share d = placedShare("uid-d", 40, List.of(), longSlice);
    new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow().reconcile(List.of(), List.of(), Set.of());
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).as("a crash left uid-d's slice: reset at start")
        .containsExactly("3", "0", "3", "0");
    assertThat(realiser.unrealiseShare(d)).as("undoing what is gone succeeds").isTrue();
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).hasSize(4);
  }

  @Test
  void theTimeSliceOfLiveClaimsAndSharesIsSetAgainAtStart() throws Exception {
    String longSlice = HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Long\"}}}";
    Placement own = realiser.realise("uid-own", device("gpu-0"), List.of(longSlice));
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).containsExactly("3");
    // A reboot: the GPU is back at Default; the restarted agent sets the live claim's interval again.
    new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow()
        .reconcile(List.of(new DeviceRealiser.Realised("uid-own", "gpu-0", own)), List.of(), Set.of("uid-own"));
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).as("set again at start").containsExactly("3", "3");
    assertThat(realiser.unrealise("uid-own", "gpu-0", own)).isTrue();
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).containsExactly("3", "3", "0");

    Share a = placedShare("uid-a", 40, List.of(), longSlice);
    DeviceRealiser restarted = new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow();
    restarted.reconcile(List.of(), List.of(a), Set.of("uid-a"));
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).as("a live share's slice is set again, not reset")
        .containsExactly("3", "3", "0", "3", "3");
    assertThat(restarted.unrealiseShare(a)).isTrue();
    assertThat(Files.readAllLines(tools.resolve("calls-" + GPU))).as("Default after the last")
        .containsExactly("3", "3", "0", "3", "3", "0");
  }

  private static String pipeOf(Placement r) {
    return GpuRealiser.parse(r).orElseThrow().sharing().pipeDir();
  }

  /** Waits for each daemon of {@code pipe} to exit: the stand-in ends within a second of losing its control file. */
  private static void awaitNoDaemon(Path pipe) throws Exception {
    for (long pid : daemons(pipe)) {
      java.util.Optional<ProcessHandle> h = ProcessHandle.of(pid);
      if (h.isPresent()) {
        h.get().onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
      }
    }
    assertThat(daemons(pipe)).isEmpty();
  }

  @Test
  void theDaemonOfALiveClaimIsStartedAgainAtStartAndNeverTwice() throws Exception {
    Device gpu = device("gpu-0");
    Placement r = realiser.realise("uid-live", gpu, List.of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":"
        + "{\"defaultActiveThreadPercentage\":40,\"defaultPinnedDeviceMemoryLimit\":\"1Gi\"}}}"));
    Path pipe = state.resolve("mps/" + GPU + "/pipe");
    Path log = state.resolve("mps/" + GPU + "/log/control.log");
    long first = daemonPid(pipe);
    assertThat(daemons(pipe)).containsExactly(first);

    // The agent restarts while the daemon runs: it is left alone.
    List<DeviceRealiser.Realised> live = List.of(new DeviceRealiser.Realised("uid-live", gpu.name(), r));
    assertThat(new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow().reconcile(live, Set.of("uid-live")))
        .isEmpty();
    assertThat(daemons(pipe)).containsExactly(first);

    // A reboot (or the agent's cgroup killed with it) took the daemon; its PID file and control file stay.
    ProcessHandle daemon = ProcessHandle.of(first).orElseThrow();
    daemon.destroyForcibly();
    daemon.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(daemons(pipe)).isEmpty();
    assertThat(new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow().reconcile(live, Set.of("uid-live")))
        .isEmpty();
    long second = daemonPid(pipe);
    assertThat(second).isNotEqualTo(first);
    assertThat(daemons(pipe)).as("exactly one daemon, in the recorded directories").containsExactly(second);
    assertThat(Files.readString(pipe.resolve("control")).strip()).isEqualTo(GPU);
    assertThat(Files.readAllLines(log)).as("started again with the claim's defaults").containsExactly(
        "started for " + GPU, "set_default_active_thread_percentage 40", "set_default_device_pinned_mem_limit 0 1024M",
        "started for " + GPU, "set_default_active_thread_percentage 40", "set_default_device_pinned_mem_limit 0 1024M");

    assertThat(realiser.unrealise("uid-live", gpu.name(), r)).isTrue();
    assertThat(state.resolve("mps/" + GPU)).doesNotExist();
    awaitNoDaemon(pipe);
  }

  @Test
  void aRecordNamingAnotherDirectoryStartsNoDaemon() throws Exception {
    Device gpu = device("gpu-0");
    Placement r = realiser.realise("uid-live", gpu, List.of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}"));
    realiser.unrealise("uid-live", gpu.name(), r);
    Placement forged = new Placement(r.version(), r.value().replace(state.resolve("mps/" + GPU + "/pipe").toString(),
        dir.resolve("elsewhere").toString()));
    new GpuDiscoverySource().deviceRealiser(ctx, state).orElseThrow()
        .reconcile(List.of(new DeviceRealiser.Realised("uid-live", gpu.name(), forged)), Set.of("uid-live"));
    assertThat(dir.resolve("elsewhere")).doesNotExist();
    assertThat(state.resolve("mps/" + GPU)).doesNotExist();
  }

  /** The PID the daemon's PID file names. */
  private static long daemonPid(Path pipe) throws Exception {
    return Long.parseLong(Files.readString(pipe.resolve("nvidia-cuda-mps-control.pid")).strip());
  }

  /**
   * The live stand-in daemons serving {@code pipe} ({@code fake-nvidia-cuda-mps-control --daemon <pipe>}):
   * not the daemon's own fork for its {@code sleep}, which carries the same arguments until it execs.
   */
  static List<Long> daemons(Path pipe) {
    List<Long> serving = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
        .filter(h -> h.info().arguments().map(a -> List.of(a).contains("--daemon") && List.of(a).contains(pipe.toString()))
            .orElse(false))
        .map(ProcessHandle::pid).toList();
    return serving.stream().filter(pid -> ProcessHandle.of(pid).flatMap(ProcessHandle::parent)
        .map(parent -> !serving.contains(parent.pid())).orElse(true)).toList();
  }

  /** A realiser whose tools come from a driver root mounted at {@code driver} (the DaemonSet's /driver-root). */
  private DeviceRealiser fromDriverRoot(Path driver) {
    Map<String, String> options = new HashMap<>();
    options.put("gpu.nvmlLibrary", FakeNvml.library().toString());
    options.put("gpu.migPartitions", "true");
    options.put("gpu.mpsShmSize", "0"); // never a mount on the host: tests may run as root
    options.put("gpu.driverRoot", "/run/nvidia/driver");
    options.put("gpu.containerDriverRoot", driver.toString());
    return new GpuDiscoverySource().deviceRealiser(new HostContext(HostFs.of(host), new SourceOptions(options),
        Clock.systemUTC()), state).orElseThrow();
  }

  @Test
  void withADriverRootItsOwnToolsRunWithItsNvml() throws Exception {
    Path driver = dir.resolve("driver");
    Path bin = Files.createDirectories(driver.resolve("usr/bin"));
    Path lib = Files.createDirectories(driver.resolve("usr/lib/x86_64-linux-gnu"));
    Files.copy(tools.resolve("fake-nvidia-smi"), bin.resolve("nvidia-smi"), StandardCopyOption.COPY_ATTRIBUTES);
    Files.copy(tools.resolve("fake-nvidia-cuda-mps-control"), bin.resolve("nvidia-cuda-mps-control"),
        StandardCopyOption.COPY_ATTRIBUTES);
    Files.copy(FakeNvml.library(), lib.resolve("libnvidia-ml.so.1"));
    DeviceRealiser fromRoot = fromDriverRoot(driver);
    Device gpu = device("gpu-0");

    Placement ts = fromRoot.realise("uid-ts", gpu,
        List.of(HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Long\"}}}"));
    assertThat(Files.readString(bin.resolve("timeslice-" + GPU)).strip()).as("the driver root's nvidia-smi ran").isEqualTo("3");
    assertThat(Files.readString(bin.resolve("preload-" + GPU)).strip()).as("with the driver's NVML preloaded")
        .isEqualTo(lib.resolve("libnvidia-ml.so.1").toString());
    assertThat(tools.resolve("timeslice-" + GPU)).as("not the one the options name elsewhere").doesNotExist();
    assertThat(fromRoot.unrealise("uid-ts", gpu.name(), ts)).isTrue();

    Placement mps = fromRoot.realise("uid-mps", gpu, List.of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}"));
    Path pipe = state.resolve("mps/" + GPU + "/pipe");
    assertThat(daemons(pipe)).hasSize(1);
    assertThat(fromDriverRoot(driver).reconcile(List.of(new DeviceRealiser.Realised("uid-mps", gpu.name(), mps)),
        Set.of("uid-mps"))).isEmpty();
    assertThat(daemons(pipe)).as("the driver root's daemon is recognised as running").hasSize(1);
    assertThat(fromRoot.unrealise("uid-mps", gpu.name(), mps)).isTrue();
    assertThat(state.resolve("mps/" + GPU)).doesNotExist();
  }

  @Test
  void aToolLinkedOutOfTheDriverRootIsNeverRun() throws Exception {
    Path driver = dir.resolve("driver");
    Path bin = Files.createDirectories(driver.resolve("usr/bin"));
    Files.createSymbolicLink(bin.resolve("nvidia-smi"), tools.resolve("fake-nvidia-smi"));
    Device gpu = device("gpu-0");
    assertThatThrownBy(() -> fromDriverRoot(driver).realise("uid-ts", gpu,
        List.of(HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\"}}")))
        .hasMessageContaining("no executable nvidia-smi under the driver root /run/nvidia/driver")
        .hasMessageContaining(bin.resolve("nvidia-smi").toString()).hasMessageContaining("--nvidia-smi");
    assertThat(tools.resolve("timeslice-" + GPU)).doesNotExist();
  }
}
