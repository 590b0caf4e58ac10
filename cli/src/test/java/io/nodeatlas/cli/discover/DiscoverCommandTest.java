package io.nodeatlas.cli.discover;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static io.nodeatlas.cli.testing.NodeAtlasRun.runProcess;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code nodeatlas discover} as a user runs it: flags, formats, exit statuses and stderr. */
class DiscoverCommandTest {

  @TempDir Path root;

  @BeforeEach
  void smallHost() {
    smallHost(root);
  }

  /**
   * A two-CPU host with one NUMA node and one 2 MiB hugepage pool, mounted (Documentation/ABI/stable/
   * sysfs-devices-node, Documentation/admin-guide/mm/hugetlbpage.rst).
   */
  static void smallHost(Path root) {
    FixtureTree.at(root)
        .value("proc/sys/kernel/hostname", "fixture-node")
        .value("proc/sys/kernel/osrelease", "6.8.0-test")
        .value("sys/devices/system/cpu/online", "0-1")
        .value("sys/devices/system/cpu/possible", "0-1")
        .value("sys/devices/system/cpu/present", "0-1")
        .file("sys/devices/system/cpu/offline", "\n")
        .value("sys/devices/system/cpu/cpu0/topology/physical_package_id", 0)
        .value("sys/devices/system/cpu/cpu0/topology/core_id", 0)
        .value("sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0")
        .value("sys/devices/system/cpu/cpu1/topology/physical_package_id", 0)
        .value("sys/devices/system/cpu/cpu1/topology/core_id", 1)
        .value("sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1")
        .value("sys/devices/system/node/online", "0")
        .value("sys/devices/system/node/possible", "0")
        .value("sys/devices/system/node/node0/cpulist", "0-1")
        .value("sys/devices/system/node/node0/distance", "10")
        .file("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:  1024 kB\nNode 0 MemFree:  512 kB\n")
        .value("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", 4)
        .value("sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", 4)
        .value("sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages", 0)
        .value("sys/kernel/mm/hugepages/hugepages-2048kB/surplus_hugepages", 0)
        .value("sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", 4)
        .value("sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages", 4)
        .value("sys/devices/system/node/node0/hugepages/hugepages-2048kB/surplus_hugepages", 0)
        .file("proc/mounts", "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n")
        .file("proc/meminfo", "MemTotal: 1024 kB\nHugepagesize:       2048 kB\n");
  }

  @Test
  void jsonIsTheDefaultAndDescribesTheHostRoot() {
    Result r = run("discover", "--host-root", root.toString(), "--sources", "cpu-numa");
    assertThat(r.status()).as(r.err()).isZero();
    NodeReport report = new NodeReportCodec().fromJson(r.out());
    assertThat(report.host().hostname()).isEqualTo("fixture-node");
    assertThat(report.host().kernel()).isEqualTo("6.8.0-test");
    assertThat(report.sources()).containsEntry("cpu-numa", SourceStatus.OK);
    assertThat(report.topology().cpus().online().toString()).isEqualTo("0-1");
    assertThat(report.devices()).isNotEmpty().allSatisfy(d -> assertThat(d.source()).isEqualTo("cpu-numa"));
  }

  @Test
  void outputIsByteIdenticalAcrossRuns() {
    Result first = run("discover", "--host-root", root.toString(), "--sources", "cpu-numa", "-o", "yaml");
    Result second = run("discover", "--host-root", root.toString(), "--sources", "cpu-numa", "-o", "yaml");
    assertThat(first.status()).isZero();
    assertThat(first.out()).isEqualTo(second.out()).contains("schemaVersion: v1");
  }

  @Test
  void tableIsAligned() {
    Result r = run("discover", "--host-root", root.toString(), "--sources", "cpu-numa", "--format", "table");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("HOST fixture-node").contains("CPUS online 0-1");
    String header = r.out().lines().filter(l -> l.startsWith("DEVICE")).findFirst().orElseThrow();
    String firstRow = r.out().lines().dropWhile(l -> !l.startsWith("DEVICE")).skip(1).findFirst().orElseThrow();
    assertThat(firstRow.indexOf(" cpu-numa ") + 1).isEqualTo(header.indexOf("SOURCE"));
  }

  @Test
  void unknownSourceIsBadUsage() {
    Result r = run("discover", "--host-root", root.toString(), "--sources", "all,-tpu");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("unknown source 'tpu'").contains("cpu-numa");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void missingHostRootIsBadUsage() {
    Result r = run("discover", "--host-root", root.resolve("nope").toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--host-root").contains("is not a directory");
  }

  @Test
  void unknownFlagIsBadUsageWithAHint() {
    Result r = run("discover", "--colour");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("unknown option '--colour'").contains("Did you mean '--color'?")
        .contains("nodeatlas discover --help");
  }

  @Test
  void aFailedSourceExitsOneButStillPrintsTheRest() throws Exception {
    // The failing source is registered through a services file on an extra class path entry, so only
    // this process sees it.
    FixtureTree.at(root.resolve("extra-cp"))
        .value("META-INF/services/io.nodeatlas.discovery.spi.DiscoverySource", FailingTestSource.class.getName());
    Result r = runProcess(Map.of(), root.resolve("extra-cp"), "discover", "--host-root", root.toString(),
        "--sources", "cpu-numa,test-failing");
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err().lines().filter(l -> l.startsWith("nodeatlas:"))).containsExactly(
        "nodeatlas: test-failing: source failed: cannot open " + root.resolve("sys/class/test") + ": permission denied");
    NodeReport report = new NodeReportCodec().fromJson(r.out());
    // The document keeps the state; the reason is on stderr above.
    assertThat(report.sources().get("test-failing").state()).isEqualTo(SourceStatus.State.FAILED);
    assertThat(report.sources()).containsEntry("cpu-numa", SourceStatus.OK);
    assertThat(report.devices()).isNotEmpty();
  }

  @Test
  void theReasonASourceFailedOrWasUnavailableComesFromItsStatus() {
    DiscoverySource noWidgets = new DiscoverySource() {
      @Override
      public String name() {
        return "widgets";
      }

      @Override
      public Availability availability(HostContext host) {
        return Availability.unavailable("no widget bus on this host");
      }

      @Override
      public DiscoveryResult discover(HostContext host) {
        throw new AssertionError("an unavailable source is not run");
      }
    };
    DiscoverySources sources = DiscoverySources.of(List.of(noWidgets, new FailingTestSource()));
    Result r = run(sources, "discover", "--host-root", root.toString(), "-o", "table");
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).isEqualTo(
        "nodeatlas: test-failing: source failed: cannot open " + root.resolve("sys/class/test") + ": permission denied\n");
    assertThat(r.out().lines()).contains(
        "SOURCE         STATUS        REASON",
        "test-failing   failed        cannot open " + root.resolve("sys/class/test") + ": permission denied",
        "widgets        unavailable   no widget bus on this host");
  }

  @Test
  void envTwinSelectsTheHostRoot() throws Exception {
    // Env twins are resolved by picocli from the real environment, so run a real process.
    Result r = runProcess(Map.of("NODEATLAS_HOST_ROOT", root.toString()), null,
        "discover", "--sources", "cpu-numa", "-o", "json");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(new NodeReportCodec().fromJson(r.out()).host().hostname()).isEqualTo("fixture-node");
  }
}
