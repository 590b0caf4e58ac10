package io.nodeatlas.discovery.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostFsTest {

  @TempDir Path root;

  @Test
  void rootsDefaultUnderTheHostRootAndCanBeOverridden() {
    HostFs fs = HostFs.of(root);
    assertThat(fs.sys("devices/system/cpu/online")).isEqualTo(root.resolve("sys/devices/system/cpu/online"));
    assertThat(fs.proc("/meminfo")).isEqualTo(root.resolve("proc/meminfo"));
    HostFs daemonSet = HostFs.builder(root).sysfsRoot(root.resolve("host-sys")).build();
    assertThat(daemonSet.sys("class/net")).isEqualTo(root.resolve("host-sys/class/net"));
    assertThat(daemonSet.fromHostPath("/dev/infiniband/uverbs0")).isEqualTo(root.resolve("dev/infiniband/uverbs0"));
    assertThat(daemonSet.fromHostPath("/usr/lib/libcuda.so.1")).isEqualTo(root.resolve("usr/lib/libcuda.so.1"));
  }

  @Test
  void missingFileIsAnAbsentFact() {
    assertThat(HostFs.of(root).readValue(root.resolve("sys/nothing"))).isEmpty();
    assertThat(HostFs.of(root).readLines(root.resolve("sys/nothing"))).isEmpty();
  }

  @Test
  void valuesAreTrimmedOfWhitespaceAndNul() {
    FixtureTree.at(root).file("sys/devices/system/node/online", "0-1\n\0").file("empty", "");
    HostFs fs = HostFs.of(root);
    assertThat(fs.readValue(root.resolve("sys/devices/system/node/online"))).contains("0-1");
    assertThat(fs.readValue(root.resolve("empty"))).contains("");
  }

  @Test
  void danglingSymlinkIsAbsentNotAnError() {
    FixtureTree.at(root).symlink("sys/class/net/br0/device", "../../../devices/virtual/gone");
    HostFs fs = HostFs.of(root);
    assertThat(fs.readValue(root.resolve("sys/class/net/br0/device"))).isEmpty();
    assertThat(fs.exists(root.resolve("sys/class/net/br0/device"))).isFalse();
    assertThat(fs.list(root.resolve("sys/class/net/br0/device"))).isEmpty();
  }

  @Test
  void directoryWhereAFileIsExpectedIsReported() {
    FixtureTree.at(root).dir("sys/bus/pci/devices/0000:03:00.0/numa_node");
    assertThatThrownBy(() -> HostFs.of(root).readValue(root.resolve("sys/bus/pci/devices/0000:03:00.0/numa_node")))
        .isInstanceOf(HostFileException.class).hasMessageContaining("is a directory").hasMessageContaining("numa_node");
  }

  @Test
  void fifoIsNeverOpened() throws Exception {
    Path fifo = root.resolve("fifo");
    Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertThat(p.waitFor()).isZero();
    assertThatThrownBy(() -> HostFs.of(root).readValue(fifo))
        .isInstanceOf(HostFileException.class).hasMessageContaining("not a regular file");
  }

  @Test
  void binaryFilesReadAsTheirBytesWithTheSameChecksAsText(@TempDir Path outside) throws Exception {
    // Bytes that are not UTF-8 (a text read would replace them) and a NUL (a value read would trim it).
    byte[] cache = {'g', 'l', (byte) 0xff, (byte) 0xc3, 0, 0x28, (byte) 0x80, '\n'};
    FixtureTree.at(root).bytes("etc/ld.so.cache", cache).symlink("etc/away", outside.resolve("x").toString());
    Files.write(outside.resolve("x"), cache);
    Path fifo = root.resolve("etc/fifo");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    HostFs fs = HostFs.of(root);
    assertThat(fs.readBytes(root.resolve("etc/ld.so.cache"))).hasValueSatisfying(b -> assertThat(b).isEqualTo(cache));
    assertThat(fs.readBytes(root.resolve("etc/nothing"))).isEmpty();
    assertThatThrownBy(() -> fs.readBytes(fifo)).isInstanceOf(HostFileException.class)
        .hasMessageContaining("not a regular file");
    assertThatThrownBy(() -> fs.readBytes(root.resolve("etc/away"))).isInstanceOf(HostFileException.class)
        .hasMessageContaining("outside");
    Files.write(root.resolve("etc/big"), new byte[HostFs.MAX_FILE_BYTES + 1]);
    assertThatThrownBy(() -> fs.readBytes(root.resolve("etc/big"))).isInstanceOf(HostFileException.class)
        .hasMessageContaining("larger than 4 MiB");
  }

  @Test
  void hugeFileIsRefused() throws Exception {
    Path big = root.resolve("big");
    Files.write(big, new byte[HostFs.MAX_FILE_BYTES + 1]);
    assertThatThrownBy(() -> HostFs.of(root).readString(big)).isInstanceOf(HostFileException.class)
        .hasMessageContaining("larger than 4 MiB");
  }

  @Test
  void filesOfEverySizeUpToTheLimitReadWhole() throws Exception {
    HostFs fs = HostFs.of(root);
    for (int size : new int[] {0, 1, 127, 128, 129, 4096, 100_000, HostFs.MAX_FILE_BYTES}) {
      byte[] content = new byte[size];
      for (int i = 0; i < size; i++) {
        content[i] = (byte) ('a' + i % 26);
      }
      Path f = root.resolve("f" + size);
      Files.write(f, content);
      assertThat(fs.readString(f)).as("size %d", size).contains(new String(content, java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  @Test
  void filesThatDoNotKnowTheirSizeAreReadToTheEnd() throws Exception {
    // procfs says 0 bytes and sysfs a page, whatever the file holds: neither size may end a read.
    Path cmdline = Path.of("/proc/self/cmdline");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(cmdline));
    HostFs proc = HostFs.of(Path.of("/proc/self"));
    assertThat(Files.size(cmdline)).isZero();
    assertThat(proc.readString(cmdline)).contains(new String(Files.readAllBytes(cmdline), java.nio.charset.StandardCharsets.UTF_8));
    Path online = Path.of("/sys/devices/system/cpu/online");
    if (Files.isReadable(online)) {
      assertThat(HostFs.of(Path.of("/sys")).readValue(online)).contains(Files.readString(online).trim());
    }
  }

  @Test
  void aFileRewrittenBetweenReadsIsReadAsItIsNow() throws Exception {
    // A read ends at the size its own lstat saw, never at one remembered from an earlier read.
    Path f = root.resolve("sys/class/net/eth0/ifalias");
    FixtureTree.at(root).file("sys/class/net/eth0/ifalias", "a\n");
    HostFs fs = HostFs.of(root);
    assertThat(fs.readValue(f)).contains("a");
    String longer = "uplink-".repeat(1_000);
    Files.writeString(f, longer + "\n");
    assertThat(fs.readValue(f)).contains(longer);
    Files.writeString(f, "b\n");
    assertThat(fs.readString(f)).contains("b\n");
  }

  @Test
  void listIsSortedByNameAndEmptyWhenMissing() {
    FixtureTree.at(root).value("d/node10/x", 1).value("d/node2/x", 1).value("d/node1/x", 1);
    HostFs fs = HostFs.of(root);
    assertThat(fs.list(root.resolve("d")).stream().map(p -> p.getFileName().toString()))
        .containsExactly("node1", "node10", "node2");
    assertThat(fs.list(root.resolve("missing"))).isEmpty();
  }

  @Test
  void listOfAFileIsAnError() {
    FixtureTree.at(root).value("f", 1);
    assertThatThrownBy(() -> HostFs.of(root).list(root.resolve("f"))).hasMessageContaining("not a directory");
  }

  @Test
  void listOfASymlinkLoopIsAnErrorButADanglingLinkIsAbsent() {
    FixtureTree.at(root).symlink("d/a", "b").symlink("d/b", "a").symlink("d/gone", "nowhere");
    HostFs fs = HostFs.of(root);
    assertThatThrownBy(() -> fs.list(root.resolve("d/a"))).isInstanceOf(HostFileException.class)
        .satisfies(e -> assertThat(((HostFileException) e).reason()).isEqualTo("symlink loop"));
    assertThat(fs.list(root.resolve("d/gone"))).isEmpty();
  }

  @Test
  void linksResolveInsideTheHostTree() {
    FixtureTree.at(root)
        .dir("sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0")
        .symlink("sys/bus/pci/devices/0000:16:00.0", "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0")
        .symlink("sys/class/abs", "/sys/devices/pci0000:15");
    HostFs fs = HostFs.of(root);
    assertThat(fs.resolveLink(root.resolve("sys/bus/pci/devices/0000:16:00.0")))
        .contains(root.resolve("sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0"));
    // An absolute /sys link in a captured tree is re-rooted under our sysfs root, never the real /sys.
    assertThat(fs.resolveLink(root.resolve("sys/class/abs"))).contains(root.resolve("sys/devices/pci0000:15"));
    assertThat(fs.resolveLink(root.resolve("sys/devices"))).isEmpty();
  }

  @Test
  void absoluteLinksNameHostPathsAndCannotClimbOutOfTheRoot() {
    FixtureTree.at(root)
        .symlink("sys/class/net/a/device", "/../../../../etc")
        .symlink("sys/class/net/b/device", "/sys/../../../../etc")
        .symlink("sys/class/net/c/device", "../../../../../../../../../../etc");
    HostFs fs = HostFs.of(root);
    java.util.List<String> warnings = new java.util.ArrayList<>();
    FactReader facts = new FactReader(fs, warnings::add);
    // "/.." is "/" on the host too: an absolute target stays under the root, re-rooted.
    assertThat(facts.link(root.resolve("sys/class/net/a/device"))).contains(root.resolve("etc"));
    assertThat(facts.link(root.resolve("sys/class/net/b/device"))).contains(root.resolve("etc"));
    assertThat(warnings).isEmpty();
    // A relative target that climbs out is refused.
    assertThat(facts.link(root.resolve("sys/class/net/c/device"))).isEmpty();
    assertThat(warnings).containsExactly(
        "/sys/class/net/c/device: points outside the host root (to \"/etc\" (4 chars)); not followed");
  }

  @Test
  void linksAreFollowedWhenTheHostRootIsReachedThroughASymlink(@TempDir Path other) throws Exception {
    FixtureTree.at(root)
        .dir("sys/devices/pci0000:15/0000:15:01.0")
        .value("sys/devices/pci0000:15/0000:15:01.0/vendor", "0x8086")
        .symlink("sys/bus/pci/devices/0000:15:01.0", "../../../devices/pci0000:15/0000:15:01.0");
    Path viaLink = other.resolve("host");
    Files.createSymbolicLink(viaLink, root);
    java.util.List<String> warnings = new java.util.ArrayList<>();
    FactReader facts = new FactReader(HostFs.of(viaLink), warnings::add);
    Path target = facts.link(viaLink.resolve("sys/bus/pci/devices/0000:15:01.0")).orElseThrow();
    assertThat(target).isEqualTo(viaLink.resolve("sys/devices/pci0000:15/0000:15:01.0"));
    assertThat(facts.read(target.resolve("vendor"), t -> t)).contains("0x8086");
    assertThat(warnings).isEmpty();
  }

  @Test
  void listNamesIsListWithoutPathsAndConfinedTheSameWay(@TempDir Path outside) {
    FixtureTree.at(root).value("sys/devices/pci0000:00/b", 1).dir("sys/devices/pci0000:00/a")
        .symlink("sys/devices/pci0000:00/away", outside.toString())
        .value("sys/devices/file", 1);
    HostFs fs = HostFs.of(root);
    Path hb = fs.sys("devices/pci0000:00");
    assertThat(fs.listNames(hb)).containsExactly("a", "away", "b");
    assertThat(fs.list(hb)).extracting(p -> p.getFileName().toString()).containsExactly("a", "away", "b");
    assertThat(fs.listNames(fs.sys("devices/none"))).isEmpty();
    assertThatThrownBy(() -> fs.listNames(fs.sys("devices/file"))).hasMessageContaining("not a directory");
    // The parent's real path is remembered by now; a link below it is still resolved, and refused.
    assertThatThrownBy(() -> fs.listNames(hb.resolve("away"))).hasMessageContaining("resolves outside the host root");
    assertThatThrownBy(() -> fs.list(hb.resolve("away"))).hasMessageContaining("resolves outside the host root");
    assertThat(fs.listNames(hb.resolve("a"))).isEmpty();
  }

  @Test
  void dotDotAfterASymlinkIsResolvedAsTheKernelDoesNotLexically() throws Exception {
    // x -> a/b, so x/.. is a (the kernel resolves x first); a lexical walk would say the tree's top.
    FixtureTree.at(root)
        .value("sys/a/c/value", "kernel")
        .value("sys/c/value", "lexical")
        .dir("sys/a/b")
        .symlink("sys/x", "a/b")
        .symlink("sys/y", "x/../c")
        .symlink("sys/z/leaf", "../x/../c/value");
    HostFs fs = HostFs.of(root);
    assertThat(fs.readValue(root.resolve("sys/y/value"))).contains("kernel");
    assertThat(fs.readValue(root.resolve("sys/x/../c/value"))).contains("kernel");
    assertThat(fs.readValue(root.resolve("sys/z/leaf"))).contains("kernel");
    assertThat(fs.list(root.resolve("sys/y"))).containsExactly(root.resolve("sys/y/value"));
    assertThat(fs.isDirectory(root.resolve("sys/y"))).isTrue();
    assertThat(root.resolve("sys/y/value").toRealPath()).isEqualTo(root.resolve("sys/a/c/value").toRealPath());
  }

  /** Lets every user write {@code dir}, as a tree unpacked by another user or an open mount would. */
  static void writableByOthers(Path dir) throws Exception {
    Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
  }

  @Test
  void aDirectorySwappedForASymlinkMidRunIsNotFollowedWhereOthersCanWrite(@TempDir Path outside) throws Exception {
    // Another user who can write sys/ swaps devices/a for a link out of the root after our first read:
    // this run goes on reading the directory it opened (now a.old, still inside), and refuses to
    // list through the link; the next run resolves the link and refuses it.
    FixtureTree.at(root).value("sys/devices/a/value", "inside").value("sys/devices/a/sub/value", "inside too");
    FixtureTree.at(outside).value("value", "secret").value("sub/value", "secret").value("fresh/value", "secret");
    writableByOthers(root.resolve("sys"));
    writableByOthers(root.resolve("sys/devices"));
    HostFs fs = HostFs.of(root);
    Path a = root.resolve("sys/devices/a");
    assertThat(fs.readValue(a.resolve("value"))).contains("inside");
    assertThat(fs.listNames(a)).containsExactly("sub", "value");

    Files.move(a, root.resolve("sys/devices/a.old"));
    Files.createSymbolicLink(a, outside);

    assertThat(fs.readValue(a.resolve("value"))).contains("inside");
    assertThat(fs.readValue(a.resolve("sub/value"))).contains("inside too");
    // fresh/ exists only outside: a directory first met through the link is looked up in the held one.
    assertThat(fs.readValue(a.resolve("fresh/value"))).isEmpty();
    assertThatThrownBy(() -> fs.listNames(a)).isInstanceOf(HostFileException.class)
        .hasMessageContaining("replaced by a symlink while being read; not followed");

    fs.forgetResolvedDirectories();
    assertThatThrownBy(() -> fs.readValue(a.resolve("value"))).isInstanceOf(HostFileException.class)
        .hasMessageContaining("resolves outside the host root");
    assertThatThrownBy(() -> fs.listNames(a)).isInstanceOf(HostFileException.class)
        .hasMessageContaining("resolves outside the host root");
  }

  @Test
  void aSwapBeforeTheFirstReadBelowADirectoryIsRefusedNotFollowed(@TempDir Path outside) throws Exception {
    // The run has resolved devices/ (listed it) but not yet opened anything below it when the swap comes.
    FixtureTree.at(root).value("sys/devices/a/value", "inside").value("sys/devices/b", 1);
    FixtureTree.at(outside).value("value", "secret");
    writableByOthers(root.resolve("sys"));
    HostFs fs = HostFs.of(root);
    Path a = root.resolve("sys/devices/a");
    assertThat(fs.isDirectory(a)).isTrue();
    Files.move(a, root.resolve("sys/devices/a.old"));
    Files.createSymbolicLink(a, outside);
    assertThatThrownBy(() -> fs.readValue(a.resolve("value"))).isInstanceOf(HostFileException.class)
        .hasMessageContaining("replaced by a symlink while being read; not followed");
    // A link swapped in for a link's directory: its text is not read through the new link either.
    assertThatThrownBy(() -> fs.readLink(a.resolve("value"))).isInstanceOf(HostFileException.class)
        .hasMessageContaining("replaced by a symlink while being read; not followed");
  }

  @Test
  void directoryHandlesAreBoundedAndReleasedWhenARunStarts() throws Exception {
    FixtureTree tree = FixtureTree.at(root);
    for (int i = 0; i < 600; i++) {
      tree.value("sys/devices/d" + i + "/value", i);
    }
    writableByOthers(root.resolve("sys"));
    HostFs fs = HostFs.of(root);
    long before = openDescriptors();
    for (int i = 0; i < 600; i++) {
      assertThat(fs.readValue(root.resolve("sys/devices/d" + i + "/value"))).contains(Integer.toString(i));
    }
    // Held handles (two descriptors each in the JDK) stay bounded, whatever the size of the tree: one
    // per directory read would be 1,200 descriptors here.
    assertThat(openDescriptors() - before).isLessThan(400);
    fs.forgetResolvedDirectories();
    assertThat(openDescriptors() - before).isLessThanOrEqualTo(2);
  }

  private static long openDescriptors() throws Exception {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }

  @Test
  void whatIsKnownOfADirectoryIsForgottenOnRequest() throws Exception {
    // Hotplug: a class link that moved between two runs is followed to where it points now.
    FixtureTree.at(root)
        .value("sys/devices/one/net/eth0/mtu", 1500)
        .value("sys/devices/two/net/eth0/mtu", 9000)
        .symlink("sys/class/net/eth0", "../../devices/one/net/eth0");
    HostFs fs = HostFs.of(root);
    assertThat(fs.readValue(root.resolve("sys/class/net/eth0/mtu"))).contains("1500");
    Files.delete(root.resolve("sys/class/net/eth0"));
    Files.createSymbolicLink(root.resolve("sys/class/net/eth0"), Path.of("../../devices/two/net/eth0"));
    fs.forgetResolvedDirectories();
    assertThat(fs.readValue(root.resolve("sys/class/net/eth0/mtu"))).contains("9000");
  }

  @Test
  void aLoopInTheDirectoryPartOfAPathIsReportedNotFollowedForever() {
    FixtureTree.at(root).symlink("sys/p", "q/r").symlink("sys/q", "p/s");
    HostFs fs = HostFs.of(root);
    assertThatThrownBy(() -> fs.readValue(root.resolve("sys/p/value"))).isInstanceOf(HostFileException.class)
        .satisfies(e -> assertThat(((HostFileException) e).reason()).isEqualTo("symlink loop"));
    assertThat(fs.exists(root.resolve("sys/p/value"))).isFalse();
    assertThat(fs.isDirectory(root.resolve("sys/p"))).isFalse();
  }

  @Test
  void valuesWithNonAsciiWhitespaceAreTrimmedLikeText() {
    FixtureTree.at(root).file("sys/v", "\u2003 0x15b3 \u2003\n\0").file("sys/ws", " \t\n\0");
    HostFs fs = HostFs.of(root);
    assertThat(fs.readValue(root.resolve("sys/v"))).contains("0x15b3");
    assertThat(fs.readValue(root.resolve("sys/ws"))).contains("");
    assertThat(fs.readString(root.resolve("sys/v"))).contains("\u2003 0x15b3 \u2003\n\0");
  }

  @Test
  void absenceProbeAgreesWithExistsForEveryKindOfPath(@TempDir Path outside) throws Exception {
    FixtureTree.at(root)
        .value("sys/devices/system/cpu/cpu0/online", 1)
        .dir("sys/devices/system/cpu/cpu0/cache/index0")
        .symlink("sys/devices/system/cpu/cpu1", "cpu0")
        .symlink("sys/devices/system/cpu/cpu2", "gone")
        .symlink("sys/devices/system/cpu/loop", "loop")
        .symlink("sys/devices/system/cpu/away", outside.toString());
    HostFs fs = HostFs.of(root);
    Path cpu = root.resolve("sys/devices/system/cpu");
    // Nothing there: the probe says absent, and so does every other question.
    for (String absent : new String[] {"cpu0/offline", "cpu0/cache/index1", "cpu2", "cpu2/online", "loop", "nope/online"}) {
      assertThat(fs.isAbsent(cpu.resolve(absent))).as(absent).isTrue();
      assertThat(fs.exists(cpu.resolve(absent))).as(absent).isFalse();
      assertThat(fs.isDirectory(cpu.resolve(absent))).as(absent).isFalse();
    }
    // Something there: the probe only says so; confinement stays with exists and isDirectory.
    assertThat(fs.isAbsent(cpu.resolve("cpu0/online"))).isFalse();
    assertThat(fs.isAbsent(cpu.resolve("cpu1/cache/index0"))).isFalse();
    assertThat(fs.isDirectory(cpu.resolve("cpu1/cache/index0"))).isTrue();
    assertThat(fs.isAbsent(cpu.resolve("away"))).isFalse();
    assertThat(fs.isDirectory(cpu.resolve("away"))).isFalse();
  }

  @Test
  void checkDirectoryTellsAbsenceFromBrokenInOneLookup(@TempDir Path outside) {
    FixtureTree.at(root)
        .dir("sys/devices/system/node/node0/hugepages")
        .value("sys/devices/system/node/node1", "not a directory")
        .symlink("sys/devices/system/node/node2", "node2")
        .symlink("sys/devices/system/node/node3", "node9")
        .symlink("sys/devices/system/node/node4", outside.toString())
        .symlink("sys/devices/system/node/node5", "node0");
    HostFs fs = HostFs.of(root);
    Path node = root.resolve("sys/devices/system/node");
    assertThat(fs.checkDirectory(node.resolve("node0/hugepages"))).isEqualTo(new HostFs.DirectoryCheck(true, null));
    assertThat(fs.checkDirectory(node.resolve("node5/hugepages"))).isEqualTo(new HostFs.DirectoryCheck(true, null));
    assertThat(fs.checkDirectory(node.resolve("node0/access0"))).isEqualTo(new HostFs.DirectoryCheck(false, null));
    assertThat(fs.checkDirectory(node.resolve("node3"))).as("dangling").isEqualTo(new HostFs.DirectoryCheck(false, null));
    assertThat(fs.checkDirectory(node.resolve("node1"))).isEqualTo(new HostFs.DirectoryCheck(false, "not a directory"));
    assertThat(fs.checkDirectory(node.resolve("node2"))).isEqualTo(new HostFs.DirectoryCheck(false, "symlink loop"));
    assertThat(fs.checkDirectory(node.resolve("node4")).directory()).isFalse();
    assertThat(fs.checkDirectory(node.resolve("node4")).problem()).contains("resolves outside the host root");
  }

  @Test
  void aFileIsReadWholeWhateverItsSizeAndALinkOnlyToATargetInsideTheRoot(@TempDir Path outside) throws Exception {
    String big = "x".repeat(70_000) + "\n";
    FixtureTree.at(root)
        .file("proc/mounts", big)
        .value("sys/class/net/eth0/mtu", 1500)
        .symlink("sys/class/net/eth0/alias", "mtu");
    Files.writeString(outside.resolve("secret"), "42");
    FixtureTree.at(root).symlink("sys/class/net/eth0/ifalias", outside.resolve("secret").toString());
    HostFs fs = HostFs.of(root);
    assertThat(fs.readString(root.resolve("proc/mounts"))).contains(big);
    // A link inside the root is followed and its target opened; one out of the root is refused. (The
    // O_NOFOLLOW of the open guards only the race of a link swapped in after the lstat; no test stages it.)
    assertThat(fs.readValue(root.resolve("sys/class/net/eth0/alias"))).contains("1500");
    assertThatThrownBy(() -> fs.readValue(root.resolve("sys/class/net/eth0/ifalias")))
        .isInstanceOf(HostFileException.class).hasMessageContaining("resolves outside the host root");
  }
}
