package io.nodeatlas.discovery.pci;

import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The standard attribute {@code resource.kubernetes.io/pcieRoot} ({@code pci<domain>:<bus>}, KEP-4381
 * standard attributes): the first path element under {@code devices/} of the resolved {@code /sys/bus/pci/devices/<BDF>}
 * link, as DRALIB's {@code GetPCIeRootAttributeByPCIBusID} computes it. Every source that publishes PCI
 * devices uses this one rule, so GPUs and NICs behind the same root compare equal in
 * {@code matchAttribute}. The link is resolved lexically: captured trees often have dangling links.
 */
public final class PcieRoots {

  /** A host bridge directory; domains are 4 or, on some platforms, 8 hex digits. */
  private static final Pattern HOST_BRIDGE = Pattern.compile("^pci[0-9a-f]{4,8}:[0-9a-f]{2}$");

  private PcieRoots() {}

  /** The PCIe root of {@code bdf}, or empty when its bus entry is missing or not under a host bridge. */
  public static Optional<String> of(HostFs fs, String bdf) {
    return fs.resolveLink(fs.sys("bus/pci/devices/" + bdf)).flatMap(target -> ofResolved(fs, target));
  }

  /** The PCIe root of an already resolved path inside sysfs (a netdev's or ibdev's {@code device} target). */
  public static Optional<String> ofResolved(HostFs fs, Path resolved) {
    Path sysfs = fs.sysfsRoot();
    Path normalised = resolved.toAbsolutePath().normalize();
    return normalised.startsWith(sysfs) ? ofSysfsPath(sysfs.relativize(normalised)) : Optional.empty();
  }

  /** The PCIe root of a path relative to the sysfs root, e.g. {@code pci0000:15} for {@code devices/pci0000:15/0000:15:01.0/...}. */
  public static Optional<String> ofSysfsPath(Path pathUnderSysfs) {
    if (pathUnderSysfs.getNameCount() < 3 || !pathUnderSysfs.getName(0).toString().equals("devices")) {
      return Optional.empty();
    }
    String root = pathUnderSysfs.getName(1).toString();
    return HOST_BRIDGE.matcher(root).matches() ? Optional.of(root) : Optional.empty();
  }
}
