package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.pci.PcieRoots;
import io.nodeatlas.discovery.net.model.PciFunction;
import io.nodeatlas.discovery.net.model.SriovRole;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.net.parse.PciIdParser;
import io.nodeatlas.discovery.net.parse.PcieLinkSpeedParser;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/** {@code /sys/bus/pci/devices/<BDF>/} attributes (§2.2) plus its SR-IOV role and PCIe root. */
public final class PciFunctionReader {

  /** The k8s deviceattribute helper caps NUMA ids at 1023; larger values are not real nodes. */
  private static final int MAX_NUMA_NODE = 1023;

  private final HostFs fs;
  private final PcieRootResolver roots;
  private final SriovReader sriov;

  public PciFunctionReader(HostFs fs, PcieRootResolver roots, SriovReader sriov) {
    this.fs = fs;
    this.roots = roots;
    this.sriov = sriov;
  }

  /**
   * @param knownDir the function's directory as reached through a {@code device} link, used when the
   *     bus entry is missing or not a link
   */
  public PciFunction read(String bdf, Optional<Path> knownDir, Consumer<String> warn) {
    Path dir = directory(bdf, knownDir);
    SysfsAttributes a = new SysfsAttributes(fs, dir, "PCI " + bdf, warn);
    OptionalInt numa = a.read("numa_node", t -> Numbers.parseInt("numa_node", t, -1, Integer.MAX_VALUE))
        .filter(n -> {
          if (n > MAX_NUMA_NODE) {
            a.warn("numa_node " + n + " left out: above " + MAX_NUMA_NODE);
            return false;
          }
          return n >= 0;
        })
        .map(OptionalInt::of)
        .orElse(OptionalInt.empty());
    Optional<String> driver;
    try {
      driver = fs.readLink(dir.resolve("driver")).map(p -> p.getFileName().toString());
    } catch (HostFileException e) {
      a.warn("driver left out: " + e.getMessage());
      driver = Optional.empty();
    }
    SriovRole role = sriov.read(dir, bdf, warn);
    return new PciFunction(
        bdf,
        a.read("vendor", t -> PciIdParser.parse("vendor", t, 4)),
        a.read("device", t -> PciIdParser.parse("device", t, 4)),
        a.read("subsystem_vendor", t -> PciIdParser.parse("subsystem_vendor", t, 4)),
        a.read("subsystem_device", t -> PciIdParser.parse("subsystem_device", t, 4)),
        a.read("class", t -> PciIdParser.parse("class", t, 6)),
        numa,
        driver,
        a.read("current_link_speed", PcieLinkSpeedParser::parse).flatMap(s -> s),
        a.read("current_link_width", t -> Numbers.parseInt("current_link_width", t, 0, 64))
            .filter(w -> w > 0)
            .map(OptionalInt::of)
            .orElse(OptionalInt.empty()),
        PcieRoots.ofResolved(fs, dir).or(() -> roots.resolve(bdf, knownDir)),
        role);
  }

  /** The real directory: the bus link resolved lexically, else the bus entry itself, else the known path. */
  private Path directory(String bdf, Optional<Path> knownDir) {
    Path entry = fs.sys("bus/pci/devices/" + bdf);
    try {
      Optional<Path> target = fs.resolveLink(entry);
      if (target.isPresent() && fs.isDirectory(target.get())) {
        return target.get();
      }
    } catch (HostFileException e) {
      // fall through to the other ways of finding the directory
    }
    if (fs.isDirectory(entry) || knownDir.isEmpty()) {
      return entry;
    }
    return knownDir.get();
  }
}
