package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.host.FactReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The PCIe root complexes local to each NUMA node, for the list attribute {@code resource.kubernetes.io/pcieRoot}
 * of cpu devices (KEP-5491): a host bridge {@code /sys/devices/pci<domain>:<bus>} is local to the node that
 * the PCI functions directly below it report in {@code numa_node} (Documentation/ABI/testing/sysfs-bus-pci;
 * {@code -1} means no node). The names are those every PCI device carries as its scalar {@code pcieRoot}
 * ({@link io.nodeatlas.discovery.pci.PcieRoots}), so a claim can {@code matchAttribute} a GPU with CPUs.
 */
final class PcieRootsByNode {

  /** A host bridge directory, as {@link io.nodeatlas.discovery.pci.PcieRoots} names roots. */
  private static final Pattern HOST_BRIDGE = Pattern.compile("^pci[0-9a-f]{4,8}:[0-9a-f]{2}$");
  private static final Pattern FUNCTION = Pattern.compile("^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]$");
  /** Host bridges read at most: far more than any machine has (PCI domains times root buses). */
  static final int MAX_ROOTS = 1024;

  private PcieRootsByNode() {}

  /** Sorted root names by NUMA node; a root whose functions report no node, or different nodes, is in none. */
  static Map<Integer, List<String>> read(FactReader in) {
    Map<Integer, Set<String>> byNode = new TreeMap<>();
    int roots = 0;
    for (Path bridge : in.list(in.fs().sys("devices"))) {
      String root = bridge.getFileName().toString();
      if (!HOST_BRIDGE.matcher(root).matches()) {
        continue;
      }
      if (++roots > MAX_ROOTS) {
        in.warn(in.fs().sys("devices"), "more than " + MAX_ROOTS + " PCI host bridges; the rest are in no pcieRoot list");
        break;
      }
      Set<Integer> nodes = new TreeSet<>();
      for (Path function : in.list(bridge)) {
        if (FUNCTION.matcher(function.getFileName().toString()).matches()) {
          in.readTextIfPresent(function.resolve("numa_node"), SysfsFacts.ID).filter(n -> n >= 0).ifPresent(nodes::add);
        }
      }
      if (nodes.size() == 1) {
        byNode.computeIfAbsent(nodes.iterator().next(), n -> new TreeSet<>()).add(root);
      }
    }
    Map<Integer, List<String>> out = new TreeMap<>();
    byNode.forEach((node, names) -> out.put(node, List.copyOf(names)));
    return out;
  }
}
