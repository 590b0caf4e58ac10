package io.nodeatlas.discovery.net;

import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.CharDeviceTable;
import io.nodeatlas.discovery.net.model.CharDevice;
import io.nodeatlas.discovery.net.model.NetInterface;
import io.nodeatlas.discovery.net.model.NetnsMode;
import io.nodeatlas.discovery.net.model.PciFunction;
import io.nodeatlas.discovery.net.model.RdmaDevice;
import io.nodeatlas.discovery.net.parse.BusIds;
import io.nodeatlas.discovery.net.sysfs.CharDeviceResolver;
import io.nodeatlas.discovery.net.sysfs.NetInterfaceReader;
import io.nodeatlas.discovery.net.sysfs.NetnsModeReader;
import io.nodeatlas.discovery.net.sysfs.PciFunctionReader;
import io.nodeatlas.discovery.net.sysfs.PcieRootResolver;
import io.nodeatlas.discovery.net.sysfs.PortReader;
import io.nodeatlas.discovery.net.sysfs.RdmaDeviceReader;
import io.nodeatlas.discovery.net.sysfs.SriovReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/** Runs the readers once over a host and collects a {@link NicRdmaInventory}; holds no state between scans. */
public final class NicRdmaScanner {

  private NicRdmaScanner() {}

  public static NicRdmaInventory scan(HostFs fs, boolean includeVirtual, Consumer<String> warn) {
    List<RdmaDeviceReader.Found> rdma = new RdmaDeviceReader(fs, new PortReader(fs)).readAll(warn);
    List<NetInterfaceReader.Found> nics = new NetInterfaceReader(fs).readAll(includeVirtual, warn);

    // One read per PCI function, wherever it was reached from; the directory found through a
    // device link is kept as a fallback for partial trees whose bus entries are not links.
    Map<String, Optional<Path>> knownDirs = new TreeMap<>();
    for (RdmaDeviceReader.Found f : rdma) {
      knownDirs.merge(f.device().pciBusId(), ownDir(f.parentDir(), f.device().pciBusId()), NicRdmaScanner::first);
    }
    for (NetInterfaceReader.Found f : nics) {
      f.netInterface().pciBusId().ifPresent(
          bdf -> knownDirs.merge(bdf, f.deviceDir().flatMap(d -> ownDir(d, bdf)), NicRdmaScanner::first));
    }
    PciFunctionReader pciReader = new PciFunctionReader(fs, new PcieRootResolver(fs), new SriovReader(fs));
    Map<String, PciFunction> pci = new TreeMap<>();
    knownDirs.forEach((bdf, dir) -> pci.put(bdf, pciReader.read(bdf, dir, warn)));

    Map<String, Path> parents = new HashMap<>();
    List<RdmaDevice> devices = new ArrayList<>();
    for (RdmaDeviceReader.Found f : rdma) {
      devices.add(f.device());
      parents.put(f.device().name(), f.parentDir());
    }
    CharDeviceTable chars = devices.isEmpty()
        ? new CharDeviceTable(Map.of(), Map.of(), Map.of(), Optional.<CharDevice>empty())
        : new CharDeviceResolver(fs).resolve(parents, warn);
    Optional<NetnsMode> netns = devices.isEmpty() ? Optional.empty() : new NetnsModeReader(fs).read(warn);
    List<NetInterface> interfaces = nics.stream().map(NetInterfaceReader.Found::netInterface).toList();
    return new NicRdmaInventory(devices, interfaces, pci, chars, netns);
  }

  /** The path itself when it is the function's directory (not an SF or virtio child below it). */
  private static Optional<Path> ownDir(Path path, String bdf) {
    Optional<String> own = BusIds.nearestBdf(path).filter(b -> path.getFileName().toString().equals(b));
    return own.isPresent() && own.get().equals(bdf) ? Optional.of(path) : Optional.empty();
  }

  private static Optional<Path> first(Optional<Path> a, Optional<Path> b) {
    return a.isPresent() ? a : b;
  }

}
