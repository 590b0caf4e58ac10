package io.nodeatlas.discovery.host.bench;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.testing.CpuTimedRuns;
import java.nio.file.Path;
import java.util.List;

/**
 * The Java side of bench/live-sysfs.sh: reads every file and lists every directory of a
 * bench/floor-reader.c list ("F path" / "D path") through {@link HostFs} with {@code /} as the host
 * root, forgetting the resolved directories before each round as a discovery run does, and prints
 * {@link CpuTimedRuns}'s "&lt;wall&gt; &lt;thread&gt; &lt;process&gt;" microseconds per round.
 *
 * <p>Arguments: {@code <list> <warm-up rounds> <rounds>}.
 */
public final class ListRead {

  private ListRead() {}

  public static void main(String[] args) throws Exception {
    FloorList list = FloorList.read(Path.of(args[0]));
    List<Path> files = list.files();
    List<Path> dirs = list.dirs();
    HostFs fs = HostFs.of(Path.of("/"));
    long[] sink = new long[1];
    System.out.println(CpuTimedRuns.measure(Integer.parseInt(args[1]), Integer.parseInt(args[2]), () -> {
      fs.forgetResolvedDirectories();
      for (Path d : dirs) {
        sink[0] += fs.listNames(d).size();
      }
      for (Path f : files) {
        try {
          sink[0] += fs.readString(f).map(String::length).orElse(0);
        } catch (HostFileException e) {
          sink[0]++; // an attribute that refuses reads: the floor's open fails too
        }
      }
    }));
    if (sink[0] == 0) {
      System.err.println("nothing read");
    }
  }
}
