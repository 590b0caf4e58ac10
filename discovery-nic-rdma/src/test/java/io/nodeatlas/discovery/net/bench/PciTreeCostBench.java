package io.nodeatlas.discovery.net.bench;

import io.nodeatlas.discovery.accel.AccelSource;
import io.nodeatlas.discovery.cpu.CpuNumaSource;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.NicRdmaSource;
import io.nodeatlas.discovery.net.fixture.GeneratedNode;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciTreeBuilder;
import io.nodeatlas.discovery.pci.PciTreeReader;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.topology.PciTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * What the PCI tree of {@code discover} (the walk of {@code /sys/devices/pci*}, the classification and
 * the pairs) adds to a whole discovery: {@link NodeDiscovery#run} with the host sources (cpu-numa,
 * nic-rdma, accel) with and without the tree, on the largest snapshot of the hwloc corpus
 * ({@code 256ppc-8n8s4t}, no PCI), the two largest with PCI, and a generated node of 16 PFs × 64 VFs
 * (1,040 PCI functions; {@code vfs-64x64} names the 4,160 of the nic-rdma benchmark). Issue 13 allows
 * the tree at most 10 % of discovery time. {@link #pciTreeAlone} times the tree by itself (the reader
 * and the builder, with the devices of one discovery), a steadier figure than the difference of the
 * two whole runs on a busy machine. Run with {@code bench/jmh-pci-tree.sh}; main() prints the ratios.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class PciTreeCostBench {

  /** An hwloc corpus snapshot, or {@code vfs-<PFs>x<VFs>} for a generated SR-IOV node. */
  @Param({"256ppc-8n8s4t", "32em64t-2n8c+1mic", "32intel64-2p8co2t+8ve", "vfs-16x64"})
  public String host;

  private Path work;
  private HostContext context;
  private final List<DiscoverySource> sources = List.of(new CpuNumaSource(), new NicRdmaSource(), new AccelSource());

  @Setup(Level.Trial)
  public void prepare() throws Exception {
    work = Files.createTempDirectory("pci-tree-bench");
    Path root;
    if (host.startsWith("vfs-")) {
      root = work;
      String[] size = host.substring(4).split("x");
      GeneratedNode.write(root, Integer.parseInt(size[0]), Integer.parseInt(size[1]));
    } else {
      root = extract(host, work);
    }
    context = HostContext.of(HostFs.of(root));
    NodeReport check = NodeDiscovery.run(sources, context, true);
    if (!host.equals("256ppc-8n8s4t") && check.topology().pci().isEmpty()) {
      throw new IllegalStateException(host + " has no PCI tree");
    }
    functions = new HashMap<>();
    for (Device d : check.devices()) {
      d.attribute(Names.PCI_BUS_ID).ifPresent(v -> functions.put(d.name(), PciAddress.parse((String) v.asObject())));
    }
  }

  private Map<String, PciAddress> functions;

  /** The PCI tree by itself: what {@link NodeDiscovery} adds after the sources ran. */
  @Benchmark
  public PciTree pciTreeAlone() {
    FactReader facts = new FactReader(context.fs(), w -> { });
    return PciTreeBuilder.build(new PciTreeReader(facts).read(), functions, w -> { });
  }

  @TearDown(Level.Trial)
  public void clean() throws Exception {
    new ProcessBuilder("rm", "-rf", work.toString()).inheritIO().start().waitFor();
  }

  @Benchmark
  public NodeReport withPciTree() {
    return NodeDiscovery.run(sources, context, true);
  }

  @Benchmark
  public NodeReport withoutPciTree() {
    return NodeDiscovery.run(sources, context, false);
  }

  /**
   * Extracts the snapshot as ours ({@code --no-same-owner}), so that it is read by path as a live host's
   * root-owned sysfs is, not through the directory handles a tree of another user's needs.
   */
  static Path extract(String snapshot, Path into) throws Exception {
    Path corpus = Path.of(System.getProperty("nodeatlas.conformance.dir", "../shared/conformance"), "hwloc-linux");
    Path tarball = corpus.toAbsolutePath().normalize().resolve(snapshot + ".tar.bz2");
    Process tar = new ProcessBuilder("tar", "--no-same-owner", "-xjf", tarball.toString(), "-C", into.toString()).inheritIO().start();
    if (tar.waitFor() != 0) {
      throw new IOException("tar failed on " + tarball);
    }
    try (Stream<Path> s = Files.list(into)) {
      return s.filter(Files::isDirectory).findFirst().orElseThrow();
    }
  }

  /** Runs both benchmarks on every host (or those named as arguments) and prints the PCI tree's share. */
  public static void main(String[] args) throws Exception {
    OptionsBuilder options = new OptionsBuilder();
    options.include(PciTreeCostBench.class.getSimpleName());
    options.jvmArgsAppend("-Dnodeatlas.conformance.dir=" + System.getProperty("nodeatlas.conformance.dir", "../shared/conformance"));
    if (args.length > 0) {
      options.param("host", args);
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    Map<String, double[]> byHost = new TreeMap<>();
    for (RunResult r : results) {
      double[] times = byHost.computeIfAbsent(r.getParams().getParam("host"), h -> new double[3]);
      String b = r.getParams().getBenchmark();
      times[b.endsWith("withPciTree") ? 0 : b.endsWith("withoutPciTree") ? 1 : 2] = r.getPrimaryResult().getScore();
    }
    System.out.printf("%n%-24s %14s %14s %14s %12s %12s%n", "host", "without us/op", "with us/op", "tree us/op",
        "with/without", "tree/without");
    byHost.forEach((h, t) -> System.out.printf("%-24s %14.0f %14.0f %14.0f %11.1f%% %11.1f%%%s%n", h, t[1], t[0], t[2],
        100 * (t[0] - t[1]) / t[1], 100 * t[2] / t[1], t[2] / t[1] > 0.10 ? "  (above the 10 % budget)" : ""));
  }
}
