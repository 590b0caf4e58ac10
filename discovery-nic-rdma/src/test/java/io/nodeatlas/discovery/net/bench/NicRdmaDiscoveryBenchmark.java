package io.nodeatlas.discovery.net.bench;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.NicRdmaSource;
import io.nodeatlas.discovery.net.fixture.GeneratedNode;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collection;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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
 * Whole {@code nic-rdma} discovery on a generated node of {@code pfs} PFs × 64 VFs, every VF with its
 * own RDMA device (4 PFs = 256 VFs up to 64 PFs = 4,096 VFs). Run with bench/jmh-nic-rdma.sh; main()
 * prints the time per size and how it grows relative to 256 VFs (linear growth = ratio ≈ VF ratio).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// One fixed heap for every size (see bench/inprocess.sh, NIC_HEAP): G1 would otherwise size the young
// generation per fork from that fork's allocation rate, so the sizes would run under different settings.
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class NicRdmaDiscoveryBenchmark {

  static final int VFS_PER_PF = 64;

  @Param({"4", "16", "64"})
  public int pfs;

  private Path root;
  private HostContext host;
  private final NicRdmaSource source = new NicRdmaSource();

  /** Trees made beforehand ({@code -Dnodeatlas.bench.trees=DIR}, one {@code DIR/pfs<N>} per size) are read, not written. */
  private boolean generated;

  @Setup(Level.Trial)
  public void generate() throws Exception {
    String trees = System.getProperty("nodeatlas.bench.trees");
    if (trees != null && Files.isDirectory(Path.of(trees, "pfs" + pfs))) {
      root = Path.of(trees, "pfs" + pfs);
    } else {
      root = Files.createTempDirectory("nic-rdma-bench");
      GeneratedNode.write(root, pfs, VFS_PER_PF);
      generated = true;
    }
    host = HostContext.of(HostFs.of(root));
    DiscoveryResult check = source.discover(host);
    int expected = pfs * (VFS_PER_PF + 1);
    if (check.devices().size() != expected || !check.warnings().isEmpty()) {
      throw new IllegalStateException("generated node published " + check.devices().size() + " devices (expected "
          + expected + ") with warnings " + check.warnings());
    }
  }

  @Benchmark
  public DiscoveryResult discover() throws Exception {
    // As NodeDiscovery does before every run: without it the smaller nodes, whose directories all
    // fit HostFs's memo, would be measured with no directory resolved, and the curve would lie.
    host.fs().forgetResolvedDirectories();
    return source.discover(host);
  }

  @TearDown(Level.Trial)
  public void delete() throws IOException {
    if (!generated) {
      return;
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
        Files.delete(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  public static void main(String[] args) throws Exception {
    OptionsBuilder options = new OptionsBuilder();
    options.include(NicRdmaDiscoveryBenchmark.class.getSimpleName());
    if (args.length > 0) {
      options.param("pfs", args);
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    TreeMap<Integer, Double> msByVfs = new TreeMap<>();
    for (RunResult r : results) {
      int vfs = Integer.parseInt(r.getParams().getParam("pfs")) * VFS_PER_PF;
      msByVfs.put(vfs, r.getPrimaryResult().getScore());
    }
    int baseVfs = msByVfs.firstKey();
    double baseMs = msByVfs.firstEntry().getValue();
    System.out.printf("%n%8s %12s %12s %14s %14s%n", "VFs", "ms/discover", "us/VF", "VF ratio", "time ratio");
    msByVfs.forEach((vfs, ms) -> System.out.printf("%8d %12.1f %12.1f %14.1f %14.2f%n",
        vfs, ms, ms * 1000 / vfs, (double) vfs / baseVfs, ms / baseMs));
  }
}
