package io.nodeatlas.agent.shares;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.testing.ShareFixtures;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SharePlannerTest {

  final SharePlanner planner = new SharePlanner();
  final SharedDevice cpu0 = ShareFixtures.shared(ShareFixtures.cpuDevice(0, "1-7,17-23"));
  final SharedDevice huge0 = ShareFixtures.shared(ShareFixtures.hugepages(0, 4));
  final SharedDevice gpu = ShareFixtures.shared(TestDevices.gpu(0));

  static ShareAsk cpus(String shareId, String count) {
    return new ShareAsk("cpus", "cpu-numa0", shareId, count == null ? Map.of() : Map.of("nodeatlas.io/cpu", count), false);
  }

  String error(SharedDevice d, ShareAsk ask) {
    SharePlanner.Plan p = planner.plan("uid-1", d, ask, new ArrayList<>());
    assertThat(p.failed()).isTrue();
    return p.error();
  }

  @Test
  void aCpuShareGetsCpusOfTheDeviceOnly() {
    SharePlanner.Plan p = planner.plan("uid-1", cpu0, cpus("s-1", "3"), new ArrayList<>());
    assertThat(p.failed()).isFalse();
    assertThat(p.share().placement()).isEqualTo(new Placement(1, "1-2,17"));
    assertThat(p.share().consumed()).containsEntry("nodeatlas.io/cpu", new BigDecimal("3"));
  }

  @Test
  void aMissingAmountTakesThePolicyDefault() {
    SharePlanner.Plan p = planner.plan("uid-1", cpu0, cpus("s-1", null), new ArrayList<>());
    assertThat(CpuListParser.parse(p.share().placement().value()).size()).isEqualTo(1);
  }

  @Test
  void badInputIsAClearPerClaimError() {
    assertThat(error(cpu0, cpus("s-1", "15"))).isEqualTo(
        "request cpus on device cpu-numa0: consumedCapacity nodeatlas.io/cpu = 15 exceeds the device's capacity of 14");
    assertThat(error(cpu0, cpus("s-1", "-2"))).isEqualTo(
        "request cpus on device cpu-numa0: consumedCapacity nodeatlas.io/cpu = -2 is negative");
    assertThat(error(cpu0, cpus("s-1", "1500m"))).isEqualTo(
        "request cpus on device cpu-numa0: consumedCapacity nodeatlas.io/cpu = 1.5 is not a whole number of CPUs");
    assertThat(error(cpu0, cpus("s-1", "0"))).contains("a share takes at least 1 CPU");
    assertThat(error(cpu0, cpus("", "2"))).isEqualTo(
        "request cpus on device cpu-numa0: the device is shared (it allows multiple allocations), but the allocation has no shareID");
    assertThat(error(cpu0, cpus("../x", "2"))).contains("is not a UID");
    assertThat(error(cpu0, cpus("s-1", "lots"))).contains("\"lots\" is not a quantity");
    assertThat(error(cpu0, cpus("s-1", "9e999999999"))).contains("exceeds the device's capacity of 14").hasSizeLessThan(200);
    assertThat(error(cpu0, new ShareAsk("cpus", "cpu-numa0", "s-1", Map.of("nodeatlas.io/bogus", "1"), false)))
        .contains("consumedCapacity names \"nodeatlas.io/bogus\", which is no capacity of the device");
    assertThat(error(gpu, new ShareAsk("gpu", "gpu-0", "s-1", Map.of(), false))).isEqualTo(
        "request gpu on device gpu-0: the allocation gives it a share (shareID \"s-1\", consumedCapacity []), but the device"
            + " is not shared (it does not allow multiple allocations)");
    assertThat(error(huge0, new ShareAsk("pages", "hugepages-2mi-numa0", "s-1", Map.of("nodeatlas.io/memory", "3Mi"), false)))
        .contains("is not a whole number of 2097152-byte pages");
  }

  @Test
  void capacityIsNeverExceededAndTheRefusalSaysWhatIsLeft() {
    List<Share> held = new ArrayList<>();
    held.add(new Share("other", "hugepages-2mi-numa0", "s-0", new TreeMap<>(Map.of("nodeatlas.io/memory", new BigDecimal(6L << 20))), Placement.NONE));
    assertThat(planner.plan("uid-1", huge0, new ShareAsk("p", "hugepages-2mi-numa0", "s-1", Map.of("nodeatlas.io/memory", "4Mi"), false), held)
        .error()).isEqualTo("request p on device hugepages-2mi-numa0: the share no longer fits: it consumes 4194304 of"
            + " nodeatlas.io/memory, and 2097152 of 8388608 are left");
    assertThat(planner.plan("uid-1", huge0, new ShareAsk("p", "hugepages-2mi-numa0", "s-1", Map.of("nodeatlas.io/memory", "2Mi"), false), held)
        .failed()).isFalse();
  }

  @Test
  void aRecordedShareNoLongerFitsWhenItsCpusAreGone() {
    Share h = planner.plan("uid-1", cpu0, cpus("s-1", "2"), new ArrayList<>()).share();
    SharedDevice shrunk = ShareFixtures.shared(ShareFixtures.cpuDevice(0, "3-7,19-23"));
    assertThat(planner.recheck(cpu0, h, List.of(h))).isNull();
    assertThat(planner.recheck(shrunk, h, List.of(h))).isEqualTo(
        "device cpu-numa0 share s-1: the share no longer fits: CPUs 1,17 of its CPUs 1,17 are no longer allocatable on the device");
  }

  @Test
  void withoutAStatedCpuListTheNumaNodesCpusAreAllocatable() {
    SharedDevice unstated = ShareFixtures.shared(ShareFixtures.cpuDevice(1, null));
    SharePlanner.Plan all = planner.plan("uid-1", unstated, new ShareAsk("cpus", "cpu-numa1", "s-1", Map.of("nodeatlas.io/cpu", "16"), false),
        new ArrayList<>());
    assertThat(all.share().placement().value()).isEqualTo("8-15,24-31");
  }

  @Test
  void theFamilyPlacesWithTheResultsConfigurationAndItsRefusalNamesTheHoldingClaim() {
    // A family whose placement depends on the claim's opaque configuration (the gpu family's sharing strategy).
    List<List<String>> seen = new ArrayList<>();
    io.nodeatlas.discovery.share.DevicePlacer byConfig = new io.nodeatlas.discovery.share.DevicePlacer() {
      @Override
      public Decision place(Share share, List<Share> others) {
        return Decision.refused("no configuration reached the family");
      }

      @Override
      public Decision place(Share share, List<Share> others, List<String> configs) {
        seen.add(configs);
        return others.isEmpty() ? Decision.of(new Placement(1, configs.get(0)))
            : Decision.refused("held by claim " + others.get(0).claimUid() + " as " + others.get(0).placement().value());
      }
    };
    SharedDevice shared = new SharedDevice(huge0.device(), java.util.Optional.of(byConfig));
    ShareAsk ask = new ShareAsk("p", "hugepages-2mi-numa0", "s-1", Map.of("nodeatlas.io/memory", "2Mi"), false,
        List.of("{\"mode\":\"a\"}"));
    Share first = planner.plan("uid-1", shared, ask, new ArrayList<>()).share();
    assertThat(first.placement().value()).isEqualTo("{\"mode\":\"a\"}");
    String refusal = planner.plan("uid-2", shared, new ShareAsk("p", "hugepages-2mi-numa0", "s-2",
        Map.of("nodeatlas.io/memory", "2Mi"), false, List.of("{}")), new ArrayList<>(List.of(first))).error();
    assertThat(seen).containsExactly(List.of("{\"mode\":\"a\"}"), List.of("{}"));
    assertThat(SharePlanner.naming(refusal, uid -> uid.equals("uid-1") ? "default/a (uid uid-1)" : null))
        .isEqualTo("request p on device hugepages-2mi-numa0: held by claim default/a (uid uid-1) as {\"mode\":\"a\"}");
  }
}
