package io.nodeatlas.discovery.net.model;

import io.nodeatlas.discovery.pci.PciAddress;
import java.util.List;
import java.util.Optional;

/**
 * One entry of {@code /sys/class/infiniband}. {@code pciAddress} is the PCI function the {@code device}
 * link resolves to; devices without one (rxe, siw, scif) are skipped before a record is made. Only
 * facts that are published are kept ({@code hw_rev} is not read: each file is a few syscalls, per VF).
 */
public record RdmaDevice(
    String name,
    PciAddress pciAddress,
    NodeType nodeType,
    Optional<String> nodeGuid,
    Optional<String> sysImageGuid,
    Optional<String> firmwareVersion,
    Optional<String> hcaType,
    Optional<String> boardId,
    List<RdmaPort> ports) {

  public RdmaDevice {
    ports = List.copyOf(ports);
  }

  /** The lowest-numbered port, whose facts stand for the device in its attributes. */
  public Optional<RdmaPort> firstPort() {
    return ports.isEmpty() ? Optional.empty() : Optional.of(ports.get(0));
  }

  /** The transport of the first port whose link layer is known, or from the node type alone. */
  public Transport transport() {
    for (RdmaPort p : ports) {
      if (p.linkLayer().isPresent()) {
        return Transport.of(nodeType, p.linkLayer().get());
      }
    }
    return Transport.of(nodeType, LinkLayer.UNKNOWN);
  }
}
