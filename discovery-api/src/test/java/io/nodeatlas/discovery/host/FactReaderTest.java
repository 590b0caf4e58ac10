package io.nodeatlas.discovery.host;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.parse.SizeParser;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FactReaderTest {

  @TempDir Path root;

  private final List<String> warnings = new ArrayList<>();

  private FactReader reader() {
    return new FactReader(HostFs.of(root), warnings::add);
  }

  @Test
  void aMissingFileIsAnAbsentFactWithoutWarning() {
    assertThat(reader().read(root.resolve("sys/nothing"), Integer::parseInt)).isEmpty();
    assertThat(reader().lines(root.resolve("sys/nothing"), l -> l)).isEmpty();
    assertThat(reader().keyValues(root.resolve("proc/meminfo"), "").isEmpty()).isTrue();
    assertThat(warnings).isEmpty();
  }

  @Test
  void anUnparsableValueCostsTheFactWithOneWarningNamingTheHostPath() {
    FixtureTree.at(root).value("sys/devices/system/cpu/cpu3/topology/core_id", "three");
    Optional<Integer> id = reader().read(root.resolve("sys/devices/system/cpu/cpu3/topology/core_id"), Integer::parseInt);
    assertThat(id).isEmpty();
    assertThat(warnings).singleElement().asString()
        .startsWith("/sys/devices/system/cpu/cpu3/topology/core_id: not understood: ");
  }

  @Test
  void aParserThatReadsBytesGetsTheTrimmedValueAndOneThatDeclinesGetsTheText() {
    FixtureTree.at(root).value("sys/a", "  0000000f\n").value("sys/b", "\u2003x\n").value("sys/empty", " \n\0");
    List<String> seen = new ArrayList<>();
    FactParser<String> parser = FactParser.withBytes(text -> "text:" + text, (bytes, from, to) -> {
      String value = new String(bytes, from, to - from, java.nio.charset.StandardCharsets.UTF_8);
      seen.add(value);
      return value.startsWith("0") ? "bytes:" + value : null;
    });
    FactReader facts = reader();
    assertThat(facts.read(root.resolve("sys/a"), parser)).contains("bytes:0000000f");
    // Declined: the text parser gets the value trimmed as value() trims it (a non-ASCII space too).
    assertThat(facts.read(root.resolve("sys/b"), parser)).contains("text:x");
    // Nothing but whitespace and NUL: absent, and neither parser is asked.
    assertThat(facts.read(root.resolve("sys/empty"), parser)).isEmpty();
    assertThat(seen).containsExactly("0000000f", "\u2003x");
    assertThat(warnings).isEmpty();
  }

  @Test
  void aValueTheTextParserRefusesAfterTheBytesDeclinedCostsOneWarning() {
    FixtureTree.at(root).value("sys/mask", "zz,00");
    FactParser<Integer> parser = FactParser.withBytes(text -> {
      throw new IllegalArgumentException("not a number");
    }, (bytes, from, to) -> null);
    assertThat(reader().read(root.resolve("sys/mask"), parser)).isEmpty();
    assertThat(warnings).containsExactly("/sys/mask: not understood: not a number");
  }

  @Test
  void theHostPathIsTheHostsNameNotOurMountPoint() {
    FixtureTree.at(root).value("host-sys/class/net/eth0/mtu", "x");
    FactReader facts = new FactReader(HostFs.builder(root).sysfsRoot(root.resolve("host-sys")).build(), warnings::add);
    facts.read(root.resolve("host-sys/class/net/eth0/mtu"), Integer::parseInt);
    assertThat(warnings).singleElement().asString().startsWith("/sys/class/net/eth0/mtu: ");
  }

  @Test
  void keyValueFilesDegradeLineByLine() {
    FixtureTree.at(root).file("sys/devices/system/node/node0/meminfo", """
        Node 0 MemTotal:       527958016 kB
        Node 0 MemFree:        lots kB
        \u001b[31mgarbage line without a key
        Node 0 HugePages_Total:  4096
        """);
    FactReader facts = reader();
    Path file = root.resolve("sys/devices/system/node/node0/meminfo");
    FactReader.KeyValues kv = facts.keyValues(file, "Node 0 ");
    assertThat(facts.field(kv, "MemTotal", SizeParser::parseBytes)).contains(527958016L * 1024);
    assertThat(facts.field(kv, "MemFree", SizeParser::parseBytes)).isEmpty();
    assertThat(facts.field(kv, "HugePages_Total", SizeParser::parseCount)).contains(4096L);
    assertThat(warnings).hasSize(2);
    assertThat(warnings.get(0)).startsWith("/sys/devices/system/node/node0/meminfo: line 3 left out: not \"key: value\": ")
        .contains("\\x1b[31m").doesNotContain("\u001b");
    assertThat(warnings.get(1)).startsWith("/sys/devices/system/node/node0/meminfo: MemFree left out: ");
  }

  @Test
  void lineFilesCostOneLinePerBadLine() {
    FixtureTree.at(root).file("proc/devices", "Character devices:\n  1 mem\nxx nvidia\n195 nvidia-frontend\n");
    List<Integer> majors = reader().lines(root.resolve("proc/devices"), line -> {
      if (line.endsWith(":")) {
        return null; // a section header says nothing
      }
      return Integer.parseInt(line.trim().split("\\s+")[0]);
    });
    assertThat(majors).containsExactly(1, 195);
    assertThat(warnings).singleElement().asString().startsWith("/proc/devices: line 3 left out: ");
  }

  @Test
  void aRelativeSymlinkOutOfTheHostRootIsRefusedNotFollowed() throws IOException {
    Path outside = Files.createTempFile("secret", ".txt");
    try {
      Files.writeString(outside, "42\n");
      String relative = root.resolve("sys/class/x").relativize(outside).toString();
      FixtureTree.at(root).symlink("sys/class/x/value", relative);
      assertThat(reader().read(root.resolve("sys/class/x/value"), Integer::parseInt)).isEmpty();
      assertThat(warnings).singleElement().asString()
          .startsWith("/sys/class/x/value: resolves outside the host root");
    } finally {
      Files.deleteIfExists(outside);
    }
  }

  @Test
  void anAbsoluteSymlinkIsNeverFollowedToTheRealHost() throws IOException {
    Path outside = Files.createTempFile("agent-own", ".txt");
    try {
      Files.writeString(outside, "7\n");
      FixtureTree.at(root).symlink("proc/sys/kernel/osrelease", outside.toString());
      assertThat(reader().value(root.resolve("proc/sys/kernel/osrelease"))).isEmpty();
      assertThat(warnings).singleElement().asString().contains("resolves outside the host root");
    } finally {
      Files.deleteIfExists(outside);
    }
  }

  @Test
  void aDirectorySymlinkOutOfTheRootIsRefusedForEveryFileBelowIt() throws IOException {
    Path outside = Files.createTempDirectory("elsewhere");
    try {
      Files.writeString(outside.resolve("numa_node"), "0\n");
      FixtureTree.at(root).symlink("sys/bus/pci/devices/0000:01:00.0", outside.toString());
      FactReader facts = reader();
      assertThat(facts.read(root.resolve("sys/bus/pci/devices/0000:01:00.0/numa_node"), Integer::parseInt)).isEmpty();
      assertThat(facts.list(root.resolve("sys/bus/pci/devices/0000:01:00.0"))).isEmpty();
      assertThat(facts.isDirectory(root.resolve("sys/bus/pci/devices/0000:01:00.0"))).isFalse();
      assertThat(warnings).hasSize(2).allSatisfy(w -> assertThat(w).contains("resolves outside the host root"));
    } finally {
      Files.deleteIfExists(outside.resolve("numa_node"));
      Files.deleteIfExists(outside);
    }
  }

  @Test
  void symlinksInsideTheRootAreFollowedAsSysfsNeedsThem() {
    FixtureTree.at(root)
        .value("sys/devices/pci0000:00/0000:00:01.0/net/eth0/mtu", 9000)
        .symlink("sys/class/net/eth0", "../../devices/pci0000:00/0000:00:01.0/net/eth0");
    assertThat(reader().read(root.resolve("sys/class/net/eth0/mtu"), Integer::parseInt)).contains(9000);
    assertThat(warnings).isEmpty();
  }

  @Test
  void aSymlinkLoopIsOneWarning() {
    FixtureTree.at(root).symlink("sys/kernel/mm/hugepages/a", "b").symlink("sys/kernel/mm/hugepages/b", "a");
    assertThat(reader().value(root.resolve("sys/kernel/mm/hugepages/a"))).isEmpty();
    assertThat(warnings).singleElement().asString().startsWith("/sys/kernel/mm/hugepages/a: ");
  }

  @Test
  void aFifoIsNeverOpened() throws Exception {
    Path fifo = root.resolve("sys/fifo");
    Files.createDirectories(fifo.getParent());
    Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertThat(p.waitFor()).isZero();
    assertThat(reader().value(fifo)).isEmpty();
    assertThat(warnings).containsExactly("/sys/fifo: not a regular file");
  }

  @Test
  void aDirectoryWhereAValueBelongsIsAWarning() {
    FixtureTree.at(root).dir("sys/devices/system/cpu/online");
    assertThat(reader().value(root.resolve("sys/devices/system/cpu/online"))).isEmpty();
    assertThat(warnings).containsExactly("/sys/devices/system/cpu/online: is a directory");
  }

  @Test
  void controlCharactersFromHostFilesNeverReachAWarningRaw() {
    FixtureTree.at(root).file("sys/class/net/eth0/operstate", "\u001b]0;owned\u0007up\r\nnext\u202e");
    reader().read(root.resolve("sys/class/net/eth0/operstate"), text -> {
      throw new IllegalArgumentException("unknown state " + text);
    });
    assertThat(warnings).singleElement().satisfies(w -> {
      assertThat(Excerpt.isPrintable(w)).isTrue();
      assertThat(w).contains("\\x1b]0;owned\\x07up\\r\\nnext\\u202e");
    });
  }

  @Test
  void theFirstPresentAlternativeIsRememberedForTheRun() {
    FixtureTree.at(root)
        .value("sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_map", "1")
        .value("sys/devices/system/cpu/cpu1/cache/index0/shared_cpu_map", "2");
    FactReader facts = reader();
    List<String> names = List.of("shared_cpu_list", "shared_cpu_map");
    List<FactParser<String>> parsers = List.of(t -> "list:" + t, t -> "map:" + t);
    assertThat(facts.first(root.resolve("sys/devices/system/cpu/cpu0/cache/index0"), names, parsers)).contains("map:1");
    assertThat(facts.first(root.resolve("sys/devices/system/cpu/cpu1/cache/index0"), names, parsers)).contains("map:2");
    assertThat(warnings).isEmpty();
  }

  @Test
  void aLinkTargetOutsideTheRootIsRefused() {
    FixtureTree.at(root).symlink("sys/class/net/eth0/device", "../../../../../../../../etc");
    assertThat(reader().link(root.resolve("sys/class/net/eth0/device"))).isEmpty();
    assertThat(warnings).singleElement().asString().contains("points outside the host root");
  }

  @FuzzTest(maxDuration = "10s")
  void keyValueAndLineFilesNeverThrowAndWarnPrintably(byte[] content) throws IOException {
    Path dir = Files.createTempDirectory("fact-fuzz");
    try {
      Path file = dir.resolve("proc/meminfo");
      Files.createDirectories(file.getParent());
      Files.write(file, content);
      List<String> seen = new ArrayList<>();
      FactReader facts = new FactReader(HostFs.of(dir), seen::add);
      FactReader.KeyValues kv = facts.keyValues(file, "Node 0 ");
      for (String key : kv.values().keySet()) {
        facts.field(kv, key, SizeParser::parseBytes);
      }
      facts.lines(file, line -> Integer.parseInt(line.trim()));
      assertThat(seen).allSatisfy(w -> {
        assertThat(Excerpt.isPrintable(w)).isTrue();
        assertThat(w).startsWith("/proc/meminfo: ");
        assertThat(w.length()).isLessThanOrEqualTo(Excerpt.MAX_MESSAGE_CHARS + 1);
      });
    } finally {
      try (var walk = Files.walk(dir)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
