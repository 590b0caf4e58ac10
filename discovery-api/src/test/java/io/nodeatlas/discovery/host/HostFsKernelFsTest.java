package io.nodeatlas.discovery.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nodeatlas.discovery.testing.FixtureTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads of this machine's own sysfs and procfs, which {@link HostFs} opens without a stat first
 * ({@link KernelMounts}): the answers are those of the careful path, whatever the file turns out to be.
 */
class HostFsKernelFsTest {

  @TempDir Path root;

  private final HostFs fs = HostFs.of(Path.of("/"));

  @BeforeEach
  void kernelFileSystemsAreMounted() throws IOException {
    // The JDK's own view of the mount table, independent of ours.
    assumeTrue(Files.isDirectory(Path.of("/sys/devices")) && Files.getFileStore(Path.of("/sys/devices")).type().equals("sysfs"),
        "sysfs is mounted at /sys");
    assumeTrue(Files.getFileStore(Path.of("/proc/self")).type().equals("proc"), "procfs is mounted at /proc");
  }

  @Test
  void sysfsAndProcfsAreOpenedWithoutAStatAndOtherTreesAreNot() throws IOException {
    assertThat(fs.opensWithoutStat(Path.of("/sys/devices/system/cpu"))).isTrue();
    assertThat(fs.opensWithoutStat(Path.of("/proc/sys/kernel"))).isTrue();
    assertThat(fs.opensWithoutStat(Path.of("/proc/self"))).isTrue();
    assertThat(fs.opensWithoutStat(root)).isFalse();
    assertThat(fs.opensWithoutStat(Path.of("/dev"))).isFalse();
    assertThat(fs.opensWithoutStat(Path.of("/sys/no-such-directory"))).isFalse();
    if (Files.isDirectory(Path.of("/sys/fs/cgroup"))) {
      String type = Files.getFileStore(Path.of("/sys/fs/cgroup")).type();
      assertThat(fs.opensWithoutStat(Path.of("/sys/fs/cgroup"))).isEqualTo(type.equals("sysfs"));
    }
    // A fixture tree that mimics sysfs is an ordinary tree.
    FixtureTree.at(root).file("sys/devices/system/cpu/online", "0-3\n");
    HostFs fixture = HostFs.of(root);
    assertThat(fixture.opensWithoutStat(root.resolve("sys/devices/system/cpu"))).isFalse();
  }

  @Test
  void valuesReadAsTheyReadWithoutUs() throws IOException {
    Path online = Path.of("/sys/devices/system/cpu/online");
    assertThat(fs.readValue(online)).contains(Files.readString(online).trim());
    Path ostype = Path.of("/proc/sys/kernel/ostype");
    assertThat(fs.readValue(ostype)).contains("Linux");
    assertThat(fs.readLines(Path.of("/proc/self/status"))).anySatisfy(l -> assertThat(l).startsWith("Name:"));
  }

  @Test
  void aSymlinkToAFileIsFollowedWithinTheRoot() throws IOException {
    // /proc/mounts is a symlink to self/mounts: O_NOFOLLOW refuses it, and the read goes the careful way.
    Path mounts = Path.of("/proc/mounts");
    assumeTrue(Files.isSymbolicLink(mounts));
    assertThat(fs.readLines(mounts)).isNotEmpty()
        .first().isEqualTo(Files.readAllLines(Path.of("/proc/self/mounts")).get(0));
  }

  @Test
  void aDirectoryIsReportedAndAMissingFileIsAbsent() {
    assertThatThrownBy(() -> fs.readValue(Path.of("/sys/devices/system/cpu")))
        .isInstanceOf(HostFileException.class).hasMessageContaining("is a directory");
    assertThat(fs.readValue(Path.of("/sys/devices/system/cpu/no-such-attribute"))).isEmpty();
    assertThat(fs.readValue(Path.of("/proc/self/no-such-file"))).isEmpty();
  }

  @Test
  void anAttributeWhoseReadFailsGivesTheKernelsReason() {
    // The loopback device has no link speed: the kernel fails the read of its speed with EINVAL,
    // as it does for a NIC whose link is down. The error is the read's, not "is a directory".
    Path speed = Path.of("/sys/class/net/lo/speed");
    assumeTrue(Files.isRegularFile(speed));
    String reason;
    try {
      Files.readAllBytes(speed);
      reason = null;
    } catch (IOException e) {
      reason = e.getMessage();
    }
    assumeTrue(reason != null, "this kernel answers the loopback's speed");
    String expected = reason;
    assertThatThrownBy(() -> fs.readValue(speed)).isInstanceOf(HostFileException.class)
        .hasMessageContaining("speed").hasMessageContaining(expected).hasMessageNotContaining("directory");
  }

  @Test
  void anAttributeThatRefusesToBeReadFailsAsItWouldHaveAnyway() {
    // Write-only sysfs attributes (mode 0200) refuse a read for everyone but root, and root's read
    // fails in the kernel (no show()): either way the read is reported, never absent.
    Path bind = Path.of("/sys/bus/pci/drivers_probe");
    assumeTrue(Files.exists(bind));
    assertThatThrownBy(() -> fs.readValue(bind)).isInstanceOf(HostFileException.class).hasMessageContaining("drivers_probe")
        .hasMessageContaining("permission denied");
  }
}
