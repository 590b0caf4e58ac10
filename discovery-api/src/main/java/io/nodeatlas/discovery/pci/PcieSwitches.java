package io.nodeatlas.discovery.pci;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.topology.PciTree.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * {@code nodeatlas.io/pcieSwitch}: the closest PCIe switch above a function, named by the sysfs address
 * of the switch's upstream port ({@code 0000:17:00.0}), the switch's identity in {@code lspci -t} and
 * in the PCI tree of {@code discover}. Absent when the function hangs off a root port directly (or off
 * the root bus). Devices behind one switch compare equal in a claim's {@code matchAttribute}: a GPU and
 * an RDMA NIC on one switch exchange GPUDirect RDMA traffic without crossing the root complex.
 *
 * <p>The rule is {@link PciKinds}' applied to the function's path below its host bridge
 * ({@code devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:08.0/0000:18:00.0}): every directory on
 * the way is a bridge (a function nests in it), so the kinds follow from the path alone, except for a
 * bridge right above the function under a root port or downstream port; whether that one is a switch
 * depends on whether a sibling of the function is a bridge, which costs one listing. An SR-IOV VF sits
 * in the same directory as its PF (sysfs-bus-pci {@code virtfnN}), so it gets its PF's switch. Every
 * source publishes this one rule through {@link PciFunctionFacts#publishTo}.
 */
public final class PcieSwitches {

  /** {@code nodeatlas.io/pcieSwitch}. */
  public static final String ATTRIBUTE = Names.ours("pcieSwitch");

  private PcieSwitches() {}

  /** The switch above the function whose (resolved) directory is {@code functionDir}; empty when none or not under a host bridge. */
  public static Optional<String> of(FactReader facts, Path functionDir) {
    Path sysfs = facts.fs().sysfsRoot();
    Path normalised = functionDir.toAbsolutePath().normalize();
    if (!normalised.startsWith(sysfs)) {
      return Optional.empty();
    }
    Path under = sysfs.relativize(normalised);
    return ofSysfsPath(under, bridge -> hasBridgeChild(facts, normalised.getParent()));
  }

  /**
   * The switch on a path relative to the sysfs root. {@code lastBridgeHasBridgeChild} answers, for the
   * function's parent bridge, whether any function directly below it is a bridge; it is asked only when
   * the rule needs it.
   */
  public static Optional<String> ofSysfsPath(Path pathUnderSysfs, Predicate<String> lastBridgeHasBridgeChild) {
    List<String> chain = chain(pathUnderSysfs);
    if (chain.size() < 2) {
      return Optional.empty();
    }
    // chain: the bridges from the root port down, then the function itself (last).
    Kind parent = Kind.HOST_BRIDGE;
    String closest = null;
    for (int i = 0; i < chain.size() - 1; i++) {
      String bridge = chain.get(i);
      boolean lastBridge = i == chain.size() - 2;
      Kind kind = PciKinds.classify(true, parent,
          () -> lastBridge ? lastBridgeHasBridgeChild.test(bridge) : true);
      if (kind == Kind.SWITCH_UPSTREAM) {
        closest = bridge;
      }
      parent = kind;
    }
    return Optional.ofNullable(closest);
  }

  /**
   * The function names after the last host bridge of {@code devices/pciDDDD:BB/...} (a VMD domain's host
   * bridge nests below an endpoint of the outer one); empty when the path is not one unbroken chain of
   * functions below a host bridge.
   */
  static List<String> chain(Path pathUnderSysfs) {
    int n = pathUnderSysfs.getNameCount();
    if (n < 3 || !pathUnderSysfs.getName(0).toString().equals("devices")) {
      return List.of();
    }
    int hostBridge = -1;
    for (int i = n - 1; i >= 1; i--) {
      if (PciKinds.isHostBridgeName(pathUnderSysfs.getName(i).toString())) {
        hostBridge = i;
        break;
      }
    }
    if (hostBridge < 0) {
      return List.of();
    }
    List<String> out = new ArrayList<>(n - hostBridge);
    for (int i = hostBridge + 1; i < n; i++) {
      String name = pathUnderSysfs.getName(i).toString();
      if (!PciAddress.isSysfsName(name)) {
        return List.of();
      }
      out.add(name);
    }
    return out;
  }

  /** Whether any function in {@code bridgeDir} is a bridge: its class says so, or functions nest in it. */
  private static boolean hasBridgeChild(FactReader facts, Path bridgeDir) {
    for (Path child : facts.list(bridgeDir)) {
      String name = child.getFileName().toString();
      if (!PciAddress.isSysfsName(name) || !facts.fs().isDirectoryNoFollow(child)) {
        continue;
      }
      if (facts.read(child.resolve("class"), t -> PciIds.hexId(t, 6)).map(PciKinds::isBridgeClass).orElse(false)) {
        return true;
      }
      for (Path grandchild : facts.list(child)) {
        if (PciAddress.isSysfsName(grandchild.getFileName().toString()) && facts.fs().isDirectoryNoFollow(grandchild)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether {@code path} is a symlink. sysfs nests functions as real directories; a function-named link
   * in a device directory is not the kernel's and is never followed (it could loop or lead anywhere).
   */
  static boolean isSymlink(FactReader facts, Path path) {
    try {
      return facts.fs().readLink(path).isPresent();
    } catch (io.nodeatlas.discovery.host.HostFileException e) {
      return true;
    }
  }
}
