package io.nodeatlas.discovery.cpu.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.nodeatlas.discovery.cpu.Discover;
import io.nodeatlas.discovery.cpu.OddMachines;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.testing.Conformance;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hwloc's own answer on our {@link OddMachines} trees: lstopo, run as the corpus test runs it, agrees
 * with {@code discover} under the rules of {@link HwlocConformanceTest}, and shows the behaviour each
 * class of machine is about (so the trees test hwloc's reading, not only ours).
 */
class OddMachinesLstopoTest {

  @TempDir
  Path root;

  @BeforeEach
  void needsLstopo() {
    Conformance.requireTool("lstopo", HwlocConformanceTest.isInstalled());
  }

  private LstopoXml lstopo(String machine) throws Exception {
    OddMachines.write(machine, root);
    return LstopoXml.parse(HwlocConformanceTest.lstopo(root));
  }

  private static CpuSet cpus(String list) {
    return CpuListParser.parse(list);
  }

  private static List<String> cpusets(LstopoXml hwloc, String type) {
    return hwloc.ofType(type).stream().map(o -> o.cpuset().toString()).sorted().toList();
  }

  @Test
  void everyOddMachineAgreesWithLstopo() throws Exception {
    for (String machine : OddMachines.NAMES) {
      Path dir = root.resolve(machine);
      OddMachines.write(machine, dir);
      LstopoXml hwloc = LstopoXml.parse(HwlocConformanceTest.lstopo(dir));
      Topology ours = Discover.run(HostContext.of(HostFs.of(dir))).topology().orElseThrow();
      assertThat(HwlocConformanceTest.compare(ours, hwloc, dir)).as(machine).isEmpty();
    }
  }

  @Test
  void hwlocGroupsBySiblingMasksAndKeepsTheRepeatedIds() throws Exception {
    LstopoXml hwloc = lstopo("sibling-masks");
    assertThat(hwloc.ofType("Package")).extracting(LstopoXml.Obj::osIndex, LstopoXml.Obj::cpuset)
        .containsExactly(tuple(0, cpus("0-3")), tuple(0, cpus("4-7")));
    assertThat(hwloc.ofType("Core")).extracting(LstopoXml.Obj::osIndex).containsOnly(0);
    assertThat(cpusets(hwloc, "Core")).containsExactly("0-1", "2-3", "4-5", "6-7");
  }

  @Test
  void hwlocGivesAnEmptySharingMaskToTheCoreAndFollowsTheMap() throws Exception {
    LstopoXml hwloc = lstopo("cache-masks");
    assertThat(cpusets(hwloc, "L1Cache")).containsExactly("0-1", "2-3");
    assertThat(cpusets(hwloc, "L2Cache")).containsExactly("0-1", "2-3");
    assertThat(cpusets(hwloc, "L3Cache")).containsExactly("0-3");
  }

  @Test
  void hwlocKeepsTheMemoryOfANodeWithABadMeminfoLine() throws Exception {
    LstopoXml hwloc = lstopo("meminfo-bad-line");
    assertThat(hwloc.ofType("NUMANode")).extracting(o -> o.element().getAttribute("local_memory"))
        .containsExactly(Long.toString(2048L << 20), Long.toString(2048L << 20));
  }

  @Test
  void hwlocShowsNodeZeroWithoutNuma() throws Exception {
    LstopoXml hwloc = lstopo("without-numa");
    assertThat(hwloc.ofType("NUMANode")).singleElement().satisfies(n -> {
      assertThat(n.osIndex()).isZero();
      assertThat(n.cpuset()).isEqualTo(cpus("0-3"));
      assertThat(n.element().getAttribute("local_memory")).isEqualTo(Long.toString(8000000L << 10));
    });
  }

  @Test
  void hwlocAttachesMemoryOnlyNodesToTheirInitiatorsCpus() throws Exception {
    LstopoXml hwloc = lstopo("hbm-cxl");
    assertThat(hwloc.ofType("NUMANode")).extracting(LstopoXml.Obj::osIndex, LstopoXml.Obj::cpuset).containsExactlyInAnyOrder(
        tuple(0, cpus("0-3")), tuple(1, cpus("4-7")),
        tuple(2, cpus("0-3")), tuple(3, cpus("4-7")),
        tuple(4, cpus("0-3")));
  }
}
