package io.nodeatlas.cli.slices;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.testing.Conformance;
import io.nodeatlas.discovery.topology.Topology;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nodeatlas slices} over every hwloc snapshot of the conformance corpus: what it prints passes
 * the API's rules ({@link io.nodeatlas.agent.slices.SliceValidator}) and publishes every CPU and every
 * hugepage pool the host has. The expectation comes from the topology the same discovery reads, not
 * from the devices: each NUMA node's online CPUs (the host's, where the kernel has no NUMA) and each
 * pool with pages, by node and page size. Before the request policies of one CPU and one page were
 * accepted, three snapshots lost devices here (20s390-2g6s4c, 2i386-2t-hugepagesizecount,
 * 4fake-4gr1nu1pu).
 */
class SlicesConformanceTest {

  private static final String CPU = "nodeatlas.io/cpu";
  private static final String MEMORY = "nodeatlas.io/memory";
  private static final String TYPE = "nodeatlas.io/type";
  private static final String NUMA_NODE = "resource.kubernetes.io/numaNode";
  private static final String PAGE_SIZE_BYTES = "nodeatlas.io/pageSizeBytes";

  @Test
  void everySnapshotsSlicesAreValidAndPublishEveryCpuAndHugepagePool(@TempDir Path work) throws Exception {
    Path corpus = Conformance.corpus("hwloc-linux");
    List<Path> tarballs;
    try (Stream<Path> s = Files.list(corpus)) {
      tarballs = s.filter(p -> p.getFileName().toString().endsWith(".tar.bz2")).sorted().toList();
    }
    assertThat(tarballs).isNotEmpty();
    List<String> failures = new ArrayList<>();
    int pools = 0;
    for (Path tarball : tarballs) {
      String name = tarball.getFileName().toString().replace(".tar.bz2", "");
      Path dir = Files.createDirectories(work.resolve(name));
      Process tar = new ProcessBuilder("tar", "-xjf", tarball.toString(), "-C", dir.toString()).inheritIO().start();
      assertThat(tar.waitFor(120, TimeUnit.SECONDS) && tar.exitValue() == 0).as("tar " + tarball).isTrue();
      Path root;
      try (Stream<Path> s = Files.list(dir)) {
        root = s.filter(Files::isDirectory).findFirst().orElseThrow();
      }
      Topology t = NodeDiscovery.run(NodeAtlasCommand.installedSources().select("cpu-numa"),
          HostContext.of(HostFs.of(root))).topology();

      Result r = run("slices", "--host-root", root.toString(), "--sources", "cpu-numa", "--node-name", "conformance",
          "-o", "yaml");
      if (r.status() != 0) {
        failures.add(name + ": exit " + r.status() + ": " + r.err());
        continue;
      }
      if (r.err().contains("left out")) {
        failures.add(name + ": " + r.err().strip());
      }
      List<ResourceSlice> slices = SlicesCommandTest.fromYaml(r.out());
      List<Device> devices = new ArrayList<>();
      for (ResourceSlice s : slices) {
        List<String> problems = io.nodeatlas.agent.slices.SliceValidator.sliceProblems(s);
        if (!problems.isEmpty()) {
          failures.add(name + ": " + problems);
        }
        devices.addAll(s.getSpec().getDevices());
      }

      Map<String, BigDecimal> cpusWanted = new TreeMap<>();
      Map<String, BigDecimal> cpusPublished = new TreeMap<>();
      List<Topology.NumaNodeInfo> cpuNodes = t.numaNodes().stream().filter(n -> !n.cpus().isEmpty()).toList();
      boolean byNode = devices.stream().anyMatch(d -> is(d, "cpu") && d.getAttributes().containsKey(NUMA_NODE));
      if (byNode) {
        cpuNodes.forEach(n -> cpusWanted.put("node" + n.id(), BigDecimal.valueOf(n.cpus().size())));
      } else {
        cpusWanted.put("host", BigDecimal.valueOf(t.cpus().online().size()));
      }
      for (Device d : devices) {
        if (is(d, "cpu")) {
          String key = byNode ? "node" + d.getAttributes().get(NUMA_NODE).getInt() : "host";
          cpusPublished.merge(key, d.getCapacity().get(CPU).getValue().getNumericalAmount(), BigDecimal::add);
        }
      }
      if (!cpusWanted.equals(cpusPublished)) {
        failures.add(name + ": CPUs " + cpusWanted + ", published " + cpusPublished);
      }

      Map<String, BigDecimal> poolsWanted = new TreeMap<>();
      // Without kernel NUMA (no sys/devices/system/node) the topology's node 0 is a view; pools are the host's.
      boolean kernelNuma = Files.isDirectory(root.resolve("sys/devices/system/node"));
      boolean perNode = kernelNuma && t.numaNodes().stream().anyMatch(n -> !n.hugepages().isEmpty());
      if (perNode) {
        for (Topology.NumaNodeInfo n : t.numaNodes()) {
          for (Topology.HugepagePool p : n.hugepages()) {
            if (p.total() > 0) {
              poolsWanted.put(n.id() + "/" + p.pageSizeBytes(), bytes(p.total(), p.pageSizeBytes()));
            }
          }
        }
      } else {
        for (Topology.HugepageSize p : t.hugepages()) {
          if (p.total() > 0) {
            poolsWanted.put("host/" + p.pageSizeBytes(), bytes(p.total(), p.pageSizeBytes()));
          }
        }
      }
      Map<String, BigDecimal> poolsPublished = new TreeMap<>();
      for (Device d : devices) {
        if (is(d, "hugepages")) {
          var node = d.getAttributes().get(NUMA_NODE);
          String where = node != null && perNode ? node.getInt().toString() : "host";
          poolsPublished.put(where + "/" + d.getAttributes().get(PAGE_SIZE_BYTES).getInt(),
              d.getCapacity().get(MEMORY).getValue().getNumericalAmount());
        }
      }
      if (!poolsWanted.equals(poolsPublished)) {
        failures.add(name + ": hugepage pools " + poolsWanted + ", published " + poolsPublished);
      }
      pools += poolsWanted.size();
    }
    System.out.printf("slices conformance: %d snapshots, %d hugepage pools%n", tarballs.size(), pools);
    assertThat(failures).as("snapshots whose slices are invalid or leave out CPUs or pools").isEmpty();
  }

  private static boolean is(Device d, String type) {
    var a = d.getAttributes().get(TYPE);
    return a != null && type.equals(a.getString());
  }

  private static BigDecimal bytes(long pages, long pageSize) {
    return BigDecimal.valueOf(pages).multiply(BigDecimal.valueOf(pageSize));
  }
}
