package io.nodeatlas.discovery.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where a host's files are, as a value: mapping host paths both ways without touching the file system. */
class HostRootsTest {

  private static final Path ROOT = Path.of("/nonexistent/host");

  @Test
  void rootsDefaultUnderTheHostRootAndNameEachOnce() {
    HostRoots roots = HostRoots.of(ROOT.resolve("a/.."));
    assertThat(roots.hostRoot()).isEqualTo(ROOT);
    assertThat(roots.sysfsRoot()).isEqualTo(ROOT.resolve("sys"));
    assertThat(roots.sys("/devices/system/cpu/online")).isEqualTo(ROOT.resolve("sys/devices/system/cpu/online"));
    assertThat(roots.proc("")).isEqualTo(ROOT.resolve("proc"));
    HostRoots same = new HostRoots(ROOT, ROOT, null, null, List.of(ROOT));
    assertThat(same.all()).containsExactly(ROOT, ROOT.resolve("proc"), ROOT.resolve("dev"));
    assertThat(roots.withRoot(Path.of("/driver/../drv")).all()).endsWith(Path.of("/drv"));
  }

  @Test
  void hostPathsMapToOursAndBack() {
    HostRoots daemonSet = new HostRoots(ROOT, Path.of("/host-sys"), Path.of("/host-proc"), null, List.of());
    assertThat(daemonSet.hostPath(Path.of("/host-sys/devices/system/cpu/online"))).isEqualTo("/sys/devices/system/cpu/online");
    assertThat(daemonSet.hostPath(Path.of("/host-proc"))).isEqualTo("/proc");
    assertThat(daemonSet.hostPath(ROOT.resolve("dev/nvidia0"))).isEqualTo("/dev/nvidia0");
    assertThat(daemonSet.hostPath(ROOT)).isEqualTo("/");
    assertThat(daemonSet.hostPath(Path.of("/elsewhere/x"))).isEqualTo("/elsewhere/x");
    assertThat(daemonSet.fromHostPath("/dev")).isEqualTo(ROOT.resolve("dev"));
    assertThat(daemonSet.fromHostPath("/dev/infiniband/uverbs0")).isEqualTo(ROOT.resolve("dev/infiniband/uverbs0"));
    assertThat(daemonSet.fromHostPath("/devices")).isEqualTo(ROOT.resolve("devices"));
  }

  @Test
  void linkTargetsResolveInsideTheHostTree() {
    HostRoots roots = HostRoots.of(ROOT);
    Path link = ROOT.resolve("sys/bus/pci/devices/0000:16:00.0");
    assertThat(roots.resolveLinkTarget(link, Path.of("../../../devices/pci0000:15/0000:16:00.0")))
        .isEqualTo(ROOT.resolve("sys/devices/pci0000:15/0000:16:00.0"));
    assertThat(roots.resolveLinkTarget(link, Path.of("/sys/devices/pci0000:15"))).isEqualTo(ROOT.resolve("sys/devices/pci0000:15"));
    assertThat(roots.resolveLinkTarget(link, Path.of("/sys"))).isEqualTo(ROOT.resolve("sys"));
    assertThat(roots.resolveLinkTarget(link, Path.of("/etc/passwd"))).isEqualTo(ROOT.resolve("etc/passwd"));
  }
}
