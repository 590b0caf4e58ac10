package io.nodeatlas.cli.discover.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code discover -o tree} over hand-built reports: what an admin reads in the terminal. */
class TreeRendererTest {

  static final Pattern SGR = Pattern.compile("\u001b\\[[0-9;]*m");

  static String tree(NodeReport report, boolean colour, boolean caches, boolean wholePci) {
    return new TreeRenderer(new TreeRenderer.Options(colour, caches, wholePci)).render(report);
  }

  static String tree(NodeReport report) {
    return tree(report, false, false, false);
  }

  static List<String> lines(String text) {
    return text.lines().toList();
  }

  static int indexOfLine(List<String> lines, String contains) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(contains)) {
        return i;
      }
    }
    throw new AssertionError("no line contains \"" + contains + "\" in\n" + String.join("\n", lines));
  }

  /** The column where the tree's text starts on a line: after the glyphs and spaces of the prefix. */
  static int depth(String line) {
    int i = 0;
    while (i < line.length() && "│├└─ ".indexOf(line.charAt(i)) >= 0) {
      i++;
    }
    return i;
  }

  @Test
  void theMachineNestsNumaNodesInPackagesWithMemoryHugepagesAndCores() {
    List<String> l = lines(tree(RenderFixtures.twoSocketNode()));
    assertThat(l.get(0)).startsWith("Machine").contains("gpu-node-7")
        .contains("kernel 6.8.0-45-generic, 2 packages, 3 NUMA nodes, 64 cores, 128 CPUs, 1Ti memory");
    int pkg0 = indexOfLine(l, "Package 0");
    int pkg1 = indexOfLine(l, "Package 1");
    int numa0 = indexOfLine(l, "NUMA 0 ");
    int numa1 = indexOfLine(l, "NUMA 1 ");
    assertThat(pkg0).isLessThan(numa0);
    assertThat(numa0).isLessThan(pkg1);
    assertThat(pkg1).isLessThan(numa1);
    assertThat(depth(l.get(numa0))).isGreaterThan(depth(l.get(pkg0)));
    assertThat(l.get(numa0)).contains("cpus 0-31,64-95").contains("memory 512Gi (480Gi free)");
    // The node's own pools and cores sit one level below it.
    assertThat(l.subList(numa0 + 1, pkg1)).anySatisfy(x -> assertThat(x).contains("hugepages 2Mi").contains("1024 pages, 1000 free"))
        .anySatisfy(x -> assertThat(x).contains("hugepages 1Gi").contains("16 pages, 16 free"))
        .anySatisfy(x -> assertThat(x).contains("cores").contains("32 × 2 threads"));
    // The host-wide pools with their mounts hang off the machine.
    assertThat(l).anySatisfy(x -> assertThat(x).startsWith("├─ hugepages 2Mi").contains("2048 pages, 2000 free")
        .contains("mounted at /dev/hugepages"));
  }

  @Test
  void aMemoryOnlyNodeSitsWithItsInitiatorsAndShowsTierAndLocality() {
    List<String> l = lines(tree(RenderFixtures.twoSocketNode()));
    int pkg0 = indexOfLine(l, "Package 0");
    int pkg1 = indexOfLine(l, "Package 1");
    int cxl = indexOfLine(l, "NUMA 2 memory only");
    assertThat(cxl).isBetween(pkg0, pkg1);
    assertThat(l.get(cxl)).contains("memory 64Gi (64Gi free)").contains("tier 4").contains("initiator node 0")
        .contains("local to cpus 0-31,64-95");
  }

  @Test
  void cachesAreOneLineUntilAskedFor() {
    String collapsed = tree(RenderFixtures.twoSocketNode());
    assertThat(lines(collapsed).stream().filter(x -> x.contains("caches"))).hasSize(2)
        .allSatisfy(x -> assertThat(x).contains("L1d 48Ki ×32, L1i 32Ki ×32, L2 2Mi ×32, L3 105Mi").contains("--caches"));
    assertThat(collapsed).doesNotContain("L2 cache");

    List<String> expanded = lines(tree(RenderFixtures.twoSocketNode(), false, true, false));
    assertThat(expanded.stream().filter(x -> x.contains("L2 cache"))).hasSize(2)
        .allSatisfy(x -> assertThat(x).contains("2Mi × 32").contains("each shared by 2 CPUs"));
    assertThat(expanded).anySatisfy(x -> assertThat(x).contains("L3 cache").contains("105Mi × 1").contains("cpus 32-63,96-127"));
  }

  @Test
  void thePciTreeShowsSwitchesAndTheDevicesBehindThem() {
    List<String> l = lines(tree(RenderFixtures.twoSocketNode()));
    int pci = indexOfLine(l, "PCI ");
    assertThat(l.get(pci)).contains("5 host bridges").contains("5 PCI nodes leading to no published device hidden")
        .contains("--whole-pci");
    // The empty slot of the second switch is hidden and counted where it would be.
    int secondSwitch = indexOfLine(l, "0000:38:00.0  ");
    assertThat(l.get(indexOfLine(l, " 1 hidden"))).contains("…").contains("leading to no published device (--whole-pci)");
    assertThat(indexOfLine(l, " 1 hidden")).isBetween(secondSwitch, indexOfLine(l, "pci0000:97"));
    assertThat(l).noneSatisfy(x -> assertThat(x).contains("0000:39:03.0"));
    int hb = indexOfLine(l, "pci0000:15");
    int sw = indexOfLine(l, "0000:16:00.0  ");
    int nextSwitch = indexOfLine(l, "0000:38:00.0  ");
    assertThat(l.get(hb)).contains("host bridge").contains("NUMA 0");
    assertThat(l.get(sw)).contains("PCIe switch");
    for (String device : List.of("gpu-0", "gpu-1", "rdma-mlx5-0", "vf-mlx5-0-0", "vf-mlx5-0-1")) {
      int at = indexOfLine(l, " " + device + " ");
      assertThat(at).as(device + " is behind switch 0000:16:00.0").isBetween(sw, nextSwitch);
      assertThat(depth(l.get(at))).isGreaterThan(depth(l.get(sw)));
    }
    assertThat(l.get(indexOfLine(l, " gpu-0 "))).contains("0000:18:00.0").contains("gpu · NVIDIA H100 80GB HBM3 · 79.6Gi · x16 32.0 GT/s");
    assertThat(l.get(indexOfLine(l, " rdma-mlx5-0 "))).contains("rdma · ibp26s0 · 400 Gb/s · infiniband");
    // The chipset's host bridge leads to nothing published: it is left out.
    assertThat(l).noneSatisfy(x -> assertThat(x).contains("pci0000:00"));
    assertThat(l).noneSatisfy(x -> assertThat(x).contains("0000:01:00.0"));
  }

  @Test
  void wholePciShowsWhatLeadsToNothingPublished() {
    List<String> l = lines(tree(RenderFixtures.twoSocketNode(), false, false, true));
    assertThat(l.get(indexOfLine(l, "pci0000:00"))).contains("host bridge");
    assertThat(l.get(indexOfLine(l, "0000:01:00.0"))).contains("144d:a80a class 010802");
    assertThat(l.get(indexOfLine(l, "PCI "))).doesNotContain("hidden");
    assertThat(l.get(indexOfLine(l, "0000:39:03.0"))).contains("switch port");
  }

  @Test
  void devicesWithoutAPciPlaceAreListedByNumaNode() {
    List<String> l = lines(tree(RenderFixtures.twoSocketNode()));
    int section = indexOfLine(l, "Devices without a PCI place");
    int numa0 = indexOfLine(l.subList(section, l.size()), "NUMA 0") + section;
    int numa1 = indexOfLine(l.subList(section, l.size()), "NUMA 1") + section;
    assertThat(indexOfLine(l, "cpu-numa0 ")).isBetween(numa0, numa1);
    assertThat(indexOfLine(l, "cpu-numa1 ")).isGreaterThan(numa1);
    assertThat(l.get(indexOfLine(l, "hugepages-2mi-numa0"))).contains("hugepages").contains("pages 2Mi · 2Gi");
  }

  @Test
  void withoutAPciTreeEveryDeviceIsListedByNumaNode() {
    List<String> l = lines(tree(RenderFixtures.noPciTree()));
    assertThat(l.get(indexOfLine(l, "PCI "))).contains("no PCI tree in this report");
    int section = indexOfLine(l, "Devices without a PCI place");
    int numa1 = indexOfLine(l.subList(section, l.size()), "NUMA 1") + section;
    for (int g = 0; g < 8; g++) {
      int at = indexOfLine(l, " gpu-" + g + " ");
      assertThat(at > numa1).as("gpu-" + g + " under NUMA " + (g / 4)).isEqualTo(g >= 4);
      assertThat(at).isGreaterThan(section);
    }
  }

  @Test
  void warningsAndTroubledSourcesComeLast() {
    List<String> l = lines(tree(RenderFixtures.twoSocketNode()));
    int warnings = indexOfLine(l, "Warnings");
    assertThat(l.get(warnings)).contains("2");
    assertThat(l.subList(warnings + 1, l.size())).hasSize(2)
        .anySatisfy(x -> assertThat(x).contains("cpu-numa").contains("node2/meminfo: line 7"))
        .anySatisfy(x -> assertThat(x).contains("nic-rdma").contains("permission denied"));
    assertThat(l.get(indexOfLine(l, "accel"))).contains("unavailable").contains("no AMD or Intel GPU");
    assertThat(indexOfLine(l, "Sources")).isGreaterThan(indexOfLine(l, "Devices without a PCI place"));
  }

  @Test
  void columnsLineUpWithinEachSection() {
    List<String> l = lines(tree(RenderFixtures.twoSocketNode(), false, true, true));
    // Machine: the second column (cpus of packages and nodes) starts at one column.
    assertThat(l.stream().filter(x -> x.contains("Package ") || x.contains("NUMA 0 ") || x.contains("NUMA 1 "))
        .map(x -> x.indexOf("cpus ")).distinct()).hasSize(1);
    // PCI: device names, and the text after them, each start at one column on every device line.
    List<String> devices = l.stream().filter(x -> x.contains("0000:") && x.matches(".*  (gpu|rdma|vf)-[a-z0-9-]+  .*")).toList();
    assertThat(devices).hasSize(14);
    assertThat(devices.stream().map(TreeRendererTest::secondCell).distinct()).hasSize(1);
    assertThat(devices.stream().map(x -> x.indexOf(x.contains("gpu · ") ? "gpu · " : x.contains("rdma · ") ? "rdma · " : "vf · "))
        .distinct()).hasSize(1);
    assertThat(l).allSatisfy(x -> assertThat(x).doesNotEndWith(" "));
  }

  /** Where the cell after the PCI address starts. */
  private static int secondCell(String line) {
    int at = line.indexOf("0000:") + "0000:00:00.0".length();
    while (line.charAt(at) == ' ') {
      at++;
    }
    return at;
  }

  @Test
  void colourIsOnlyAddedAndNeverMovesAColumn() {
    String plain = tree(RenderFixtures.twoSocketNode(), false, true, true);
    String coloured = tree(RenderFixtures.twoSocketNode(), true, true, true);
    assertThat(plain).doesNotContain("\u001b");
    assertThat(coloured).contains("\u001b[1mMachine\u001b[0m").contains("\u001b[1;36mgpu-0\u001b[0m");
    assertThat(SGR.matcher(coloured).replaceAll("")).isEqualTo(plain);
  }

  @Test
  void hostileTextIsEscapedAndCannotBreakLinesOrTheTerminal() {
    NodeReport hostile = RenderFixtures.hostile();
    String plain = tree(hostile, false, false, false);
    String coloured = tree(hostile, true, false, false);
    // No control character of the host's reaches the output: only our own SGR sequences and newlines.
    assertThat(plain.chars().filter(c -> c < 0x20 && c != '\n')).isEmpty();
    assertThat(SGR.matcher(coloured).replaceAll("").chars().filter(c -> c < 0x20 && c != '\n')).isEmpty();
    assertThat(plain).contains("host<&\">\\x1b[2J").contains("\\x1b[31mred\\nline\\u202e\\x00")
        .contains("</text><script>alert(1)</script>\\x1b]0;title\\x07");
    // Each device is one line, whatever its attributes hold.
    assertThat(lines(plain).stream().filter(x -> x.contains(" gpu-0 "))).hasSize(1);
    // A 600-character warning stays whole (it is the last cell) but bounded by the scrubber.
    assertThat(lines(plain).stream().filter(x -> x.contains("nic-rdma  xxx"))).singleElement()
        .satisfies(x -> assertThat(x.length()).isLessThan(600));
    // A device named by a doctored tree and the doctored addresses are shown as text.
    assertThat(plain).contains("pci<ffff>:&\"00\\x1b").contains("0000:ff:00.0\"/><script>");
  }

  @Test
  void anEmptyReportSaysWhatIsMissing() {
    List<String> l = lines(tree(RenderFixtures.empty()));
    assertThat(l.get(0)).isEqualTo("Machine  -");
    assertThat(l).contains("└─ (no CPU or NUMA topology in this report)", "PCI  (no PCI tree in this report)",
        "└─ (no devices in this report)");
    assertThat(l).noneSatisfy(x -> assertThat(x).contains("Warnings"));
  }

  @Test
  void aSavedReportDrawsTheSameAsTheOneItWasSavedFrom() {
    NodeReport report = RenderFixtures.twoSocketNode();
    NodeReportCodec codec = new NodeReportCodec();
    NodeReport saved = codec.fromJson(codec.toJson(report));
    assertThat(lines(tree(saved, false, true, true))).containsExactlyElementsOf(
        lines(tree(RenderFixtures.withoutReasons(report), false, true, true)));
    assertThat(tree(report)).isEqualTo(tree(RenderFixtures.twoSocketNode()));
  }
}
