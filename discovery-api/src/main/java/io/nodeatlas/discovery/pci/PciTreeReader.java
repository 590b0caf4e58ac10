package io.nodeatlas.discovery.pci;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.pci.PciTreeBuilder.RawNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the PCI hierarchy from {@code /sys/devices/pci*} ({@code Documentation/ABI/testing/sysfs-bus-pci},
 * {@code Documentation/ABI/testing/sysfs-devices}): each {@code pciDDDD:BB} directory is a host bridge,
 * each function directory ({@code DDDD:BB:DD.F}) nests in its upstream bridge's, and a VMD domain's
 * host bridge nests in the VMD endpoint's. Per function it reads {@code uevent} (or, where that lacks
 * them, {@code class}, {@code vendor} and {@code device}) and {@code numa_node}; {@link PciTreeBuilder}
 * makes the tree of it.
 *
 * <p>Every input is hostile: function-named symlinks are not followed (sysfs nests real directories; a
 * link could loop or lead anywhere), nesting deeper than {@link #MAX_DEPTH} and functions beyond
 * {@link #MAX_FUNCTIONS} are left out, and each such entry costs that entry and one warning. Other names
 * (attribute files, {@code power}, port services such as {@code 0000:00:01.0:pcie001}) are not PCI nodes
 * and are passed over silently.
 */
public final class PciTreeReader {

  /**
   * Levels of functions below a top host bridge. Real machines nest a few switches deep (root port,
   * two cascaded switches: 5 levels); the PCIe bus number space allows at most 255 below one root.
   */
  public static final int MAX_DEPTH = 32;
  /** Functions read at most: 64 PFs with 64 VFs each are 4,160; one PCI domain addresses 65,536. */
  public static final int MAX_FUNCTIONS = 65_536;

  private final FactReader facts;
  private int functions;
  private boolean tooMany;

  public PciTreeReader(FactReader facts) {
    this.facts = facts;
  }

  /** The host bridges under {@code /sys/devices}, each with what nests in it. */
  public List<RawNode> read() {
    HostFs fs = facts.fs();
    functions = 0;
    tooMany = false;
    List<RawNode> out = new ArrayList<>();
    Path devices = fs.sys("devices");
    for (String name : facts.names(devices)) {
      if (!PciKinds.isHostBridgeName(name)) {
        continue;
      }
      Path entry = devices.resolve(name);
      if (!fs.isDirectoryNoFollow(entry)) {
        facts.warn(entry, PcieSwitches.isSymlink(facts, entry) ? "a host bridge that is a symlink; not followed"
            : "a host bridge that is not a directory");
        continue;
      }
      out.add(new RawNode(name, true, null, null, null, null, children(entry, 1)));
    }
    return out;
  }

  private List<RawNode> children(Path dir, int depth) {
    List<RawNode> out = new ArrayList<>();
    for (String name : facts.names(dir)) {
      boolean function = PciAddress.isSysfsName(name);
      boolean hostBridge = !function && PciKinds.isHostBridgeName(name);
      if (!function && !hostBridge) {
        continue;
      }
      Path entry = dir.resolve(name);
      if (!facts.fs().isDirectoryNoFollow(entry)) {
        String what = "a PCI " + (function ? "function" : "host bridge") + " entry that is ";
        facts.warn(entry, what + (PcieSwitches.isSymlink(facts, entry) ? "a symlink; not followed" : "not a directory"));
        continue;
      }
      if (depth > MAX_DEPTH) {
        facts.warn(entry, "nested more than " + MAX_DEPTH + " levels below its host bridge; left out");
        continue;
      }
      if (hostBridge) {
        out.add(new RawNode(name, true, null, null, null, null, children(entry, depth + 1)));
        continue;
      }
      if (++functions > MAX_FUNCTIONS) {
        if (!tooMany) {
          tooMany = true;
          facts.warn(entry, "more than " + MAX_FUNCTIONS + " PCI functions; this one and the rest left out");
        }
        continue;
      }
      out.add(function(entry, name, depth));
    }
    return out;
  }

  private RawNode function(Path dir, String name, int depth) {
    String[] ids = facts.readText(dir.resolve("uevent"), PciTreeReader::uevent).orElse(null);
    if (ids == null) {
      ids = new String[] {
          facts.read(dir.resolve("vendor"), t -> PciIds.hexId(t, 4)).orElse(null),
          facts.read(dir.resolve("device"), t -> PciIds.hexId(t, 4)).orElse(null),
          facts.read(dir.resolve("class"), t -> PciIds.hexId(t, 6)).orElse(null)};
    }
    return new RawNode(name, false, ids[0], ids[1], ids[2],
        facts.read(dir.resolve("numa_node"), t -> PciIds.numaNode(t).orElse(null)).orElse(null),
        children(dir, depth + 1));
  }

  /**
   * Vendor, device and class from a PCI function's {@code uevent} ({@code drivers/pci/pci-driver.c}
   * {@code pci_uevent}: {@code PCI_CLASS=%04X}, {@code PCI_ID=%04X:%04X}; Documentation/ABI/testing/sysfs-uevent):
   * one read instead of three, which matters on a node with thousands of functions. Null (the three files
   * are read instead) when the file lacks them, as captured trees often do.
   */
  static String[] uevent(String text) {
    String classCode = null;
    String id = null;
    for (String line : text.split("\n")) {
      if (line.startsWith("PCI_CLASS=")) {
        classCode = line.substring(10).trim();
      } else if (line.startsWith("PCI_ID=")) {
        id = line.substring(7).trim();
      }
    }
    if (classCode == null || id == null) {
      return null;
    }
    int colon = id.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("PCI_ID is not \"vendor:device\": " + io.nodeatlas.discovery.host.Excerpt.of(id));
    }
    return new String[] {PciIds.hexId(id.substring(0, colon), 4), PciIds.hexId(id.substring(colon + 1), 4),
        PciIds.hexId(classCode, 6)};
  }
}
