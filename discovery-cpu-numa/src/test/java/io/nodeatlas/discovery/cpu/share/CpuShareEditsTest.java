package io.nodeatlas.discovery.cpu.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.cpu.testing.TwoNodeMachine;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.parse.CpuListParser;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CpuShareEditsTest {

  final CpuShareEdits edits = new CpuShareEdits("/opt/hooks/cpuset-hook");

  static CpuShareEdits.Placed cpu(int node, String cpus) {
    CpuShareDevice d = CpuShareDevice.of(TwoNodeMachine.cpuDevice(node, node == 0 ? "1-7,17-23" : "9-15,25-31"), TwoNodeMachine.topology());
    return new CpuShareEdits.Placed(d.device(), d, BigDecimal.ZERO, CpuListParser.parse(cpus));
  }

  static CpuShareEdits.Placed pages(int node, long bytes) {
    CpuShareDevice d = CpuShareDevice.of(TwoNodeMachine.hugepages(node, 64), TwoNodeMachine.topology());
    return new CpuShareEdits.Placed(d.device(), d, BigDecimal.valueOf(bytes), io.nodeatlas.discovery.topology.CpuSet.EMPTY);
  }

  @Test
  void aClaimOnTwoNodesGetsTheUnionOnEveryShareDeviceAndOneIdenticalHook() {
    List<Device> out = edits.devices(List.of(cpu(0, "1-2,17-18"), cpu(1, "9,25"), pages(1, 8L << 20)));

    ContainerEdits.Hook hook = new ContainerEdits.Hook("createRuntime", "/opt/hooks/cpuset-hook",
        List.of("nodeatlas-cpuset-hook", "--cpus=1-2,9,17-18,25", "--mems=0-1", "--hugetlb=2097152:8388608"), List.of(), 10);
    assertThat(out).extracting(d -> d.containerEdits().hooks()).containsOnly(List.of(hook));
    assertThat(out.get(0).containerEdits().env()).containsExactly("NODEATLAS_CPUS=1-2,9,17-18,25", "NODEATLAS_NUMA_NODE=0-1");
    assertThat(out.get(2).containerEdits().mounts()).singleElement()
        .satisfies(m -> assertThat(m.options()).containsExactly("rw", "nosuid", "nodev", "pagesize=2M", "size=8388608"));
    assertThat(out.get(2).containerEdits().env()).containsExactly("NODEATLAS_HUGEPAGES_2MI=/dev/hugepages-2Mi");
  }

  @Test
  void hugepagesAloneLimitOnlyHugetlbAndLeaveTheCpusetAlone() {
    List<Device> out = edits.devices(List.of(pages(0, 4L << 20)));
    assertThat(out.get(0).containerEdits().hooks()).singleElement()
        .satisfies(h -> assertThat(h.args()).containsExactly("nodeatlas-cpuset-hook", "--hugetlb=2097152:4194304"));
  }

  static Device core(String name, String cpus, int node) {
    return Device.builder(name, "cpu-numa").attribute("nodeatlas.io/type", "cpu")
        .containerEdits(ContainerEdits.builder().env("NODEATLAS_CPUS=" + cpus).env("NODEATLAS_NUMA_NODE=" + node)
            .env("OTHER=kept").build())
        .build();
  }

  @Test
  void severalExclusiveCoreDevicesOfOneClaimAllStateTheUnionAndCarryTheHook() {
    Device gpu = Device.builder("gpu-0", "gpu").build();
    List<Device> out = edits.unifyCpus(List.of(core("cpu-core-0-0", "0,64", 0), gpu, core("cpu-core-1-3", "35,99", 1)));

    ContainerEdits.Hook hook = new ContainerEdits.Hook("createRuntime", "/opt/hooks/cpuset-hook",
        List.of("nodeatlas-cpuset-hook", "--cpus=0,35,64,99", "--mems=0-1"), List.of(), 10);
    assertThat(out.get(1)).isSameAs(gpu);
    for (Device d : List.of(out.get(0), out.get(2))) {
      assertThat(d.containerEdits().env()).containsExactly("OTHER=kept", "NODEATLAS_CPUS=0,35,64,99", "NODEATLAS_NUMA_NODE=0-1");
      assertThat(d.containerEdits().hooks()).containsExactly(hook);
    }
  }

  @Test
  void aShareNextToACoreDeviceHasItsHookWidenedAndItsHugetlbLimitKept() {
    List<Device> shares = edits.devices(List.of(cpu(0, "1-2"), pages(1, 4L << 20)));
    List<Device> out = edits.unifyCpus(List.of(shares.get(0), shares.get(1), core("cpu-core-0-5", "5,21", 0)));

    assertThat(out.get(0).containerEdits().env()).contains("NODEATLAS_CPUS=1-2,5,21", "NODEATLAS_NUMA_NODE=0");
    assertThat(out.get(0).containerEdits().hooks()).singleElement().satisfies(h -> assertThat(h.args())
        .containsExactly("nodeatlas-cpuset-hook", "--cpus=1-2,5,21", "--mems=0-1", "--hugetlb=2097152:4194304"));
    assertThat(out.get(1)).isEqualTo(shares.get(1));
  }

  @Test
  void aClaimWithOneCpuDeviceIsLeftAsItIs() {
    List<Device> one = List.of(core("cpu-core-0-0", "0,64", 0));
    assertThat(edits.unifyCpus(one)).isSameAs(one);
  }
}
