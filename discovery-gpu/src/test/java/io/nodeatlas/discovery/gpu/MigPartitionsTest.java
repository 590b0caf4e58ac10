package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.CounterConsumption;
import io.nodeatlas.discovery.model.CounterSet;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic MIG publishing (KEP-4815) from the fake's H200, whose profiles are the ones NVML read on a
 * real H200 (docs/design/gpu-mig-profiles-h200.md): counters per memory slice, compute slices and
 * engines, one device per profile and placement, and the whole GPU consuming everything.
 */
class MigPartitionsTest {

  @TempDir Path host;
  @TempDir Path confDir;

  @AfterEach
  void everyInitWasShutDown() {
    assertThat(FakeNvml.initCount()).as("nvmlInit/nvmlShutdown pairs").isZero();
  }

  private DiscoveryResult discover(FakeNvml.Config config, boolean partitions) throws Exception {
    return discover(config, partitions, null);
  }

  /** With {@code familyDir}: as the agent discovers, its gpu family's journal there. */
  private DiscoveryResult discover(FakeNvml.Config config, boolean partitions, Path familyDir) throws Exception {
    FixtureTree.at(host).file("dev/nvidia0", "").file("dev/nvidiactl", "");
    config.install(confDir);
    Map<String, String> options = new HashMap<>();
    options.put("gpu.nvmlLibrary", FakeNvml.library().toString());
    if (partitions) {
      options.put("gpu.migPartitions", "true");
    }
    HostContext ctx = new HostContext(HostFs.of(host), new SourceOptions(options), Clock.systemUTC());
    return new GpuDiscoverySource().discover(familyDir == null ? ctx : ctx.withFamilyStateDir(familyDir));
  }

  @Test
  void anOperatorsInstanceTakesItsSlicesNoPartitionOverItIsPublishedAndEveryOneLeftCanBeCreated() throws Exception {
    // A 3g.71gb (profile id 9) an operator made at memory slices 4-7 before the agent started.
    FakeNvml.Config config = h200MigOn().set("device.0.mig.gi.0", "9@4:4");
    DiscoveryResult r = discover(config, true);
    Device gpu = r.devices().get(0);
    List<Device> partitions = r.devices().stream().filter(d -> !d.name().equals("gpu-0")).toList();
    assertThat(partitions).extracting(Device::name).doesNotContain("gpu-0-mig-3g-71gb-4", "gpu-0-mig-1g-18gb-4",
        "gpu-0-mig-2g-35gb-4", "gpu-0-mig-1g-35gb-6", "gpu-0-mig-7g-141gb-0")
        .contains("gpu-0-mig-4g-71gb-0", "gpu-0-mig-3g-71gb-0", "gpu-0-mig-1g-18gb-3");
    for (Device p : partitions) {
      assertThat(overlaps(p, 4, 4)).as(p.name()).isFalse();
    }
    // Its 3 compute slices, 3 CE, DEC and JPEG are gone from the set; the whole GPU still needs all 7 and so never fits.
    CounterSet set = gpu.sharedCounters().get(0);
    assertThat(set.counters()).containsEntry("compute-slices", Quantity.of(4)).containsEntry("copy-engines", Quantity.of(5))
        .containsEntry("decoders", Quantity.of(4)).containsEntry("ofa-engines", Quantity.of(1));
    assertThat(gpu.consumesCounters().get(0).counters()).containsEntry("compute-slices", Quantity.of(7));
    assertThat(fit(set, List.of(gpu))).isFalse();
    assertThat(fit(set, List.of(named(partitions, "gpu-0-mig-4g-71gb-0")))).isTrue();
    // What the set lets the scheduler allocate, NVML creates beside the operator's instance.
    config.install(confDir);
    try (var nvml = io.nodeatlas.discovery.gpu.nvml.JnaNvmlLibrary.load(FakeNvml.library()).init()) {
      var dev = nvml.deviceByIndex(0);
      for (Device p : partitions) {
        var gi = nvml.createGpuInstance(dev, (int) (long) (Long) p.attribute(MigPartitions.PROFILE_ID).orElseThrow().asObject(),
            new io.nodeatlas.discovery.gpu.nvml.NvmlSession.Placement(start(p), size(p)));
        nvml.destroyGpuInstance(gi);
      }
    }
  }

  @Test
  void anInstanceTheFamilyMadeForAClaimIsNotAnOperatorsItIsNotPublishedAsAMigDeviceOfItsOwn() throws Exception {
    // The claim's partition was allocated as gpu-0-mig-3g-71gb-4: the scheduler counts it through the claim.
    FakeNvml.Config config = h200MigOn().set("device.0.mig.gi.0", "9@4:4").set("device.0.mig.count", "1")
        .set("device.0.mig.0.uuid", "MIG-11111111-2222-4333-8444-555555555555").set("device.0.mig.0.profile", "3g.71gb")
        .set("device.0.mig.0.gi", "1").set("device.0.mig.0.ci", "0");
    Path family = confDir.resolve("families");
    new MigJournal(family).put(new MigJournal.Entry("claim-1", "gpu-0-mig-3g-71gb-4", "GPU-0a7d4e52-93c1-4f0e-b6a2-1c9d8e7f6a50", 0, 9, 4, 4, 1, 0,
        List.of()));
    DiscoveryResult r = discover(config, true, family);
    assertThat(r.devices()).extracting(Device::name).contains("gpu-0-mig-3g-71gb-4", "gpu-0-mig-7g-141gb-0")
        .doesNotContain("gpu-0-mig-1-0");
    assertThat(r.devices().get(0).sharedCounters().get(0).counters()).containsEntry("compute-slices", Quantity.of(7));
    // The one-shot discover knows no journal: the same instance is an operator's there.
    assertThat(discover(config, true).devices()).extracting(Device::name).contains("gpu-0-mig-1-0")
        .doesNotContain("gpu-0-mig-3g-71gb-4");
  }

  @Test
  void instancesThatLeaveNoPlacementFreeLeaveTheGpuWithoutPartitions() throws Exception {
    DiscoveryResult r = discover(h200MigOn().set("device.0.mig.gi.0", "0@0:8"), true);
    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0");
    assertThat(r.devices().get(0).sharedCounters()).isEmpty();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message)
        .anySatisfy(m -> assertThat(m).contains("no MIG partitions", "leave no placement free"));
  }

  private static boolean overlaps(Device d, int start, int size) {
    return start(d) < start + size && start < start(d) + size(d);
  }

  private static int start(Device d) {
    return (int) (long) (Long) d.attribute(MigPartitions.PLACEMENT_START).orElseThrow().asObject();
  }

  private static int size(Device d) {
    return (int) (long) (Long) d.attribute(MigPartitions.PLACEMENT_SIZE).orElseThrow().asObject();
  }

  private static FakeNvml.Config h200MigOn() {
    return FakeNvml.h200().set("device.0.mig.mode", "1");
  }

  @Test
  void offByDefaultTheGpuIsPublishedAsBefore() throws Exception {
    DiscoveryResult r = discover(h200MigOn(), false);
    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0");
    assertThat(r.devices().get(0).sharedCounters()).isEmpty();
    assertThat(r.devices().get(0).consumesCounters()).isEmpty();
  }

  @Test
  void withMigModeOffNoPartitionIsPublishedAndTheOperatorIsToldWhy() throws Exception {
    DiscoveryResult r = discover(FakeNvml.h200(), true);
    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0");
    assertThat(r.warnings()).extracting(DiscoveryWarning::message)
        .anySatisfy(m -> assertThat(m).contains("MIG partitions not published: MIG mode is off"));
  }

  @Test
  void theH200IsOneCounterSetWithEightMemorySlicesAndOneDevicePerProfileAndPlacement() throws Exception {
    DiscoveryResult r = discover(h200MigOn(), true);
    Device gpu = r.devices().stream().filter(d -> d.name().equals("gpu-0")).findFirst().orElseThrow();
    assertThat(gpu.sharedCounters()).hasSize(1);
    CounterSet set = gpu.sharedCounters().get(0);
    assertThat(set.name()).isEqualTo("gpu-0");
    Map<String, Quantity> expected = new HashMap<>();
    for (int s = 0; s < 8; s++) {
      expected.put("memory-slice-" + s, Quantity.of(1));
    }
    // Totals are the most any one profile takes: 7g.141gb's 7 compute slices, 8 CE, 7 DEC, 7 JPEG, 1 OFA.
    expected.put("compute-slices", Quantity.of(7));
    expected.put("copy-engines", Quantity.of(8));
    expected.put("decoders", Quantity.of(7));
    expected.put("jpeg-engines", Quantity.of(7));
    expected.put("ofa-engines", Quantity.of(1));
    assertThat(set.counters()).containsExactlyInAnyOrderEntriesOf(expected);
    assertThat(gpu.consumesCounters()).containsExactly(new CounterConsumption("gpu-0", set.counters()));

    List<Device> partitions = r.devices().stream().filter(d -> !d.name().equals("gpu-0")).toList();
    // 7 (1g.18gb) + 7 (1g.18gb+me) + 4 (1g.35gb) + 3 (2g.35gb) + 2 (3g.71gb) + 1 (4g.71gb) + 1 (7g.141gb).
    assertThat(partitions).hasSize(25);
    assertThat(partitions.size() + 1).as("devices with counters per slice").isLessThanOrEqualTo(64);
    Device threeG = partitions.stream().filter(d -> d.name().equals("gpu-0-mig-3g-71gb-4")).findFirst().orElseThrow();
    assertThat(threeG.attribute("nodeatlas.io/profile").orElseThrow().asObject()).isEqualTo("3g.71gb");
    assertThat(threeG.attribute("nodeatlas.io/migProfileID").orElseThrow().asObject()).isEqualTo(9L);
    assertThat(threeG.capacity()).containsEntry("nodeatlas.io/memory", Quantity.of(71424L << 20))
        .containsEntry("nodeatlas.io/multiprocessors", Quantity.of(60));
    assertThat(threeG.consumesCounters().get(0).counters()).containsOnlyKeys("memory-slice-4", "memory-slice-5",
        "memory-slice-6", "memory-slice-7", "compute-slices", "copy-engines", "decoders", "jpeg-engines");
    assertThat(threeG.consumesCounters().get(0).counters().get("compute-slices")).isEqualTo(Quantity.of(3));
    assertThat(partitions).extracting(Device::name).contains("gpu-0-mig-1g-18gb-me-6", "gpu-0-mig-7g-141gb-0",
        "gpu-0-mig-1g-35gb-6");
    Device me = partitions.stream().filter(d -> d.name().equals("gpu-0-mig-1g-18gb-me-0")).findFirst().orElseThrow();
    assertThat(me.consumesCounters().get(0).counters()).containsEntry("ofa-engines", Quantity.of(1));
  }

  @Test
  void noTwoPartitionsThatShareAMemorySliceFitTogetherByTheCounters() throws Exception {
    DiscoveryResult r = discover(h200MigOn(), true);
    CounterSet set = r.devices().get(0).sharedCounters().get(0);
    List<Device> partitions = r.devices().stream().filter(d -> !d.name().equals("gpu-0")).toList();
    for (Device a : partitions) {
      for (Device b : partitions) {
        if (a == b) {
          continue;
        }
        boolean overlap = overlaps(a, b);
        if (overlap) {
          assertThat(fit(set, List.of(a, b))).as(a.name() + " with " + b.name()).isFalse();
        }
      }
    }
    // A full packing the hardware allows fits: 4g.71gb at 0 and 3g.71gb at 4.
    assertThat(fit(set, List.of(named(partitions, "gpu-0-mig-4g-71gb-0"), named(partitions, "gpu-0-mig-3g-71gb-4"))))
        .isTrue();
    // The whole GPU fits with nothing else.
    assertThat(fit(set, List.of(r.devices().get(0), named(partitions, "gpu-0-mig-1g-18gb-6")))).isFalse();
  }

  private static Device named(List<Device> ds, String name) {
    return ds.stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
  }

  private static boolean overlaps(Device a, Device b) {
    long as = (Long) a.attribute("nodeatlas.io/migPlacementStart").orElseThrow().asObject();
    long an = (Long) a.attribute("nodeatlas.io/migPlacementSize").orElseThrow().asObject();
    long bs = (Long) b.attribute("nodeatlas.io/migPlacementStart").orElseThrow().asObject();
    long bn = (Long) b.attribute("nodeatlas.io/migPlacementSize").orElseThrow().asObject();
    return as < bs + bn && bs < as + an;
  }

  private static boolean fit(CounterSet set, List<Device> devices) {
    Map<String, java.math.BigDecimal> left = new HashMap<>();
    set.counters().forEach((k, v) -> left.put(k, v.toBigDecimal()));
    List<CounterConsumption> uses = new ArrayList<>();
    devices.forEach(d -> uses.addAll(d.consumesCounters()));
    for (CounterConsumption c : uses) {
      for (var e : c.counters().entrySet()) {
        java.math.BigDecimal now = left.get(e.getKey()).subtract(e.getValue().toBigDecimal());
        if (now.signum() < 0) {
          return false;
        }
        left.put(e.getKey(), now);
      }
    }
    return true;
  }

  @Test
  void aProfileWithImplausibleNumbersCostsThatProfileAndAWarning() throws Exception {
    DiscoveryResult r = discover(h200MigOn()
        .set("device.0.mig.profile.2.ce", "4294967295") // 3g.71gb: an unsigned -1
        .set("device.0.mig.profile.3.placements", "0:4,9999:4") // 4g.71gb: a placement past any GPU
        .set("device.0.mig.profile.4.memory_mib", "18446744073709551615"), true); // 7g.141gb
    assertThat(r.devices()).extracting(Device::name).noneMatch(n -> n.contains("3g-71gb") || n.contains("4g-71gb")
        || n.contains("7g-141gb")).contains("gpu-0-mig-1g-18gb-0", "gpu-0-mig-2g-35gb-4");
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).filteredOn(m -> m.contains("left out")).hasSize(3)
        .anySatisfy(m -> assertThat(m).contains("MIG 3g.71gb (id 9) left out"));
    // Without 7g.141gb the totals come from the largest profile left: 2g.35gb's 2 CE, 1g.18gb+me's OFA.
    CounterSet set = r.devices().get(0).sharedCounters().get(0);
    assertThat(set.counters()).containsEntry("copy-engines", Quantity.of(2)).containsEntry("ofa-engines", Quantity.of(1));
  }
}
