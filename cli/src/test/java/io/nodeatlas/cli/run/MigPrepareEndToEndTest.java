package io.nodeatlas.cli.run;

import static io.nodeatlas.agent.testing.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.api.dra.v1.Claim;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.run.Agent;
import io.nodeatlas.agent.run.AgentSettings;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.gpu.nvml.JnaNvmlLibrary;
import io.nodeatlas.discovery.gpu.nvml.NvmlDevice;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, dynamic MIG end to end: the real {@code gpu} source over the gcc-built fake NVML (an H200 with
 * MIG mode on, its instances kept in a state file as the driver keeps them across processes), the agent
 * with its checkpoint, the kubelet's real gRPC Prepare and Unprepare over the unix socket, and the claims
 * in the API server (CRUD mock). What NVML holds is read back through our own binding.
 */
@EnableKubernetesMockClient(crud = true)
class MigPrepareEndToEndTest {

  static final Path FAKE_NVML = DeviceHealthEndToEndTest.FAKE_NVML;
  static final String GPU = "GPU-0a7d4e52-93c1-4f0e-b6a2-1c9d8e7f6a50";
  static final int P_1G = 19;
  static final int P_3G = 9;

  interface LibC extends Library {
    int setenv(String name, String value, int overwrite);
  }

  KubernetesClient client;

  @TempDir Path tmp;
  Path host;
  HostContext ctx;
  Path tools;
  static final Path TOOLS = Path.of("..", "discovery-gpu", "src", "test", "tools").toAbsolutePath().normalize();
  List<DiscoverySource> sources;
  AgentSettings settings;

  @BeforeEach
  void setUp() throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(FAKE_NVML), () -> FAKE_NVML + " is not built (discovery-gpu test-compile)");
    host = tmp.resolve("host");
    hostTree(host);
    String conf = fakeConfig(tmp.resolve("mig-state"));
    Path config = Files.writeString(tmp.resolve("fake-nvml.conf"), conf);
    assertThat(Native.load("c", LibC.class).setenv("FAKE_NVML_CONFIG", config.toString(), 1)).isZero();
    sources = DiscoverySources.load(getClass().getClassLoader()).select("gpu");
    tools = Files.createDirectories(tmp.resolve("tools"));
    Files.copy(TOOLS.resolve("fake-nvidia-cuda-mps-control"), tools.resolve("fake-nvidia-cuda-mps-control"),
        java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    settings = new AgentSettings("nodeatlas.io", "node-mig", tmp.resolve("kubelet"), tmp.resolve("cdi"),
        tmp.resolve("state"), "127.0.0.1", 0, -1, Duration.ofMinutes(10), Duration.ofSeconds(2));
    // As `nodeatlas run` discovers: the families' journals tell what they made for claims.
    ctx = new HostContext(HostFs.of(host), new SourceOptions(Map.of("gpu.nvmlLibrary", FAKE_NVML.toString(),
        "gpu.migPartitions", "true",
        "gpu.mpsControl", tools.resolve("fake-nvidia-cuda-mps-control").toString(),
        // Never a tmpfs on the host: tests may run as root.
        "gpu.mpsShmSize", "0")), Clock.systemUTC())
        .withFamilyStateDir(AgentSettings.familyStateDir(settings.stateDir()));
    ApiObjects.node(client, "node-mig");
  }

  /** /dev, /proc/devices and mig-minors of a host with the H200's GPU 0. */
  static void hostTree(Path host) {
    StringBuilder minors = new StringBuilder("config 1\nmonitor 2\n");
    int minor = 3;
    for (int gi = 0; gi < 15; gi++) {
      minors.append("gpu0/gi").append(gi).append("/access ").append(minor++).append('\n');
      for (int ci = 0; ci < 8; ci++) {
        minors.append("gpu0/gi").append(gi).append("/ci").append(ci).append("/access ").append(minor++).append('\n');
      }
    }
    FixtureTree.at(host)
        .file("proc/devices", "Character devices:\n195 nvidia-frontend\n235 nvidia-caps\n510 nvidia-uvm\n")
        .file("proc/driver/nvidia-caps/mig-minors", minors.toString())
        .file("dev/nvidia0", "").file("dev/nvidiactl", "").dir("sys");
  }

  /** The fake NVML's configuration: an H200 in MIG mode, its instances kept in {@code migState}. */
  static String fakeConfig(Path migState) {
    StringBuilder conf = new StringBuilder(String.join("\n", "driver.version=580.159.04", "cuda.driver.version=13000",
        "device.count=1", "device.0.name=NVIDIA H200", "device.0.uuid=" + GPU, "device.0.minor=0",
        "device.0.pci.busid=00000000:00:06.0", "device.0.memory.total=150754820096", "device.0.mig.mode=1",
        "mig.state=" + migState, ""));
    profile(conf, 0, P_1G, "1g.18gb", 1, 7, 16, 1, 0, 16384, "0:1,1:1,2:1,3:1,4:1,5:1,6:1");
    profile(conf, 1, 14, "2g.35gb", 2, 3, 32, 2, 0, 33280, "0:2,2:2,4:2");
    profile(conf, 2, P_3G, "3g.71gb", 3, 2, 60, 3, 0, 71424, "0:4,4:4");
    profile(conf, 4, 0, "7g.141gb", 7, 1, 132, 8, 1, 143360, "0:8");
    return conf.toString();
  }

  private static void profile(StringBuilder c, int index, int id, String name, int slices, int instances, int sm, int ce,
      int ofa, long mib, String placements) {
    String k = "device.0.mig.profile." + index + ".";
    c.append(k).append("id=").append(id).append('\n').append(k).append("name=MIG ").append(name).append('\n')
        .append(k).append("slices=").append(slices).append('\n').append(k).append("instances=").append(instances).append('\n')
        .append(k).append("sm=").append(sm).append('\n').append(k).append("ce=").append(ce).append('\n')
        .append(k).append("dec=").append(slices).append('\n').append(k).append("jpeg=").append(slices).append('\n')
        .append(k).append("ofa=").append(ofa).append('\n').append(k).append("memory_mib=").append(mib).append('\n')
        .append(k).append("placements=").append(placements).append('\n');
  }

  /** A running agent and the kubelet's end of its socket. */
  final class Running implements AutoCloseable {
    final Agent agent;
    final Thread loop;
    final FakeKubelet kubelet;

    Running(Function<DeviceRealiser, DeviceRealiser> wrap) throws Exception {
      agent = new Agent(settings, () -> NodeDiscovery.run(sources, ctx), client, n -> {}, Optional.empty(),
          new AgentMetrics("test"), Clock.systemUTC())
          .options(o -> o.withDeviceRealisers(
              dir -> Map.of("gpu", wrap.apply(sources.get(0).deviceRealiser(ctx, dir).orElseThrow()))));
      agent.start();
      loop = new Thread(agent::run, "agent-loop");
      loop.start();
      KubeletPaths paths = new KubeletPaths(settings.kubeletRoot(), "nodeatlas.io");
      kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket());
      await(() -> published().contains("gpu-0-mig-1g-18gb-1"));
    }

    NodePrepareResourceResponse prepare(String uid) {
      return kubelet.prepare(FakeKubelet.claim("default", names.get(uid), uid)).getClaimsOrThrow(uid);
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

  private List<String> published() {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .flatMap(s -> s.getSpec().getDevices() == null ? java.util.stream.Stream.empty() : s.getSpec().getDevices().stream())
        .map(d -> d.getName()).toList();
  }

  /** Claim names by UID. */
  final Map<String, String> names = new java.util.HashMap<>();

  private String claim(String name, String device) {
    String uid = ApiObjects.allocatedClaim(client, "default", name,
        List.of(ApiObjects.result("mig", "nodeatlas.io", "node-mig", device))).getMetadata().getUid();
    names.put(uid, name);
    return uid;
  }

  /** A claim for {@code device} with {@code parameters} as its opaque configuration for our driver. */
  private String configured(String name, String device, String parameters) throws Exception {
    Object params = new com.fasterxml.jackson.databind.ObjectMapper().readValue(parameters, Object.class);
    io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim claim =
        new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder()
            .withNewMetadata().withNamespace("default").withName(name).endMetadata()
            .withNewSpec().endSpec()
            .withNewStatus().withNewAllocation().withNewDevices()
            .withResults(ApiObjects.result("gpu", "nodeatlas.io", "node-mig", device))
            .addNewConfig().withSource("FromClaim").withRequests("gpu")
            .withNewOpaque().withDriver("nodeatlas.io").withParameters(params).endOpaque().endConfig()
            .addNewConfig().withSource("FromClaim").withRequests("gpu")
            .withNewOpaque().withDriver("other.example.com").withParameters(Map.of("sharing", "nonsense")).endOpaque().endConfig()
            .endDevices().endAllocation().endStatus().build();
    String uid = client.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class).inNamespace("default")
        .resource(claim).create().getMetadata().getUid();
    names.put(uid, name);
    return uid;
  }

  @Test
  void anMpsClaimGetsItsDaemonAndPipeThroughPrepareAndABadConfigIsThatClaimsError() throws Exception {
    String mps = configured("mps", "gpu-0-mig-3g-71gb-0", "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\","
        + "\"kind\":\"GpuConfig\",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":"
        + "{\"defaultActiveThreadPercentage\":25}}}");
    String bad = configured("bad", "gpu-0-mig-3g-71gb-4", "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\","
        + "\"kind\":\"GpuConfig\",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfg\":{}}}");
    try (Running r = new Running(Function.identity())) {
      var both = r.kubelet.prepare(FakeKubelet.claim("default", "mps", mps), FakeKubelet.claim("default", "bad", bad));
      assertThat(both.getClaimsOrThrow(mps).getError()).isEmpty();
      assertThat(both.getClaimsOrThrow(bad).getError()).contains("unknown field sharing.mpsConfg");
      assertThat(instances(P_3G)).containsExactly("0:4#1");
      Path pipe = onlyDaemonDir(settings.stateDir()).resolve("pipe");
      assertThat(Files.readString(pipe.resolve("control")).strip()).isEqualTo(GPU);
      assertThat(spec(mps)).contains("CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25",
          pipe.toString(), "/dev/nvidia-caps/nvidia-cap");
      assertThat(r.unprepare(mps)).isEmpty();
      assertThat(pipe.getParent()).doesNotExist();
      assertThat(instances(P_3G)).isEmpty();
    }
  }

  /** The one MPS daemon directory under the agent's state directory (one per GPU or MIG device). */
  static Path onlyDaemonDir(Path stateDir) throws Exception {
    try (var dirs = Files.list(stateDir.resolve("families/mps"))) {
      List<Path> all = dirs.toList();
      assertThat(all).as("one MPS daemon directory").hasSize(1);
      return all.get(0);
    }
  }

  /** The GPU instances NVML holds of a profile, as {@code start:size#id}. */
  static List<String> instances(int profileId) throws Exception {
    try (NvmlSession nvml = JnaNvmlLibrary.load(FAKE_NVML).init()) {
      NvmlDevice gpu = nvml.deviceByIndex(0);
      List<String> out = new ArrayList<>();
      for (NvmlSession.GpuInstance gi : nvml.gpuInstances(gpu, profileId, 16)) {
        NvmlSession.GpuInstanceInfo i = nvml.gpuInstanceInfo(gi);
        out.add(i.placement().start() + ":" + i.placement().size() + "#" + i.id());
      }
      return out.stream().sorted().toList();
    }
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

  @Test
  void createdAtPrepareDestroyedAtUnprepareOverlapRefusedForeignUntouched() throws Exception {
    // An instance the agent did not create: an operator's 3g at 4:4.
    try (NvmlSession nvml = JnaNvmlLibrary.load(FAKE_NVML).init()) {
      NvmlSession.GpuInstance gi = nvml.createGpuInstance(nvml.deviceByIndex(0), P_3G, new NvmlSession.Placement(4, 4));
      nvml.createComputeInstance(gi, 2);
    }
    String a = claim("a", "gpu-0-mig-1g-18gb-0");
    String overlap = claim("overlap", "gpu-0-mig-3g-71gb-0");
    String foreign = claim("foreign", "gpu-0-mig-3g-71gb-4");
    try (Running r = new Running(Function.identity())) {
      NodePrepareResourceResponse ok = r.prepare(a);
      assertThat(ok.getError()).isEmpty();
      assertThat(instances(P_1G)).hasSize(1).allSatisfy(s -> assertThat(s).startsWith("0:1#"));
      int gi = Integer.parseInt(instances(P_1G).get(0).split("#")[1]);
      // The container gets exactly this instance: its GI and CI access capability nodes (mig-minors).
      String spec = spec(a);
      int giCap = 3 + gi * 9;
      assertThat(spec).contains("/dev/nvidia-caps/nvidia-cap" + giCap, "/dev/nvidia-caps/nvidia-cap" + (giCap + 1),
          "/dev/nvidia0", "NODEATLAS_MIG_INSTANCE=" + GPU + "/" + gi + "/0");
      assertThat(new String(io.nodeatlas.agent.claims.Checkpoint.document(settings.checkpointFile()), java.nio.charset.StandardCharsets.UTF_8)).contains("gpu.nodeatlas.io/mig-instance");

      // A 3g at 0:4 overlaps the 1g at 0:1: NVML refuses, the claim fails with the reason, nothing is left.
      NodePrepareResourceResponse refused = r.prepare(overlap);
      assertThat(refused.getError()).contains("NVML_ERROR_INSUFFICIENT_RESOURCES", "overlaps");
      // Where the operator's instance is: not published, so the scheduler cannot allocate it (nor the whole 7g);
      // a result that names it anyway is refused before NVML is asked, and the operator's instance stays.
      assertThat(published()).doesNotContain("gpu-0-mig-3g-71gb-4", "gpu-0-mig-1g-18gb-5", "gpu-0-mig-7g-141gb-0")
          .contains("gpu-0-mig-3g-71gb-0");
      assertThat(r.prepare(foreign).getError()).contains("gpu-0-mig-3g-71gb-4", "no longer exists on this node");
      assertThat(instances(P_3G)).containsExactly("4:4#1");
      assertThat(new String(io.nodeatlas.agent.claims.Checkpoint.document(settings.checkpointFile()), java.nio.charset.StandardCharsets.UTF_8)).doesNotContain(overlap, foreign);

      assertThat(r.prepare(a).getError()).isEmpty();
      assertThat(instances(P_1G)).hasSize(1);

      assertThat(r.unprepare(a)).isEmpty();
      assertThat(instances(P_1G)).isEmpty();
      assertThat(spec(a)).isEmpty();
      assertThat(r.unprepare(a)).isEmpty();
    }
    assertThat(instances(P_3G)).containsExactly("4:4#1");
  }

  @Test
  void aCrashBetweenCreateAndCheckpointLeavesNoOrphanAndLiveClaimsAreReFound() throws Exception {
    try (NvmlSession nvml = JnaNvmlLibrary.load(FAKE_NVML).init()) {
      NvmlSession.GpuInstance gi = nvml.createGpuInstance(nvml.deviceByIndex(0), P_3G, new NvmlSession.Placement(4, 4));
      nvml.createComputeInstance(gi, 2);
    }
    String live = claim("live", "gpu-0-mig-1g-18gb-0");
    String lost = claim("lost", "gpu-0-mig-1g-18gb-1");
    try (Running r = new Running(Function.identity())) {
      assertThat(r.prepare(live).getError()).isEmpty();
    }
    List<String> liveInstance = instances(P_1G);
    assertThat(liveInstance).hasSize(1);

    // The agent dies after NVML created the instance and before the claim reached the checkpoint: nothing
    // after the creation runs, not even the undo (a kill -9 at that point).
    try (Running r = new Running(Crashing::new)) {
      String error;
      try {
        error = r.prepare(lost).getError();
      } catch (io.grpc.StatusRuntimeException e) {
        error = e.getStatus().toString();
      }
      assertThat(error).isNotEmpty();
    }
    assertThat(instances(P_1G)).hasSize(2);
    assertThat(new String(io.nodeatlas.agent.claims.Checkpoint.document(settings.checkpointFile()), java.nio.charset.StandardCharsets.UTF_8)).doesNotContain(lost);

    // Restarted: the orphan is destroyed, the live claim's instance is found (not duplicated), and the
    // operator's instance is left alone.
    try (Running r = new Running(Function.identity())) {
      assertThat(instances(P_1G)).isEqualTo(liveInstance);
      assertThat(r.prepare(live).getError()).isEmpty();
      assertThat(instances(P_1G)).isEqualTo(liveInstance);
      assertThat(instances(P_3G)).containsExactly("4:4#1");
      assertThat(r.unprepare(live)).isEmpty();
      assertThat(instances(P_1G)).isEmpty();
    }
  }

  /** The family, dying (an Error nothing catches) right after it made an instance, and in any undo. */
  static final class Crashing implements DeviceRealiser {
    private final DeviceRealiser real;

    Crashing(DeviceRealiser real) {
      this.real = real;
    }

    @Override
    public boolean realises(Device device) {
      return real.realises(device);
    }

    @Override
    public Placement realise(String claimUid, Device device, List<String> configs) throws RealiseException {
      real.realise(claimUid, device, configs);
      throw new Crash();
    }

    @Override
    public Device containerEdits(Device device, Placement record) {
      return real.containerEdits(device, record);
    }

    @Override
    public boolean unrealise(String claimUid, String device, Placement record) {
      throw new Crash();
    }

    @Override
    public List<Realised> reconcile(List<Realised> live, Set<String> claims) {
      return real.reconcile(live, claims);
    }
  }

  /** A simulated kill -9. */
  static final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    Crash() {
      super("simulated kill -9");
    }
  }
}
