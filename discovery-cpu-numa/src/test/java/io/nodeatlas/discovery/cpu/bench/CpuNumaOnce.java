package io.nodeatlas.discovery.cpu.bench;

import io.nodeatlas.discovery.cpu.CpuNumaSource;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.testing.CpuTimedRuns;
import java.nio.file.Path;

/**
 * {@code <root> [runs]}: in-process cpu-numa discovery of an extracted snapshot, outside JMH, so that
 * bench/inprocess.sh can record which files one run opens (strace) for the C reader that is the floor;
 * {@code <root> <warmup> <runs>} prints the median wall and process CPU microseconds per discovery.
 */
public final class CpuNumaOnce {

  private CpuNumaOnce() {}

  public static void main(String[] args) throws Exception {
    HostContext host = HostContext.of(HostFs.of(Path.of(args[0])));
    if (args.length > 2) {
      CpuNumaSource source = new CpuNumaSource();
      System.out.println(CpuTimedRuns.measure(Integer.parseInt(args[1]), Integer.parseInt(args[2]), () -> {
        host.fs().forgetResolvedDirectories(); // as NodeDiscovery does before every run
        source.discover(host);
      }));
      return;
    }
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    DiscoveryResult last = null;
    for (int i = 0; i < runs; i++) {
      last = new CpuNumaSource().discover(host);
    }
    System.out.println(last.devices().size() + " devices, " + last.warnings().size() + " warnings");
  }
}
