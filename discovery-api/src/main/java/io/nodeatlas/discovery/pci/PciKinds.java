package io.nodeatlas.discovery.pci;

import io.nodeatlas.discovery.topology.PciTree.Kind;
import java.util.regex.Pattern;

/**
 * The one rule that names what a node of {@code /sys/devices/pci*} is ({@link Kind}), shared by the PCI
 * tree ({@link PciTreeBuilder}) and {@code nodeatlas.io/pcieSwitch} ({@link PcieSwitches}), so the
 * attribute on a device and the tree in {@code discover} never disagree.
 *
 * <p>The PCI Express capability's port type (root port, switch upstream, switch downstream) is in
 * extended config space, which sysfs' {@code config} file shows only to root past the first 64 bytes
 * ({@code Documentation/ABI/testing/sysfs-bus-pci}); the agent does not run as root for this, and
 * captured trees rarely hold it. So the rule uses only what every reader sees, the nesting of the
 * directories (a function's directory sits in its upstream bridge's; {@code drivers/pci/probe.c}
 * parents each device to its bus' bridge) and the {@code class} file, like hwloc, which also builds
 * its I/O tree from bus nesting and the class code:
 * <ul>
 *   <li>a host bridge is a {@code pciDDDD:BB} directory (the kernel's root bus);</li>
 *   <li>a function is a bridge when its class is {@code 0x0604xx} (PCI-to-PCI bridge, also
 *       subtractive decode) or when functions nest in its directory (a bridge whose class reads
 *       otherwise, or whose {@code class} file is missing from a capture);</li>
 *   <li>a bridge directly under a host bridge is a root port;</li>
 *   <li>a bridge under a root port or a switch downstream port is a switch upstream port when at least
 *       one function below it is a bridge (a switch's internal bus carries its downstream ports), and a
 *       plain bridge otherwise (a PCIe-to-PCI bridge with endpoints behind it);</li>
 *   <li>a bridge under a switch upstream port is a switch downstream port;</li>
 *   <li>a bridge under any other bridge is a plain bridge; every other function is an endpoint.</li>
 * </ul>
 * A PCIe-to-PCI bridge with a further PCI-to-PCI bridge behind it is taken for a switch by this rule;
 * such legacy chains hold no GPU or RDMA NIC in practice.
 */
public final class PciKinds {

  /** A host bridge directory; domains are 4 or, on some platforms and behind Intel VMD, up to 8 hex digits. */
  private static final Pattern HOST_BRIDGE = Pattern.compile("^pci[0-9a-f]{4,8}:[0-9a-f]{2}$");

  private PciKinds() {}

  /** Whether {@code name} is a host bridge directory name ({@code pci0000:00}, {@code pci10000:00}). */
  public static boolean isHostBridgeName(String name) {
    return name.length() >= 10 && name.length() <= 14 && name.startsWith("pci") && HOST_BRIDGE.matcher(name).matches();
  }

  /** Whether a class code (six hex digits, {@link PciIds#hexId}) is a PCI-to-PCI bridge's ({@code 0604}, any programming interface). */
  public static boolean isBridgeClass(String classCode) {
    return classCode != null && classCode.startsWith("0604");
  }

  /**
   * The kind of a function.
   *
   * @param bridge whether the function is a bridge (see the class comment)
   * @param parent the kind of the node whose directory holds it
   * @param bridgeBelow whether any function directly below it is a bridge (asked only for bridges under a
   *     root port or a switch downstream port)
   */
  public static Kind classify(boolean bridge, Kind parent, java.util.function.BooleanSupplier bridgeBelow) {
    if (!bridge) {
      return Kind.ENDPOINT;
    }
    return switch (parent) {
      case HOST_BRIDGE -> Kind.ROOT_PORT;
      case SWITCH_UPSTREAM -> Kind.SWITCH_DOWNSTREAM;
      case ROOT_PORT, SWITCH_DOWNSTREAM -> bridgeBelow.getAsBoolean() ? Kind.SWITCH_UPSTREAM : Kind.BRIDGE;
      case BRIDGE, ENDPOINT -> Kind.BRIDGE;
    };
  }
}
