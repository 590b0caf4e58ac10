package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.share.ClaimDevice;
import io.nodeatlas.discovery.share.DevicePlacer;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import io.nodeatlas.discovery.share.SharePlacer;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several claims on one GPU (issue 34): {@code --gpu-multiple-allocations} publishes a whole GPU with MIG off for
 * sharing, its memory a consumable capacity whose default is all of it (KEP-5075), and the family's placer lets
 * claims share it only when their sharing configurations agree.
 */
class SharedGpusTest {

  @TempDir Path host;
  @TempDir Path confDir;

  static final String TIME_SLICED = "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\",\"kind\":\"GpuConfig\","
      + "\"sharing\":{\"strategy\":\"TimeSlicing\"}}";
  static final String MPS = "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\",\"kind\":\"GpuConfig\","
      + "\"sharing\":{\"strategy\":\"MPS\"}}";

  @AfterEach
  void everyInitWasShutDown() {
    assertThat(FakeNvml.initCount()).as("nvmlInit/nvmlShutdown pairs").isZero();
  }

  private List<Device> discover(boolean flag, boolean sharedSupported) throws Exception {
    FixtureTree.at(host).file("dev/nvidia0", "").file("dev/nvidia3", "").file("dev/nvidiactl", "");
    FakeNvml.twoGpus().install(confDir);
    Map<String, String> options = new HashMap<>();
    options.put("gpu.nvmlLibrary", FakeNvml.library().toString());
    if (flag) {
      options.put("gpu.multipleAllocations", "true");
    }
    return new GpuDiscoverySource().discover(new HostContext(HostFs.of(host), new SourceOptions(options), Clock.systemUTC(),
        sharedSupported)).devices();
  }

  private static Device named(List<Device> ds, String name) {
    return ds.stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void withTheFlagAWholeGpuWithMigOffIsPublishedForSeveralClaimsTakingAllItsMemoryUnlessAsked() throws Exception {
    List<Device> devices = discover(true, true);
    Device a100 = named(devices, "gpu-3");
    assertThat(a100.allowMultipleAllocations()).isTrue();
    Quantity memory = Quantity.of(85899345920L);
    assertThat(a100.capacity()).containsEntry("nodeatlas.io/memory", memory);
    assertThat(a100.requestPolicies()).containsExactly(Map.entry("nodeatlas.io/memory",
        RequestPolicy.range(memory, Quantity.of(1L << 20), memory, null)));
    // MIG mode on: used through its instances, held by one claim as before; its MIG device too.
    assertThat(named(devices, "gpu-0").allowMultipleAllocations()).isFalse();
    assertThat(named(devices, "gpu-0-mig-9-0").allowMultipleAllocations()).isFalse();
  }

  @Test
  void offByDefaultAndWhereTheApiServerDropsSharedDevicesEveryGpuIsForOneClaim() throws Exception {
    assertThat(discover(false, true)).allSatisfy(d -> {
      assertThat(d.allowMultipleAllocations()).isFalse();
      assertThat(d.requestPolicies()).isEmpty();
    });
    assertThat(discover(true, false)).allSatisfy(d -> assertThat(d.allowMultipleAllocations()).isFalse());
  }

  private static Share share(String claim, long gib) {
    TreeMap<String, BigDecimal> consumed = new TreeMap<>();
    consumed.put("nodeatlas.io/memory", BigDecimal.valueOf(gib << 30));
    return new Share(claim, "gpu-3", "share-" + claim, consumed, Placement.NONE);
  }

  private static DevicePlacer placer() throws Exception {
    Device gpu = Device.builder("gpu-3", "gpu").attribute(Device.TYPE, "gpu")
        .capacity("nodeatlas.io/memory", Quantity.of(80L << 30)).build();
    return new GpuSharePlacer().forDevice(SharedGpus.shared(gpu).orElseThrow(), null).orElseThrow();
  }

  @Test
  void claimsShareAGpuOnlyWhenEachConfiguresTheSameSharing() throws Exception {
    DevicePlacer placer = placer();
    DevicePlacer.Decision first = placer.place(share("a", 40), List.of(), List.of(TIME_SLICED));
    assertThat(first.placed()).isTrue();
    Share a = share("a", 40).placed(first.placement());
    assertThat(placer.place(share("b", 40), List.of(a), List.of(TIME_SLICED)).placed()).isTrue();

    // Another strategy, or none, next to a time-sliced claim: refused, naming the claim and how it holds the GPU.
    assertThat(placer.place(share("c", 10), List.of(a), List.of(MPS)).refusal())
        .contains("shared by claim a with sharing.strategy TimeSlicing (interval Default)", "asks for sharing.strategy MPS");
    assertThat(placer.place(share("c", 10), List.of(a), List.of()).refusal())
        .contains("shared by claim a with sharing.strategy TimeSlicing", "asks for sharing.strategy Exclusive");

    // A claim without sharing holds the GPU alone, whatever memory it asked for.
    Share alone = share("x", 10).placed(placer.place(share("x", 10), List.of(), List.of()).placement());
    assertThat(placer.place(share("y", 10), List.of(alone), List.of(TIME_SLICED)).refusal())
        .contains("held by claim x alone", "Exclusive");
    // The same claim's other request on the same GPU is not another claim.
    assertThat(placer.place(share("x", 10), List.of(alone), List.of()).placed()).isTrue();
  }

  @Test
  void mpsAndEveryIntervalAreForSharedGpusAndBadConfigurationsAreClearRefusals() throws Exception {
    DevicePlacer placer = placer();
    String longSlice = TIME_SLICED.replace("}}", ",\"timeSlicingConfig\":{\"interval\":\"Long\"}}}");
    // A claim alone on a GPU published for sharing may ask for MPS or any interval, and others may join it alike.
    Share mps = share("a", 40).placed(placer.place(share("a", 40), List.of(), List.of(MPS)).placement());
    assertThat(placer.place(share("b", 40), List.of(mps), List.of(MPS)).placed()).isTrue();
    Share slow = share("a", 40).placed(placer.place(share("a", 40), List.of(), List.of(longSlice)).placement());
    assertThat(placer.place(share("b", 40), List.of(slow), List.of(longSlice)).placed()).isTrue();
    assertThat(placer.place(share("b", 40), List.of(slow), List.of(TIME_SLICED)).refusal())
        .contains("shared by claim a with sharing.strategy TimeSlicing (interval Long)");
    assertThat(placer.place(share("a", 40), List.of(), List.of(TIME_SLICED.replace("strategy", "strategee"))).refusal())
        .contains("unknown field sharing.strategee");
  }

  @Test
  void theContainersOfATimeSlicedShareAreToldHowTheGpuIsShared() throws Exception {
    Share a = share("a", 40);
    a = a.placed(placer().place(a, List.of(), List.of(TIME_SLICED)).placement());
    Device cdi = Device.builder("gpu-3-s0123456789ab", "gpu").attribute(Device.TYPE, "gpu").build();
    SharePlacer family = new GpuSharePlacer();
    Device edited = family.containerEdits(List.of(ClaimDevice.share(cdi, a))).get(0);
    assertThat(edited.containerEdits().env()).contains("NODEATLAS_GPU_SHARING=TimeSlicing", "NODEATLAS_GPU_TIMESLICE=Default");
    Share alone = share("x", 40);
    alone = alone.placed(placer().place(alone, List.of(), List.of()).placement());
    assertThat(family.containerEdits(List.of(ClaimDevice.share(cdi, alone))).get(0).containerEdits().env()).isEmpty();
  }
}
