package io.nodeatlas.discovery.cpu.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.cpu.CpuNumaDevices;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.doctor.KubeletFacts;
import io.nodeatlas.discovery.doctor.NodeLayout;
import io.nodeatlas.discovery.doctor.Verdict;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reserved hugepages against the pools the family publishes. */
class HugepagesCheckTest {

  @TempDir Path root;

  private List<Finding> check(List<Device> pools) {
    DoctorContext ctx = new DoctorContext(HostContext.of(HostFs.of(root)),
        new NodeLayout("nodeatlas.io", "/var/run/cdi", "/var/lib/nodeatlas", "/var/lib/kubelet", "/h", Optional.empty()),
        pools, KubeletFacts.none());
    return new HugepagesCheck().run(ctx);
  }

  private static Device pool(String name, long pageBytes, long pages) {
    return Device.builder(name, CpuNumaDevices.SOURCE)
        .attribute(Device.TYPE, CpuNumaDevices.HUGEPAGES_TYPE)
        .attribute(CpuNumaDevices.PAGE_SIZE_BYTES, pageBytes)
        .capacity(CpuNumaDevices.MEMORY_CAPACITY, pageBytes * pages)
        .build();
  }

  @Test
  void nothingReservedIsFine() {
    assertThat(check(List.of())).singleElement().satisfies(f -> assertThat(f.saw()).isEqualTo("no hugepages reserved"));
  }

  @Test
  void everyReservedPageInAPoolIsFine() {
    FixtureTree.at(root).value("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", 16);
    assertThat(check(List.of(pool("hugepages-2mi-numa0", 2 << 20, 8), pool("hugepages-2mi-numa1", 2 << 20, 8))))
        .singleElement().satisfies(f -> {
          assertThat(f.verdict()).isEqualTo(Verdict.OK);
          assertThat(f.saw()).isEqualTo("reserved and published: 16 × 2Mi in 2 pools");
        });
  }

  @Test
  void reservedPagesNobodyCanClaimAreNamed() {
    FixtureTree.at(root).value("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", 16)
        .value("sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", 2);
    List<Finding> found = check(List.of(pool("hugepages-2mi-numa0", 2 << 20, 8)));
    assertThat(found).extracting(Finding::verdict).containsOnly(Verdict.WARN);
    assertThat(found).extracting(Finding::saw).containsExactlyInAnyOrder(
        "2 pages of 1Gi are reserved, and no pool of them is published",
        "16 pages of 2Mi are reserved, and pools of only 8 are published");
    assertThat(found.get(0).fix()).contains("nodeatlas discover --sources cpu-numa says why");
  }
}
