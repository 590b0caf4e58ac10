package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.gpu.nvml.JnaNvmlLibrary;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.DeviceRealiser.Realised;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gpu family's MIG instances at claim time against the fake H200 (MIG mode on, instances kept in a
 * state file as the driver keeps them): what a crash leaves in the journal, a failed creation, MIG mode
 * off, and a reboot that cleared the instances of a live claim.
 */
class MigRealiserTest {

  @TempDir Path host;
  @TempDir Path dir;

  static final int P_1G = 19;

  @AfterEach
  void everyInitWasShutDown() {
    assertThat(FakeNvml.initCount()).as("nvmlInit/nvmlShutdown pairs").isZero();
  }

  private HostContext setUp(FakeNvml.Config config, boolean capabilities) {
    FixtureTree t = FixtureTree.at(host).file("dev/nvidia0", "").file("dev/nvidiactl", "")
        .file("proc/devices", "Character devices:\n195 nvidia-frontend\n235 nvidia-caps\n");
    if (capabilities) {
      StringBuilder minors = new StringBuilder();
      for (int gi = 0; gi < 15; gi++) {
        minors.append("gpu0/gi").append(gi).append("/access ").append(100 + gi * 10).append('\n');
        for (int ci = 0; ci < 8; ci++) {
          minors.append("gpu0/gi").append(gi).append("/ci").append(ci).append("/access ").append(101 + gi * 10 + ci).append('\n');
        }
      }
      t.file("proc/driver/nvidia-caps/mig-minors", minors.toString());
    }
    config.set("mig.state", dir.resolve("mig-state").toString()).install(dir);
    return new HostContext(HostFs.of(host), new SourceOptions(Map.of("gpu.nvmlLibrary", FakeNvml.library().toString(),
        "gpu.migPartitions", "true")), Clock.systemUTC());
  }

  private static Device partition(HostContext ctx, String name) throws Exception {
    return new GpuDiscoverySource().discover(ctx).devices().stream().filter(d -> d.name().equals(name)).findFirst()
        .orElseThrow();
  }

  private static DeviceRealiser realiser(HostContext ctx, Path state) {
    return new MigRealiser(NvmlLibraryLocator::load, ctx, state);
  }

  /** The GPU instances NVML holds of a profile, as {@code start:size#id}. */
  private static List<String> instances(int profileId) throws Exception {
    try (NvmlSession nvml = JnaNvmlLibrary.load(FakeNvml.library()).init()) {
      List<String> out = new ArrayList<>();
      for (NvmlSession.GpuInstance gi : nvml.gpuInstances(nvml.deviceByIndex(0), profileId, 16)) {
        NvmlSession.GpuInstanceInfo i = nvml.gpuInstanceInfo(gi);
        out.add(i.placement().start() + ":" + i.placement().size() + "#" + i.id());
      }
      return out.stream().sorted().toList();
    }
  }

  private static void create(int profileId, int start, int size) throws Exception {
    try (NvmlSession nvml = JnaNvmlLibrary.load(FakeNvml.library()).init()) {
      nvml.createGpuInstance(nvml.deviceByIndex(0), profileId, new NvmlSession.Placement(start, size));
    }
  }

  @Test
  void aRecordNamesTheInstanceAndItsCapabilityNodes() throws Exception {
    HostContext ctx = setUp(FakeNvml.h200().set("device.0.mig.mode", "1"), true);
    Device d = partition(ctx, "gpu-0-mig-1g-18gb-2");
    DeviceRealiser r = realiser(ctx, dir.resolve("state"));
    assertThat(r.realises(d)).isTrue();
    assertThat(r.realises(partition(ctx, "gpu-0"))).isFalse();
    Placement record = r.realise("uid-1", d, List.of());
    assertThat(instances(P_1G)).containsExactly("2:1#1");
    Device edited = r.containerEdits(d, record);
    assertThat(edited.containerEdits().deviceNodes()).extracting(n -> n.path())
        .contains("/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-caps/nvidia-cap110", "/dev/nvidia-caps/nvidia-cap111");
    assertThat(edited.containerEdits().env()).contains("NODEATLAS_MIG_INSTANCE=GPU-0a7d4e52-93c1-4f0e-b6a2-1c9d8e7f6a50/1/0");
    // Another family's record is not ours; ours is undone, twice without harm.
    assertThat(r.unrealise("uid-1", d.name(), new Placement(1, "0-3"))).isFalse();
    assertThat(r.unrealise("uid-1", d.name(), record)).isTrue();
    assertThat(r.unrealise("uid-1", d.name(), record)).isTrue();
    assertThat(instances(P_1G)).isEmpty();
  }

  @Test
  void withoutCapabilityNodesTheInstanceIsUndoneAndTheClaimToldWhy() throws Exception {
    HostContext ctx = setUp(FakeNvml.h200().set("device.0.mig.mode", "1"), false);
    DeviceRealiser r = realiser(ctx, dir.resolve("state"));
    assertThatThrownBy(() -> r.realise("uid-1", partition(ctx, "gpu-0-mig-1g-18gb-0"), List.of()))
        .hasMessageContaining("no capability device").hasMessageContaining("mig-minors");
    assertThat(instances(P_1G)).isEmpty();
    assertThat(Files.readString(dir.resolve("state").resolve(MigJournal.FILE))).doesNotContain("uid-1");
  }

  @Test
  void migModeOffIsNvmlsNotSupportedWithAdvice() throws Exception {
    // Partitions are published only with MIG on; the operator turned it off since.
    HostContext ctx = setUp(FakeNvml.h200().set("device.0.mig.mode", "1"), true);
    Device d = partition(ctx, "gpu-0-mig-1g-18gb-0");
    setUp(FakeNvml.h200(), true);
    assertThatThrownBy(() -> realiser(ctx, dir.resolve("state")).realise("uid-1", d, List.of()))
        .hasMessageContaining("NVML_ERROR_NOT_SUPPORTED").hasMessageContaining("MIG mode is off");
  }

  @Test
  void killedBeforeTheIdWasJournalledTheNewInstanceAtTheIntentIsDestroyedAndOthersKept() throws Exception {
    HostContext ctx = setUp(FakeNvml.h200().set("device.0.mig.mode", "1"), true);
    create(P_1G, 3, 1); // someone else's, before ours: its id is in "before"
    new MigJournal(dir.resolve("state")).put(new MigJournal.Entry("uid-gone", "gpu-0-mig-1g-18gb-3",
        "GPU-0a7d4e52-93c1-4f0e-b6a2-1c9d8e7f6a50", 0, P_1G, 3, 1, -1, -1, List.of(1)));
    create(P_1G, 5, 1); // another one elsewhere, not ours either
    assertThat(realiser(ctx, dir.resolve("state")).reconcile(List.of(), Set.of())).isEmpty();
    // The instance at 3:1 existed before the intent: not ours, kept; the journal forgets the intent.
    assertThat(instances(P_1G)).containsExactly("3:1#1", "5:1#2");
    assertThat(new MigJournal(dir.resolve("state")).read()).isEmpty();

    // Now ours was created at 4:1 and the agent died before journalling its id.
    new MigJournal(dir.resolve("state")).put(new MigJournal.Entry("uid-gone", "gpu-0-mig-1g-18gb-4",
        "GPU-0a7d4e52-93c1-4f0e-b6a2-1c9d8e7f6a50", 0, P_1G, 4, 1, -1, -1, List.of(1, 2)));
    create(P_1G, 4, 1);
    realiser(ctx, dir.resolve("state")).reconcile(List.of(), Set.of());
    assertThat(instances(P_1G)).containsExactly("3:1#1", "5:1#2");
  }

  @Test
  void aRebootThatClearedALiveClaimsInstanceReMakesItWithANewRecord() throws Exception {
    HostContext ctx = setUp(FakeNvml.h200().set("device.0.mig.mode", "1"), true);
    create(P_1G, 0, 1);
    Device d = partition(ctx, "gpu-0-mig-1g-18gb-6");
    Placement before = realiser(ctx, dir.resolve("state")).realise("uid-live", d, List.of());
    assertThat(instances(P_1G)).containsExactly("0:1#1", "6:1#2");
    // A reboot: the driver forgot every instance.
    Files.delete(dir.resolve("mig-state"));
    List<Realised> changed = realiser(ctx, dir.resolve("state"))
        .reconcile(List.of(new Realised("uid-live", d.name(), before)), Set.of("uid-live"));
    assertThat(instances(P_1G)).containsExactly("6:1#1");
    assertThat(changed).singleElement().satisfies(c -> {
      assertThat(c.claimUid()).isEqualTo("uid-live");
      assertThat(c.record()).isNotEqualTo(before);
      assertThat(MigRealiser.parse(c.record()).orElseThrow().gi()).isEqualTo(1);
    });
    // Found the second time: nothing changes, nothing is duplicated.
    assertThat(realiser(ctx, dir.resolve("state"))
        .reconcile(List.of(new Realised("uid-live", d.name(), changed.get(0).record())), Set.of("uid-live"))).isEmpty();
    assertThat(instances(P_1G)).containsExactly("6:1#1");
  }
}
