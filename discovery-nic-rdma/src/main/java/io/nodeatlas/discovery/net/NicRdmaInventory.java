package io.nodeatlas.discovery.net;

import io.nodeatlas.discovery.net.model.CharDeviceTable;
import io.nodeatlas.discovery.net.model.NetInterface;
import io.nodeatlas.discovery.net.model.NetnsMode;
import io.nodeatlas.discovery.net.model.PciFunction;
import io.nodeatlas.discovery.net.model.RdmaDevice;
import io.nodeatlas.discovery.pci.PciAddress;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Everything one scan read, before any publishing decision: RDMA devices and interfaces sorted by
 * name, the PCI functions behind them by address, the char devices, and the RDMA netns mode.
 */
public record NicRdmaInventory(
    List<RdmaDevice> rdmaDevices,
    List<NetInterface> interfaces,
    Map<PciAddress, PciFunction> pciFunctions,
    CharDeviceTable charDevices,
    Optional<NetnsMode> netnsMode) {

  public NicRdmaInventory {
    rdmaDevices = List.copyOf(rdmaDevices);
    interfaces = List.copyOf(interfaces);
    pciFunctions = Collections.unmodifiableMap(new TreeMap<>(pciFunctions));
  }

  public Optional<RdmaDevice> rdmaDevice(String name) {
    return rdmaDevices.stream().filter(d -> d.name().equals(name)).findFirst();
  }

  public Optional<NetInterface> netInterface(String name) {
    return interfaces.stream().filter(i -> i.name().equals(name)).findFirst();
  }

  public Optional<PciFunction> pciFunction(String sysfsName) {
    return PciAddress.tryParse(sysfsName).map(pciFunctions::get);
  }
}
