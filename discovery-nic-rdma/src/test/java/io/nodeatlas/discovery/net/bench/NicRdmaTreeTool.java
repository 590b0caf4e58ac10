package io.nodeatlas.discovery.net.bench;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.NicRdmaSource;
import io.nodeatlas.discovery.net.fixture.GeneratedNode;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.testing.CpuTimedRuns;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The benchmark's node outside JMH, for bench/inprocess.sh: {@code write <dir> <pfs>} lays out the
 * same generated node as {@link NicRdmaDiscoveryBenchmark} (pfs × 64 VFs); {@code discover <dir> <runs>}
 * runs discovery on it, so that the files one run opens can be recorded (strace) and replayed by the
 * C reader that is the floor; {@code time <dir> <warmup> <runs>} prints the median wall and process CPU
 * microseconds per discovery ({@link CpuTimedRuns}).
 */
public final class NicRdmaTreeTool {

  private NicRdmaTreeTool() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[1]);
    switch (args[0]) {
      case "write" -> {
        Files.createDirectories(root);
        GeneratedNode.write(root, Integer.parseInt(args[2]), NicRdmaDiscoveryBenchmark.VFS_PER_PF);
      }
      case "discover" -> {
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        HostContext host = HostContext.of(HostFs.of(root));
        DiscoveryResult last = null;
        for (int i = 0; i < runs; i++) {
          host.fs().forgetResolvedDirectories(); // as NodeDiscovery does before every run
          last = new NicRdmaSource().discover(host);
        }
        System.out.println(last.devices().size() + " devices, " + last.warnings().size() + " warnings");
      }
      case "time" -> {
        HostContext host = HostContext.of(HostFs.of(root));
        NicRdmaSource source = new NicRdmaSource();
        System.out.println(CpuTimedRuns.measure(Integer.parseInt(args[2]), Integer.parseInt(args[3]), () -> {
          host.fs().forgetResolvedDirectories(); // as NodeDiscovery does before every run
          source.discover(host);
        }));
      }
      default -> throw new IllegalArgumentException("write <dir> <pfs> | discover <dir> [runs] | time <dir> <warmup> <runs>");
    }
  }
}
