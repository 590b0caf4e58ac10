package io.nodeatlas.discovery.pci;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.testing.Conformance;
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.PciTree.Kind;
import io.nodeatlas.discovery.topology.PciTree.PciNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Our PCI tree against hwloc's on every snapshot of the hwloc Linux corpus that holds
 * {@code sys/devices/pci*}: {@code lstopo --whole-io} (every bridge kept) with {@code HWLOC_FSROOT} at
 * the snapshot, read as XML. For each PCI function both show, the chain of bridges above it up to its
 * host bridge must be the same, and the functions hwloc calls bridges must be those we do not call
 * endpoints. hwloc nests by the bridges' bus ranges in config space, we by the directories of sysfs;
 * the kernel made both, so they must agree.
 *
 * <p>Rules where the two legitimately differ, applied to every snapshot alike:
 * <ol>
 *   <li>hwloc leaves out functions in PCI domains above {@code ffff} ("Ignoring PCI device with
 *       non-16bit domain"); they are not compared.</li>
 *   <li>hwloc names a host bridge by its bus range ({@code 0000:[17-1e]}); its first bus is the root
 *       bus, our {@code pci0000:17}.</li>
 *   <li>hwloc lists functions from {@code /sys/bus/pci/devices}, we walk {@code /sys/devices/pci*}. A
 *       capture that lacks a function's bus entry hides it from hwloc, which hangs what is below it on
 *       the nearest bridge it knows; such a function is left out of our chains too.</li>
 *   <li>hwloc drops a bridge whose config space holds no valid bus numbers (secondary or subordinate
 *       bus not above its own bus: an unconfigured port, {@code 00}/{@code 00}); the kernel still shows
 *       it, and so do we. Such a bridge is left out of our chains.</li>
 * </ol>
 */
class PciHwlocConformanceTest {

  private static final String LSTOPO = "lstopo-no-graphics";

  @TempDir Path work;

  @Test
  void everySnapshotWithPciAgreesWithHwlocsBridgeNesting() throws Exception {
    Path corpus = Conformance.corpus("hwloc-linux");
    Conformance.requireTool("lstopo", isInstalled());
    List<Path> tarballs;
    try (Stream<Path> s = Files.list(corpus)) {
      tarballs = s.filter(p -> p.getFileName().toString().endsWith(".tar.bz2")).sorted().toList();
    }
    assertThat(tarballs).isNotEmpty();
    int withPci = 0;
    int agreed = 0;
    int functions = 0;
    List<String> failures = new ArrayList<>();
    for (Path tarball : tarballs) {
      String name = tarball.getFileName().toString().replace(".tar.bz2", "");
      Path root = extract(tarball, work.resolve(name));
      if (!hasPci(root)) {
        continue;
      }
      withPci++;
      Map<String, String> hwloc = hwlocChains(root);
      Map<String, String> ours = ourChains(root);
      List<String> diffs = new ArrayList<>();
      for (String f : new TreeSet<>(hwloc.keySet())) {
        if (!ours.containsKey(f)) {
          diffs.add(f + ": only hwloc has it");
        } else if (!ours.get(f).equals(hwloc.get(f))) {
          diffs.add(f + ": ours " + ours.get(f) + ", hwloc " + hwloc.get(f));
        }
      }
      ours.keySet().stream().filter(f -> !hwloc.containsKey(f)).forEach(f -> diffs.add(f + ": only ours"));
      functions += hwloc.size();
      if (diffs.isEmpty()) {
        agreed++;
      } else {
        failures.add(name + ":\n    " + String.join("\n    ", diffs));
      }
    }
    System.out.printf("hwloc PCI conformance: %d of %d snapshots with PCI agree on bridge nesting (%d functions)%n",
        agreed, withPci, functions);
    assertThat(failures).as("snapshots whose PCI nesting differs from hwloc's").isEmpty();
    assertThat(withPci).as("snapshots with PCI in the corpus (3 when written)").isGreaterThanOrEqualTo(3);
  }

  private static boolean hasPci(Path root) throws IOException {
    Path devices = root.resolve("sys/devices");
    if (!Files.isDirectory(devices)) {
      return false;
    }
    try (Stream<Path> s = Files.list(devices)) {
      return s.anyMatch(p -> PciKinds.isHostBridgeName(p.getFileName().toString()));
    }
  }

  /**
   * Function → its chain, {@code "pci0000:17 > 0000:17:00.0 (bridge) > ..."}: the host bridge, then each
   * bridge above the function, then the function with {@code (bridge)} when it is one.
   */
  private static Map<String, String> ourChains(Path root) {
    List<String> warnings = new ArrayList<>();
    FactReader facts = new FactReader(HostFs.of(root), warnings::add);
    PciTree tree = PciTreeBuilder.build(new PciTreeReader(facts).read(), Map.of(), warnings::add);
    Map<String, String> out = new TreeMap<>();
    for (PciNode hb : tree.hostBridges()) {
      collect(root, hb, hb.address(), out);
    }
    return out;
  }

  private static void collect(Path root, PciNode node, String above, Map<String, String> out) {
    for (PciNode c : node.children()) {
      if (c.kind() == Kind.HOST_BRIDGE || c.address().indexOf(':') > 4) {
        continue; // rule 1: functions of a domain above ffff
      }
      if (!visibleToHwloc(root, c)) {
        collect(root, c, above, out); // rules 3 and 4
        continue;
      }
      String self = c.address() + (c.kind() == Kind.ENDPOINT ? "" : " (bridge)");
      out.put(c.address(), above + " > " + self);
      collect(root, c, above + " > " + self, out);
    }
  }

  /** Rules 3 and 4: a function with a bus entry, and for a bridge valid bus numbers in its config space. */
  private static boolean visibleToHwloc(Path root, PciNode n) {
    Path entry = root.resolve("sys/bus/pci/devices").resolve(n.address());
    if (!Files.exists(entry)) {
      return false;
    }
    if (n.kind() == Kind.ENDPOINT) {
      return true;
    }
    try {
      byte[] config = Files.readAllBytes(entry.resolve("config"));
      if (config.length < 0x1b) {
        return true;
      }
      int bus = PciAddress.parse(n.address()).bus();
      int secondary = config[0x19] & 0xff;
      int subordinate = config[0x1a] & 0xff;
      return secondary > bus && subordinate > bus && secondary <= subordinate;
    } catch (IOException e) {
      return true;
    }
  }

  private static Map<String, String> hwlocChains(Path root) throws Exception {
    var factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
    factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    factory.setExpandEntityReferences(false);
    Element top = factory.newDocumentBuilder().parse(new ByteArrayInputStream(lstopo(root))).getDocumentElement();
    Map<String, String> out = new TreeMap<>();
    walk(top, null, out);
    return out;
  }

  private static void walk(Element e, String above, Map<String, String> out) {
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (!(n instanceof Element c) || !c.getTagName().equals("object")) {
        continue;
      }
      String type = c.getAttribute("type");
      String busId = c.getAttribute("pci_busid");
      String next = above;
      if (type.equals("Bridge") && busId.isEmpty()) {
        // rule 2: a host bridge, "0000:[17-1e]" -> pci0000:17
        String range = c.getAttribute("bridge_pci");
        next = "pci" + range.substring(0, range.indexOf(':')) + ":" + range.substring(range.indexOf('[') + 1, range.indexOf('-'));
      } else if (type.equals("Bridge") || type.equals("PCIDev")) {
        String self = busId + (type.equals("Bridge") ? " (bridge)" : "");
        next = above + " > " + self;
        out.put(busId, next);
      }
      walk(c, next, out);
    }
  }

  private static boolean isInstalled() {
    try {
      Process p = new ProcessBuilder(LSTOPO, "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  /** {@code tar -xjf} into {@code dir}; the snapshot is the one top directory inside. */
  private static Path extract(Path tarball, Path dir) throws Exception {
    Files.createDirectories(dir);
    run(new ProcessBuilder("tar", "-xjf", tarball.toString(), "-C", dir.toString()), "tar");
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> tops = s.filter(Files::isDirectory).toList();
      assertThat(tops).as("top directories in " + tarball).hasSize(1);
      return tops.get(0);
    }
  }

  /** The corpus' SOURCE.txt invocation with {@code --whole-io}, so that hwloc keeps every bridge. */
  private static byte[] lstopo(Path root) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(LSTOPO, "--whole-io", "--of", "xml", "-");
    Map<String, String> env = pb.environment();
    env.put("LANG", "C");
    env.put("LC_ALL", "C");
    env.put("HWLOC_DONT_ADD_VERSION_INFO", "1");
    env.put("HWLOC_COMPONENTS", "linux,stop");
    env.put("HWLOC_FSROOT", root.toString());
    env.put("HWLOC_DUMPED_HWDATA_DIR", "/var/run/hwloc");
    return run(pb, "lstopo");
  }

  private static byte[] run(ProcessBuilder pb, String what) throws Exception {
    Path err = Files.createTempFile("pci-conf", ".err");
    try {
      pb.redirectError(err.toFile());
      Process p = pb.start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(what + " failed: " + Files.readString(err));
      }
      return out;
    } finally {
      Files.deleteIfExists(err);
    }
  }
}
