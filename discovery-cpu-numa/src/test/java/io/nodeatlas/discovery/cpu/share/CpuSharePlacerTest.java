package io.nodeatlas.discovery.cpu.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.cpu.CpuNumaSource;
import io.nodeatlas.discovery.cpu.testing.TwoNodeMachine;
import io.nodeatlas.discovery.share.DevicePlacer;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import io.nodeatlas.discovery.share.SharePlacer;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The family's claim-time contract as the agent calls it: through its source, shares in, placements out. */
class CpuSharePlacerTest {

  final SharePlacer placer = new CpuNumaSource().sharePlacer(new SharePlacer.Settings("/opt/hooks/cpuset-hook")).orElseThrow();
  final DevicePlacer cpu0 = placer.forDevice(TwoNodeMachine.cpuDevice(0, "1-7,17-23"), TwoNodeMachine.topology()).orElseThrow();

  static Share share(String id, int cpus, Placement p) {
    return new Share("uid-" + id, "cpu-numa0", id, new TreeMap<>(Map.of("nodeatlas.io/cpu", BigDecimal.valueOf(cpus))), p);
  }

  @Test
  void twoSharesGetDisjointCpusAndTheSameAskTheSameCpus() {
    DevicePlacer.Decision a = cpu0.place(share("a", 2, null), List.of());
    DevicePlacer.Decision b = cpu0.place(share("b", 2, null), List.of(share("a", 2, a.placement())));
    assertThat(a.placement()).isEqualTo(new Placement(1, "1,17"));
    assertThat(b.placement()).isEqualTo(new Placement(1, "2,18"));
    assertThat(cpu0.place(share("b", 2, null), List.of(share("a", 2, a.placement())))).isEqualTo(b);
  }

  @Test
  void onlyItsOwnDevicesArePlaced() {
    var gpu = io.nodeatlas.discovery.model.Device.builder("gpu-0", "gpu").attribute("nodeatlas.io/type", "gpu")
        .allowMultipleAllocations(true).build();
    assertThat(placer.forDevice(gpu, TwoNodeMachine.topology())).isEmpty();
  }

  @Test
  void aRecordedPlacementItCannotReadFailsTheRecheck() {
    assertThat(cpu0.recheck(share("a", 2, new Placement(1, "1,17")))).isNull();
    assertThat(cpu0.recheck(share("a", 2, new Placement(1, "7-3")))).isEqualTo(
        "the recorded placement (version 1) is not a CPU list this version reads");
    assertThat(cpu0.recheck(share("a", 2, new Placement(2, "whatever")))).contains("version 2");
  }
}
