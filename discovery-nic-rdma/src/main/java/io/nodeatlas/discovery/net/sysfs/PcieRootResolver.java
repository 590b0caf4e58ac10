package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.parse.BusIds;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The PCIe root of a PCI function: the first component under {@code devices/} of the lexically
 * resolved {@code /sys/bus/pci/devices/<BDF>} link, e.g. {@code pci0000:15} (k8s deviceattribute
 * {@code pcieRoot}; rdma-nic-hugepages.md §2.4). Lexical, because captured trees have dangling links.
 */
public final class PcieRootResolver {

  private final HostFs fs;

  public PcieRootResolver(HostFs fs) {
    this.fs = fs;
  }

  /**
   * @param knownDir where the function's directory was already found (through a netdev's or ibdev's
   *     {@code device} link); used when the bus entry is not a symlink, as in some partial captures
   */
  public Optional<String> resolve(String bdf, Optional<Path> knownDir) {
    Optional<Path> target;
    try {
      target = fs.resolveLink(fs.sys("bus/pci/devices/" + bdf));
    } catch (HostFileException e) {
      target = Optional.empty();
    }
    Optional<String> root = target.flatMap(this::rootOf);
    return root.isPresent() ? root : knownDir.flatMap(this::rootOf);
  }

  /** The PCIe root of a resolved path inside sysfs, or empty when it is not under {@code devices/pci*}. */
  public Optional<String> rootOf(Path resolved) {
    Path sysfs = fs.sysfsRoot();
    Path normalised = resolved.toAbsolutePath().normalize();
    if (!normalised.startsWith(sysfs)) {
      return Optional.empty();
    }
    return BusIds.pcieRoot(sysfs.relativize(normalised));
  }
}
