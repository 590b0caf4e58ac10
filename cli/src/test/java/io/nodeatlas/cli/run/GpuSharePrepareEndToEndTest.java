package io.nodeatlas.cli.run;

import static io.nodeatlas.agent.testing.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.run.Agent;
import io.nodeatlas.agent.run.AgentSettings;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, several claims on one GPU end to end: the real {@code gpu} source over the gcc-built fake NVML (an
 * A100 80GB with MIG off) with {@code --gpu-multiple-allocations}, the agent with its checkpoint, the kubelet's
 * real gRPC Prepare and Unprepare over the unix socket, and allocated claims as the scheduler writes them for
 * consumable capacity (shareID, consumedCapacity) in the API server (CRUD mock).
 */
@EnableKubernetesMockClient(crud = true)
class GpuSharePrepareEndToEndTest {

  static final Path FAKE_NVML = DeviceHealthEndToEndTest.FAKE_NVML;
  static final String GPU = "GPU-31515c3d-1414-7c2c-004a-f86a898946ac";
  static final String NODE = "node-share";
  static final String TIME_SLICED = "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\",\"kind\":\"GpuConfig\","
      + "\"sharing\":{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Default\"}}}";
  static final String MPS = "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\",\"kind\":\"GpuConfig\","
      + "\"sharing\":{\"strategy\":\"MPS\"}}";
  static final String MPS_LIMITED = "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\",\"kind\":\"GpuConfig\","
      + "\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":30,"
      + "\"defaultPinnedDeviceMemoryLimit\":\"8Gi\"}}}";

  interface LibC extends Library {
    int setenv(String name, String value, int overwrite);
  }

  KubernetesClient client;

  @TempDir Path tmp;
  HostContext ctx;
  List<DiscoverySource> sources;
  AgentSettings settings;
  final Map<String, String> names = new HashMap<>();

  @BeforeEach
  void setUp() throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(FAKE_NVML), () -> FAKE_NVML + " is not built (discovery-gpu test-compile)");
    Path host = tmp.resolve("host");
    FixtureTree.at(host).file("proc/devices", "Character devices:\n195 nvidia-frontend\n510 nvidia-uvm\n")
        .file("dev/nvidia0", "").file("dev/nvidiactl", "").dir("sys");
    Path config = Files.writeString(tmp.resolve("fake-nvml.conf"), String.join("\n", "driver.version=550.54.15",
        "cuda.driver.version=12040", "device.count=1", "device.0.name=NVIDIA A100-SXM4-80GB", "device.0.uuid=" + GPU,
        "device.0.minor=0", "device.0.pci.busid=00000000:68:00.0", "device.0.memory.total=85899345920",
        "device.0.mig.mode=0", ""));
    assertThat(Native.load("c", LibC.class).setenv("FAKE_NVML_CONFIG", config.toString(), 1)).isZero();
    sources = DiscoverySources.load(getClass().getClassLoader()).select("gpu");
    settings = new AgentSettings("nodeatlas.io", NODE, tmp.resolve("kubelet"), tmp.resolve("cdi"),
        tmp.resolve("state"), "127.0.0.1", 0, -1, Duration.ofMinutes(10), Duration.ofSeconds(2));
    Path tools = Files.createDirectories(tmp.resolve("tools"));
    Path control = Files.copy(MigPrepareEndToEndTest.TOOLS.resolve("fake-nvidia-cuda-mps-control"),
        tools.resolve("fake-nvidia-cuda-mps-control"), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    ctx = new HostContext(HostFs.of(host), new SourceOptions(Map.of("gpu.nvmlLibrary", FAKE_NVML.toString(),
        "gpu.multipleAllocations", "true", "gpu.mpsControl", control.toString(),
        // Never a tmpfs on the host: tests may run as root.
        "gpu.mpsShmSize", "0")), Clock.systemUTC())
        .withFamilyStateDir(AgentSettings.familyStateDir(settings.stateDir()));
    ApiObjects.node(client, NODE);
  }

  /** A running agent and the kubelet's end of its socket. */
  final class Running implements AutoCloseable {
    final Agent agent;
    final Thread loop;
    final FakeKubelet kubelet;

    Running() throws Exception {
      agent = new Agent(settings, () -> NodeDiscovery.run(sources, ctx), client, n -> {}, Optional.empty(),
          new AgentMetrics("test"), Clock.systemUTC())
          .options(o -> o.withDeviceRealisers(dir -> Map.of("gpu", sources.get(0).deviceRealiser(ctx, dir).orElseThrow())));
      agent.start();
      loop = new Thread(agent::run, "agent-loop");
      loop.start();
      KubeletPaths paths = new KubeletPaths(settings.kubeletRoot(), "nodeatlas.io");
      kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket());
      await(() -> !slicedGpus().isEmpty());
    }

    String prepare(String uid) {
      var r = kubelet.prepare(FakeKubelet.claim("default", names.get(uid), uid)).getClaimsOrThrow(uid);
      return r.getError();
    }

    String unprepare(String uid) {
      return kubelet.unprepare(FakeKubelet.claim("default", names.get(uid), uid)).getClaimsOrThrow(uid).getError();
    }

    @Override
    public void close() throws Exception {
      agent.requestStop();
      loop.join(10_000);
      agent.close();
      kubelet.close();
    }
  }

  private List<io.fabric8.kubernetes.api.model.resource.v1.Device> slicedGpus() {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .flatMap(s -> s.getSpec().getDevices() == null ? java.util.stream.Stream.empty() : s.getSpec().getDevices().stream())
        .filter(d -> d.getName().equals("gpu-0")).toList();
  }

  /** A claim the scheduler gave {@code memory} of gpu-0 (a share), with {@code parameters} as its GpuConfig (or none). */
  private String claim(String name, String memory, String parameters) throws Exception {
    var devices = new ResourceClaimBuilder()
        .withNewMetadata().withNamespace("default").withName(name).endMetadata()
        .withNewSpec().endSpec()
        .withNewStatus().withNewAllocation().withNewDevices()
        .withResults(ApiObjects.shareResult("gpu", "nodeatlas.io", NODE, "gpu-0", java.util.UUID.randomUUID().toString(),
            Map.of("nodeatlas.io/memory", memory)));
    if (parameters != null) {
      Object params = new com.fasterxml.jackson.databind.ObjectMapper().readValue(parameters, Object.class);
      devices.addNewConfig().withSource("FromClaim").withRequests("gpu")
          .withNewOpaque().withDriver("nodeatlas.io").withParameters(params).endOpaque().endConfig();
    }
    ResourceClaim claim = devices.endDevices().endAllocation().endStatus().build();
    String uid = client.resources(ResourceClaim.class).inNamespace("default").resource(claim).create().getMetadata().getUid();
    names.put(uid, name);
    return uid;
  }

  private String spec(String uid) throws Exception {
    try (var files = Files.list(settings.cdiRoot())) {
      return files.filter(f -> f.getFileName().toString().contains("-claim_" + uid)).map(f -> {
        try {
          return Files.readString(f);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }).findFirst().orElse("");
    }
  }

  private String checkpoint() throws Exception {
    return new String(io.nodeatlas.agent.claims.Checkpoint.document(settings.checkpointFile()), StandardCharsets.UTF_8);
  }

  @Test
  void twoTimeSlicedClaimsShareTheGpuAnotherStrategyIsRefusedAndTheShareSurvivesARestartUntilUnprepare() throws Exception {
    String a = claim("a", "40Gi", TIME_SLICED);
    String b = claim("b", "40Gi", TIME_SLICED);
    String mps = claim("mps", "20Gi", MPS);
    String plain = claim("plain", "20Gi", null);
    try (Running r = new Running()) {
      // Published for sharing: a claim that names no memory would take all 80Gi.
      var gpu = slicedGpus().get(0);
      assertThat(gpu.getAllowMultipleAllocations()).isTrue();
      assertThat(gpu.getCapacity().get("nodeatlas.io/memory").getRequestPolicy().getDefault().getAmount()).isEqualTo("85899345920");

      assertThat(r.prepare(a)).isEmpty();
      // A claim asking for MPS, or for no sharing, on the GPU claim a time-slices: refused, naming a and how.
      assertThat(r.prepare(mps)).contains("request gpu on device gpu-0", "shared by claim default/a (uid " + a + ")",
          "sharing.strategy TimeSlicing", "asks for sharing.strategy MPS");
      assertThat(r.prepare(plain)).contains("shared by claim default/a (uid " + a + ")", "asks for sharing.strategy Exclusive");
      assertThat(r.prepare(b)).isEmpty();
      assertThat(spec(a)).contains("NODEATLAS_GPU_SHARING=TimeSlicing", "/dev/nvidia0");
      assertThat(spec(b)).contains("NODEATLAS_GPU_SHARING=TimeSlicing", "NODEATLAS_GPU_TIMESLICE=Default");
      assertThat(spec(mps)).isEmpty();
      assertThat(checkpoint()).contains("gpu.nodeatlas.io/gpu-share").doesNotContain(mps, plain);
      assertThat(r.unprepare(b)).isEmpty();
    }
    // Restarted: the checkpoint still says how claim a holds the GPU.
    try (Running r = new Running()) {
      assertThat(r.prepare(a)).isEmpty();
      assertThat(r.prepare(plain)).contains("shared by claim default/a (uid " + a + ")", "TimeSlicing");
      // Released at Unprepare: the GPU is free for a claim that wants it alone.
      assertThat(r.unprepare(a)).isEmpty();
      assertThat(r.prepare(plain)).isEmpty();
      assertThat(r.prepare(b)).contains("held by claim default/plain (uid " + plain + ") alone");
      assertThat(r.unprepare(plain)).isEmpty();
    }
  }

  @Test
  void twoMpsClaimsShareOneDaemonWithTheirOwnLimitsUntilTheLastUnprepareAndARestartKeepsOne() throws Exception {
    String a = claim("a", "40Gi", MPS);
    String b = claim("b", "20Gi", MPS_LIMITED);
    String sliced = claim("sliced", "10Gi", TIME_SLICED);
    Path pipe = settings.stateDir().resolve("families/mps/" + GPU + "/pipe");
    long first;
    try (Running r = new Running()) {
      assertThat(r.prepare(a)).isEmpty();
      assertThat(r.prepare(b)).isEmpty();
      assertThat(MpsRestartProcessTest.daemons(pipe)).as("one MPS control daemon for the GPU").hasSize(1);
      first = MpsRestartProcessTest.daemonPid(pipe);
      // Both claims' containers reach the GPU's one daemon, each with its own limits (its config, else its share).
      assertThat(spec(a)).contains("NODEATLAS_GPU_SHARING=MPS", "CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps", pipe.toString(),
          "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=40960M").doesNotContain("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
      assertThat(spec(b)).contains("CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps", pipe.toString(),
          "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30");
      assertThat(r.prepare(sliced)).contains("shared by claim default/a (uid " + a + ") with sharing.strategy MPS");
    }
    // Restarted while the daemon runs: it is kept, none started beside it.
    try (Running r = new Running()) {
      assertThat(r.prepare(a)).isEmpty();
      assertThat(MpsRestartProcessTest.daemons(pipe)).containsExactly(first);
    }
    // Restarted after the daemon died (a reboot, the agent's cgroup): started again, once.
    ProcessHandle daemon = ProcessHandle.of(first).orElseThrow();
    daemon.destroyForcibly();
    daemon.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
    try (Running r = new Running()) {
      assertThat(MpsRestartProcessTest.daemons(pipe)).hasSize(1).doesNotContain(first);
      long again = MpsRestartProcessTest.daemonPid(pipe);
      // The first Unprepare leaves the daemon to the other claim; the last stops it and removes its directories.
      assertThat(r.unprepare(a)).isEmpty();
      assertThat(MpsRestartProcessTest.daemons(pipe)).containsExactly(again);
      assertThat(r.unprepare(b)).isEmpty();
      assertThat(pipe.getParent()).doesNotExist();
      await(() -> MpsRestartProcessTest.daemons(pipe).isEmpty());
      assertThat(r.prepare(sliced)).isEmpty();
      assertThat(r.unprepare(sliced)).isEmpty();
    }
  }
}
