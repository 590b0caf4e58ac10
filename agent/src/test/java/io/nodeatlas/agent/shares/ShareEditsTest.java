package io.nodeatlas.agent.shares;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.testing.ShareFixtures;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.parse.CpuListParser;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ShareEditsTest {

  final ShareEdits edits = new ShareEdits("/opt/hooks/cpuset-hook");

  static ShareEdits.Placed cpu(int node, String cpus) {
    SharedDevice d = SharedDevice.of(ShareFixtures.cpuDevice(node, node == 0 ? "1-7,17-23" : "9-15,25-31"), ShareFixtures.topology());
    return new ShareEdits.Placed(d, new HeldShare("u", d.name(), "share-" + node, new TreeMap<>(Map.of("nodeatlas.io/cpu",
        BigDecimal.valueOf(CpuListParser.parse(cpus).size()))), CpuListParser.parse(cpus)));
  }

  static ShareEdits.Placed pages(int node, long bytes) {
    SharedDevice d = SharedDevice.of(ShareFixtures.hugepages(node, 64), ShareFixtures.topology());
    return new ShareEdits.Placed(d, new HeldShare("u", d.name(), "pages-" + node, new TreeMap<>(Map.of("nodeatlas.io/memory",
        BigDecimal.valueOf(bytes))), null));
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

  @Test
  void shareDeviceNamesAreDistinctDnsLabels() {
    String longName = "a".repeat(60);
    assertThat(ShareEdits.deviceName(longName, "x")).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    assertThat(ShareEdits.deviceName("cpu-numa0", "x")).isNotEqualTo(ShareEdits.deviceName("cpu-numa0", "y"))
        .startsWith("cpu-numa0-s");
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
