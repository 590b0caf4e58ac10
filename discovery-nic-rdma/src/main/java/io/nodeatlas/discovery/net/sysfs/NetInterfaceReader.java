package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.NetInterface;
import io.nodeatlas.discovery.net.parse.InterfaceNames;
import io.nodeatlas.discovery.net.parse.MacAddressParser;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.net.parse.TextValues;
import io.nodeatlas.discovery.pci.PciAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * {@code /sys/class/net/<if>} ({@code Documentation/ABI/testing/sysfs-class-net}). Entries are symlinks
 * into the device tree; the regular file {@code bonding_masters} is not an interface. Virtual versus
 * physical is decided lexically from the link (captures have dangling {@code virtual/net} targets, so
 * real-path resolution would fail). A link that leads outside the host root is refused, and the
 * interface with it.
 */
public final class NetInterfaceReader {

  /**
   * The interface, the directory its class link led to, where its {@code device} link leads (the PCI
   * function, or a virtio or auxiliary device below one), and whether its switch port attributes
   * ({@code phys_port_name}, {@code phys_switch_id}) were read: they are not for the netdev of a VF
   * (see {@link #NetInterfaceReader(FactReader, Predicate)}).
   */
  public record Found(NetInterface netInterface, Path dir, Optional<Path> deviceDir, boolean switchPortRead) {
    public Path deviceLink() {
      return dir.resolve("device");
    }
  }

  private final FactReader facts;

  /** {@code <sysfs>/devices/virtual}, built once: every interface is checked against it. */
  private final Path virtualDevices;

  /** Whether a PCI function's directory is a VF's (see the two-argument constructor). */
  private final Predicate<Path> virtualFunction;

  /** A reader that reads every interface's switch port attributes. */
  public NetInterfaceReader(FactReader facts) {
    this(facts, dir -> false);
  }

  /**
   * @param virtualFunction whether the PCI function directory an interface's {@code device} link leads
   *     to is an SR-IOV VF's. Such a netdev is not asked for {@code phys_port_name} and
   *     {@code phys_switch_id} ({@code Documentation/ABI/testing/sysfs-class-net}): a VF's device
   *     publishes neither, and they serve only to tell a switchdev representor, which hangs off the PF,
   *     from a function's own netdev. The kernel answers them from the driver or the netdev's devlink
   *     port, and a VF's port is of the virtual flavour, which has no switch id and, on current kernels, no
   *     port name: both fail with EOPNOTSUPP, two failed lookups per VF saved.
   */
  public NetInterfaceReader(FactReader facts, Predicate<Path> virtualFunction) {
    this.facts = facts;
    this.virtualDevices = facts.fs().sysfsRoot().resolve("devices").resolve("virtual");
    this.virtualFunction = virtualFunction;
  }

  /** Every interface, sorted by name; virtual ones only when {@code includeVirtual}. */
  public List<Found> readAll(boolean includeVirtual) {
    List<Found> found = new ArrayList<>();
    for (Path entry : facts.list(facts.fs().sys("class/net"))) {
      try {
        read(entry, includeVirtual).ifPresent(found::add);
      } catch (IllegalArgumentException e) {
        facts.warn(entry, e.getMessage() + "; interface left out");
      }
    }
    return found;
  }

  /** One {@code class/net} entry; empty for non-interfaces, refused links and virtual ones not asked for. */
  public Optional<Found> read(Path entry, boolean includeVirtual) {
    HostFs fs = facts.fs();
    String name = entry.getFileName().toString();
    Optional<Path> target = facts.link(entry);
    Path dir;
    if (target.isPresent()) {
      dir = target.get();
    } else if (Links.isLink(facts, entry)) {
      return Optional.empty(); // refused: the reader has said why
    } else if (fs.isDirectory(entry)) {
      dir = entry;
    } else {
      return Optional.empty(); // bonding_masters and other class attributes
    }
    if (!InterfaceNames.isValid(name)) {
      facts.warn(entry, "not a valid interface name; interface left out");
      return Optional.empty();
    }
    boolean underVirtual = underVirtual(dir);
    if (underVirtual && !includeVirtual) {
      return Optional.empty();
    }
    if (!fs.isDirectory(dir)) {
      facts.warn(entry, "leads to " + fs.hostPath(dir) + ", which is not a directory; interface left out");
      return Optional.empty();
    }
    Path deviceLink = dir.resolve("device");
    Optional<Path> deviceDir = facts.link(deviceLink);
    if (deviceDir.isEmpty() && Links.isLink(facts, deviceLink)) {
      return Optional.empty(); // a device link outside the host root: refused, and said so
    }
    boolean virtual = underVirtual || deviceDir.isEmpty();
    if (virtual && !includeVirtual) {
      return Optional.empty();
    }
    Optional<PciAddress> address = deviceDir.flatMap(PciAddress::nearest);
    boolean switchPort = virtual || !isFunctionDir(deviceDir.get(), address) || !virtualFunction.test(deviceDir.get());
    NetInterface nic = new NetInterface(
        name,
        virtual,
        address,
        optionalInt(facts.read(dir.resolve("type"), t -> Numbers.parseInt(t, 0, 65535))),
        facts.read(dir.resolve("address"), MacAddressParser::parse),
        optionalInt(facts.read(dir.resolve("mtu"), t -> Numbers.parseInt(t, 0, Integer.MAX_VALUE))),
        facts.read(dir.resolve("operstate"), TextValues::operState),
        // speed fails with EINVAL on a down link and prints -1 when unknown (sysfs-class-net).
        facts.readIfApplicable(dir.resolve("speed"), t -> Numbers.parseDecimal(t, -1, Integer.MAX_VALUE))
            .filter(s -> s > 0)
            .map(OptionalLong::of)
            .orElse(OptionalLong.empty()),
        optionalInt(facts.readIfApplicable(dir.resolve("dev_port"), t -> Numbers.parseInt(t, 0, 65535))),
        switchPort ? physPortName(dir) : Optional.empty(),
        switchPort ? physSwitchId(dir) : Optional.empty(),
        // Only a bridge master has bridge/ (net/bridge/br_sysfs_br.c), and a bridge is a software
        // device without a parent: a netdev on a PCI function never has one, so no lookup for it.
        virtual && fs.isDirectory(dir.resolve("bridge")));
    return Optional.of(new Found(nic, dir, deviceDir, switchPort));
  }

  /**
   * The interface with its switch port attributes read, for one whose function turned out not to be
   * a VF after all (the SR-IOV pass read another directory of it than its {@code device} link's).
   */
  public Found withSwitchPort(Found found) {
    if (found.switchPortRead()) {
      return found;
    }
    NetInterface n = found.netInterface();
    NetInterface nic = new NetInterface(n.name(), n.virtual(), n.pciAddress(), n.type(), n.address(), n.mtu(), n.operState(),
        n.speedMbps(), n.devPort(), physPortName(found.dir()), physSwitchId(found.dir()), n.bridge());
    return new Found(nic, found.dir(), found.deviceDir(), true);
  }

  private Optional<String> physPortName(Path dir) {
    return facts.readIfApplicable(dir.resolve("phys_port_name"), TextValues::token);
  }

  private Optional<String> physSwitchId(Path dir) {
    return facts.readIfApplicable(dir.resolve("phys_switch_id"), TextValues::token);
  }

  /**
   * Whether {@code dir} is the function's own directory, not a virtio or auxiliary device below it
   * ({@link PciAddress#nearest} found the address in its last element).
   */
  private static boolean isFunctionDir(Path dir, Optional<PciAddress> address) {
    Path last = dir.getFileName();
    return address.isPresent() && last != null && PciAddress.isSysfsName(last.toString());
  }

  /** Whether the (lexically normalised) directory lies below {@code devices/virtual}, compared by element. */
  private boolean underVirtual(Path dir) {
    return dir.startsWith(virtualDevices);
  }

  private static OptionalInt optionalInt(Optional<Integer> value) {
    return value.map(OptionalInt::of).orElse(OptionalInt.empty());
  }
}
