package io.nodeatlas.discovery.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class KernelMountsTest {

  /** Lines as a container on a Kubernetes node shows them in /proc/self/mountinfo (proc(5)). */
  private static final String MOUNTINFO = """
      21 26 0:20 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
      22 26 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw
      30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
      31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
      40 26 0:40 / /host/sys rw,relatime - sysfs sysfs rw
      41 40 0:41 / /host/sys/kernel/debug rw,relatime - debugfs debugfs rw
      42 26 0:42 / /host/my\\040sys rw,relatime - sysfs sysfs rw
      50 21 0:50 / /proc/sys/fs/binfmt_misc rw,relatime - autofs systemd-1 rw
      51 21 0:51 /null /proc/kcore rw,nosuid - tmpfs tmpfs rw
      60 26 8:1 /var/lib/kubelet /var/lib/kubelet rw,relatime - ext4 /dev/sda1 rw
      garbage line
      70 26 0:70 / /sys/kernel/config rw,relatime
      """;

  @Test
  void sysfsAndProcfsMountsAreKernelMadeAndWhatIsMountedBelowThemIsNot() {
    KernelMounts m = KernelMounts.parse(MOUNTINFO, List.of(Path.of("/sys"), Path.of("/proc")));
    assertThat(m.kernelMade(Path.of("/sys"), false)).isTrue();
    assertThat(m.kernelMade(Path.of("/proc"), false)).isTrue();
    // A tmpfs and cgroup hierarchy mounted over sysfs, and an autofs and a bind mount in procfs:
    // files there are checked before they are opened.
    assertThat(m.kernelMade(Path.of("/sys/fs/cgroup"), true)).isFalse();
    assertThat(m.kernelMade(Path.of("/sys/fs/cgroup/cpu"), false)).isFalse();
    assertThat(m.kernelMade(Path.of("/proc/sys/fs/binfmt_misc"), true)).isFalse();
    assertThat(m.kernelMade(Path.of("/proc/kcore"), true)).isFalse();
    // Not a mount point: the parent directory's answer.
    assertThat(m.kernelMade(Path.of("/sys/devices"), true)).isTrue();
    assertThat(m.kernelMade(Path.of("/sys/devices"), false)).isFalse();
  }

  @Test
  void aFileMountedOverAKernelFileIsAMountPoint() {
    // LXCFS in a container: FUSE files over procfs's own; the file is whatever the mount holds.
    KernelMounts m = KernelMounts.parse(MOUNTINFO + """
        90 21 0:90 /proc/cpuinfo /proc/cpuinfo rw,nosuid - fuse.lxcfs lxcfs rw
        """, List.of(Path.of("/sys"), Path.of("/proc")));
    assertThat(m.isMountPoint(Path.of("/proc/cpuinfo"))).isTrue();
    assertThat(m.isMountPoint(Path.of("/proc/kcore"))).isTrue();
    assertThat(m.isMountPoint(Path.of("/proc/meminfo"))).isFalse();
    assertThat(m.isMountPoint(Path.of("/sys"))).isTrue();
    assertThat(KernelMounts.NONE.isMountPoint(Path.of("/proc/cpuinfo"))).isFalse();
  }

  @Test
  void onlyMountsAtOrBelowTheRootsCount() {
    KernelMounts m = KernelMounts.parse(MOUNTINFO, List.of(Path.of("/host/sys"), Path.of("/host/proc")));
    assertThat(m.kernelMade(Path.of("/host/sys"), false)).isTrue();
    assertThat(m.kernelMade(Path.of("/host/sys/kernel/debug"), true)).isFalse();
    // /sys is not below the roots: unknown, so the parent's answer (false from /) stands.
    assertThat(m.kernelMade(Path.of("/sys"), false)).isFalse();
    assertThat(m.kernelMade(Path.of("/var/lib/kubelet"), false)).isFalse();
  }

  @Test
  void escapedMountPointsAreUnescaped() {
    KernelMounts m = KernelMounts.parse(MOUNTINFO, List.of(Path.of("/host/my sys")));
    assertThat(m.kernelMade(Path.of("/host/my sys"), false)).isTrue();
  }

  @Test
  void aMountOnTopOfAnotherWins() {
    String overmounted = """
        22 26 0:21 / /sys rw - sysfs sysfs rw
        80 22 0:80 / /sys rw - tmpfs tmpfs rw
        """;
    assertThat(KernelMounts.parse(overmounted, List.of(Path.of("/sys"))).kernelMade(Path.of("/sys"), true)).isFalse();
    String remounted = """
        80 26 0:80 / /sys rw - tmpfs tmpfs rw
        22 80 0:21 / /sys rw - sysfs sysfs rw
        """;
    assertThat(KernelMounts.parse(remounted, List.of(Path.of("/sys"))).kernelMade(Path.of("/sys"), false)).isTrue();
  }

  @Test
  void linesThatDoNotParseAreSkippedAndNothingIsKernelMadeWithoutAMountTable() {
    KernelMounts m = KernelMounts.parse("""
        70 26 0:70 / /sys rw,relatime
        71 26 0:71 / /sys\\04 rw - sysfs sysfs rw
        72 26 0:72 / relative rw - sysfs sysfs rw
        73 26 0:73 / /sys/a\000b rw - sysfs sysfs rw
        -
        74 26 0:74 / /sys/devices/x rw - sysfs sysfs rw
        """, List.of(Path.of("/sys")));
    assertThat(m.kernelMade(Path.of("/sys"), false)).isFalse();
    // The lines around the bad ones still count.
    assertThat(m.kernelMade(Path.of("/sys/devices/x"), false)).isTrue();
    assertThat(KernelMounts.parse("", List.of(Path.of("/sys"))).kernelMade(Path.of("/sys"), false)).isFalse();
    assertThat(KernelMounts.NONE.kernelMade(Path.of("/proc"), false)).isFalse();
  }
}
