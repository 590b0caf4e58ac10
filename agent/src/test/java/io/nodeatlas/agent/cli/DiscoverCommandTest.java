package io.nodeatlas.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code nodeatlas discover} as a user runs it: flags, formats, exit statuses and stderr. */
class DiscoverCommandTest {

  @TempDir Path root;

  record Result(int status, String out, String err) {}

  static Result run(String... args) {
    CommandLine cl = NodeAtlasCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int status = cl.execute(args);
    return new Result(status, out.toString(), err.toString());
  }

  @BeforeEach
  void smallHost() {
    // A two-CPU host with one NUMA node and one 2 MiB hugepage pool (the sysfs layout of
    // rdma-nic-hugepages.md §3-4).
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
    assertThat(r.err()).contains("Unknown option: '--colour'").contains("nodeatlas discover --help");
  }

  @Test
  void aFailedSourceExitsOneButStillPrintsTheRest() throws Exception {
    // The failing source is registered through a services file on an extra class path entry, so only
    // this process sees it.
    FixtureTree.at(root.resolve("extra-cp"))
        .value("META-INF/services/io.nodeatlas.discovery.spi.DiscoverySource", FailingTestSource.class.getName());
    Result r = runProcess(java.util.Map.of(), root.resolve("extra-cp"), "discover", "--host-root", root.toString(),
        "--sources", "cpu-numa,test-failing");
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err().lines().filter(l -> l.startsWith("nodeatlas:"))).containsExactly(
        "nodeatlas: test-failing: source failed: cannot open " + root.resolve("sys/class/test") + ": permission denied");
    NodeReport report = new NodeReportCodec().fromJson(r.out());
    assertThat(report.sources().get("test-failing").isFailed()).isTrue();
    assertThat(report.sources()).containsEntry("cpu-numa", SourceStatus.OK);
    assertThat(report.devices()).isNotEmpty();
  }

  /** Runs {@code nodeatlas} as a separate JVM with the test class path (plus {@code extraClassPath}). */
  static Result runProcess(java.util.Map<String, String> env, Path extraClassPath, String... args) throws Exception {
    java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path") + (extraClassPath == null ? "" : java.io.File.pathSeparator + extraClassPath),
        Main.class.getName()));
    command.addAll(java.util.List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(env);
    Process p = pb.start();
    java.util.concurrent.CompletableFuture<byte[]> err =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    int status = p.waitFor();
    return new Result(status, out, new String(err.get(), java.nio.charset.StandardCharsets.UTF_8));
  }

  private static byte[] readAll(java.io.InputStream in) {
    try {
      return in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void envTwinSelectsTheHostRoot() throws Exception {
    // Env twins are resolved by picocli from the real environment, so run a real process.
    Result r = runProcess(java.util.Map.of("NODEATLAS_HOST_ROOT", root.toString()), null,
        "discover", "--sources", "cpu-numa", "-o", "json");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(new NodeReportCodec().fromJson(r.out()).host().hostname()).isEqualTo("fixture-node");
  }
}
