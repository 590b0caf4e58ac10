package io.nodeatlas.discovery.cpu.bench;

import io.nodeatlas.discovery.cpu.CpuNumaSource;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
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
 * In-process {@code cpu-numa} discovery on an hwloc corpus snapshot (default: the largest,
 * 256ppc-8n8s4t, 256 CPUs), compared by {@link #main} with an {@code lstopo} process on the same tree.
 * Run with {@code bench/jmh-cpu-numa.sh}; the corpus folder comes from {@code -Dnodeatlas.conformance.dir}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CpuNumaDiscoveryBench {

  @Param("256ppc-8n8s4t")
  public String snapshot;

  private Path work;
  private HostContext host;
  private final CpuNumaSource source = new CpuNumaSource();

  @Setup(Level.Trial)
  public void extract() throws Exception {
    work = Files.createTempDirectory("cpu-numa-bench");
    host = HostContext.of(HostFs.of(extract(snapshot, work)));
  }

  @TearDown(Level.Trial)
  public void clean() throws Exception {
    new ProcessBuilder("rm", "-rf", work.toString()).inheritIO().start().waitFor();
  }

  @Benchmark
  public DiscoveryResult discover() throws io.nodeatlas.discovery.spi.DiscoveryException {
    host.fs().forgetResolvedDirectories(); // as NodeDiscovery does before every run
    return source.discover(host);
  }

  static Path corpus() {
    return Path.of(System.getProperty("nodeatlas.conformance.dir", "../shared/conformance"), "hwloc-linux")
        .toAbsolutePath().normalize();
  }

  /**
   * Extracts the snapshot as ours ({@code --no-same-owner}), so that it is read by path as a live host's
   * root-owned sysfs is, not through the directory handles a tree of another user's needs.
   */
  static Path extract(String snapshot, Path into) throws Exception {
    Path tarball = corpus().resolve(snapshot + ".tar.bz2");
    Process tar = new ProcessBuilder("tar", "--no-same-owner", "-xjf", tarball.toString(), "-C", into.toString()).inheritIO().start();
    if (tar.waitFor() != 0) {
      throw new IOException("tar failed on " + tarball);
    }
    try (Stream<Path> s = Files.list(into)) {
      return s.filter(Files::isDirectory).findFirst().orElseThrow();
    }
  }

  /** Runs the JMH benchmark, then times {@code lstopo} on the same snapshot and prints the ratio. */
  public static void main(String[] args) throws Exception {
    String snapshot = args.length > 0 ? args[0] : "256ppc-8n8s4t";
    Collection<RunResult> results = new Runner(new OptionsBuilder()
        .include(CpuNumaDiscoveryBench.class.getSimpleName())
        .param("snapshot", snapshot)
        .jvmArgsAppend("-Dnodeatlas.conformance.dir=" + corpus().getParent())
        .build()).run();
    double inProcessMicros = results.iterator().next().getPrimaryResult().getScore();

    Path work = Files.createTempDirectory("cpu-numa-bench-lstopo");
    Path root = extract(snapshot, work);
    List<Long> nanos = new ArrayList<>();
    for (int i = 0; i < 11; i++) {
      ProcessBuilder pb = new ProcessBuilder("lstopo-no-graphics", "--of", "xml", "-")
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
      pb.environment().put("HWLOC_COMPONENTS", "linux,stop");
      pb.environment().put("HWLOC_FSROOT", root.toString());
      long start = System.nanoTime();
      int rc = pb.start().waitFor();
      long took = System.nanoTime() - start;
      if (rc != 0) {
        throw new IOException("lstopo failed: " + rc);
      }
      nanos.add(took);
    }
    new ProcessBuilder("rm", "-rf", work.toString()).start().waitFor();
    Collections.sort(nanos);
    double lstopoMicros = nanos.get(nanos.size() / 2) / 1000.0;
    System.out.printf("%nsnapshot %s: in-process cpu-numa discovery %.0f us/op; lstopo process (median of %d) %.0f us;"
        + " lstopo / in-process = %.1fx (aim >= 10x)%n", snapshot, inProcessMicros, nanos.size(), lstopoMicros,
        lstopoMicros / inProcessMicros);
  }
}
