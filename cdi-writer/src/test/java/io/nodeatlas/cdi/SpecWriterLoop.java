package io.nodeatlas.cdi;

import io.nodeatlas.discovery.model.Device;
import java.nio.file.Path;
import java.util.List;

/**
 * A process that rewrites spec files with {@link CdiSpecWriter} as fast as it can until it is killed;
 * {@link CdiSpecWriterCrashTest} runs it and kills it with SIGKILL at random points. Alternates between
 * two different contents (all devices / the first few) so every write really replaces the file.
 */
public final class SpecWriterLoop {

  private SpecWriterLoop() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    List<Device> all = SyntheticNode.devices();
    List<CdiSpecFile> big = CdiSpecGenerator.builder().build().generate(all).specs();
    List<CdiSpecFile> small = CdiSpecGenerator.builder().build().generate(all.subList(0, 3)).specs();
    CdiSpecGenerator generator = CdiSpecGenerator.builder().build();
    CdiSpecWriter writer = new CdiSpecWriter();
    for (long i = 0; ; i++) {
      writer.reconcile(dir, i % 2 == 0 ? big : small, generator.ownership());
      if (i == 0) {
        System.out.println("ready");
      }
      // One line per reconcile: the test kills after a random number of them, not after a delay.
      System.out.println("wrote");
      System.out.flush();
    }
  }
}
