package io.nodeatlas.discovery.net;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.CharDevice;
import io.nodeatlas.discovery.net.model.CharDeviceTable;
import io.nodeatlas.discovery.net.model.LinkLayer;
import io.nodeatlas.discovery.net.model.NetInterface;
import io.nodeatlas.discovery.net.model.NetnsMode;
import io.nodeatlas.discovery.net.model.PciFunction;
import io.nodeatlas.discovery.net.model.RdmaDevice;
import io.nodeatlas.discovery.net.model.SriovRole;
import io.nodeatlas.discovery.net.sysfs.CharDeviceResolver;
import io.nodeatlas.discovery.net.sysfs.NetInterfaceReader;
import io.nodeatlas.discovery.net.sysfs.NetnsModeReader;
import io.nodeatlas.discovery.net.sysfs.RdmaDeviceReader;
import io.nodeatlas.discovery.net.sysfs.SriovReader;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.pci.PciFunctionReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Runs the readers once over a host and collects a {@link NicRdmaInventory}; holds no state between
 * scans. Every fact is read through one {@link FactReader}, so every warning has the one form
 * {@code <host path>: <reason>}.
 */
public final class NicRdmaScanner {

  private NicRdmaScanner() {}

  /** A scan that reads every char device, the MAD devices included. */
  public static NicRdmaInventory scan(FactReader facts, boolean includeVirtual) {
    return scan(facts, includeVirtual, true);
  }

  /**
   * @param madDevices whether the run publishes every port's MAD devices ({@code nic-rdma.madDevices});
   *     without it the MAD devices are read only when an InfiniBand port needs its {@code umadN}
   */
  public static NicRdmaInventory scan(FactReader facts, boolean includeVirtual, boolean madDevices) {
    HostFs fs = facts.fs();
    SriovReader sriov = new SriovReader(facts);
    // A VF's RDMA device and netdev are not asked for what a VF does not publish (board_id, phys_state;
    // phys_port_name, phys_switch_id); whether a function is a VF is the SR-IOV pass's own physfn
    // lookup, made earlier.
    RdmaDeviceReader rdmaReader = new RdmaDeviceReader(facts, sriov::isVirtualFunction);
    List<RdmaDeviceReader.Found> rdma = rdmaReader.readAll();
    NetInterfaceReader netdevReader = new NetInterfaceReader(facts, sriov::isVirtualFunction);
    List<NetInterfaceReader.Found> nics = netdevReader.readAll(includeVirtual);

    // One read per PCI function, wherever it was reached from, in the directory a device link led to
    // when one led to the function itself; else through its bus entry (an SF or virtio child's link).
    Map<PciAddress, Optional<Path>> knownDirs = new TreeMap<>();
    for (RdmaDeviceReader.Found f : rdma) {
      PciAddress address = f.device().pciAddress();
      knownDirs.merge(address, ownDir(f.parentDir(), address), NicRdmaScanner::first);
    }
    for (NetInterfaceReader.Found f : nics) {
      f.netInterface().pciAddress().ifPresent(
          address -> knownDirs.merge(address, f.deviceDir().flatMap(d -> ownDir(d, address)), NicRdmaScanner::first));
    }
    PciFunctionReader pciReader = new PciFunctionReader(facts);
    Map<PciAddress, PciFunction> pci = new TreeMap<>();
    Set<PciAddress> absent = new HashSet<>();
    knownDirs.forEach((address, knownDir) -> {
      // The directory a device link led to is the function's own (the bus entry's target): reading
      // there costs no second resolution of the bus link, a readlink per function.
      Path factsDir = knownDir.orElseGet(() -> pciReader.directory(address, Optional.empty()));
      // What NicRdmaPublisher publishes of the function is PciFunctionFacts.publishTo's: no class code, no IOMMU group.
      PciFunctionFacts common = pciReader.readPublishedAt(address, factsDir);
      // No vendor id: look closer (off the common path) whether the function exists at all. A device
      // link that leads nowhere (a dangling or re-rooted absolute link) gives nothing to allocate.
      if (common.vendorId().isEmpty() && !fs.isDirectory(factsDir)) {
        absent.add(address);
        return;
      }
      Path dir = knownDir.orElseGet(() -> fs.sys("bus/pci/devices/" + address));
      pci.put(address, new PciFunction(common, sriov.read(dir, address)));
    });

    Map<String, Path> parents = new HashMap<>();
    List<RdmaDevice> devices = new ArrayList<>();
    for (RdmaDeviceReader.Found f : rdma) {
      if (absent.contains(f.device().pciAddress())) {
        facts.warn(f.deviceLink(), "leads to " + fs.hostPath(f.parentDir()) + ", but sysfs has no PCI function "
            + f.device().pciAddress() + "; RDMA device " + f.device().name() + " left out");
        continue;
      }
      if (!f.complete() && !(pci.get(f.device().pciAddress()).sriov() instanceof SriovRole.VirtualFunction)) {
        // Taken for a VF's by its device link, but the SR-IOV pass read the function through another
        // link (another RDMA device's, first) and found no VF: what it publishes is read after all.
        f = rdmaReader.complete(f);
      }
      devices.add(f.device());
      parents.put(f.device().name(), f.parentDir());
    }
    List<NetInterface> interfaces = new ArrayList<>();
    for (NetInterfaceReader.Found f : nics) {
      Optional<PciAddress> address = f.netInterface().pciAddress();
      if (address.isPresent() && absent.contains(address.get())) {
        facts.warn(f.deviceLink(), "leads to " + f.deviceDir().map(fs::hostPath).orElse("?") + ", but sysfs has no PCI function "
            + address.get() + "; interface " + f.netInterface().name() + " left out");
        continue;
      }
      if (!f.switchPortRead() && !(pci.get(address.get()).sriov() instanceof SriovRole.VirtualFunction)) {
        // As for RDMA devices above (here the link read first is often an RDMA device's).
        f = netdevReader.withSwitchPort(f);
      }
      interfaces.add(f.netInterface());
    }
    CharDeviceTable chars = devices.isEmpty()
        ? new CharDeviceTable(Map.of(), Map.of(), Map.of(), Optional.<CharDevice>empty())
        : new CharDeviceResolver(facts).resolve(parents, madDevices || devices.stream().anyMatch(NicRdmaScanner::hasInfiniBandPort));
    Optional<NetnsMode> netns = devices.isEmpty() ? Optional.empty() : new NetnsModeReader(facts).read();
    return new NicRdmaInventory(devices, interfaces, pci, chars, netns);
  }

  private static boolean hasInfiniBandPort(RdmaDevice device) {
    return device.ports().stream().anyMatch(p -> p.linkLayer().orElse(LinkLayer.UNKNOWN) == LinkLayer.INFINIBAND);
  }

  /** The path itself when it is the function's directory (not an SF or virtio child below it). */
  private static Optional<Path> ownDir(Path path, PciAddress address) {
    Path last = path.getFileName();
    if (last == null) {
      return Optional.empty();
    }
    String name = last.toString();
    return PciAddress.isSysfsName(name) && PciAddress.tryParse(name).filter(address::equals).isPresent()
        ? Optional.of(path)
        : Optional.empty();
  }

  private static Optional<Path> first(Optional<Path> a, Optional<Path> b) {
    return a.isPresent() ? a : b;
  }
}
