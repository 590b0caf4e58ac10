package io.nodeatlas.discovery.net.model;

import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;

/**
 * A PCI function behind a netdev or RDMA device: the facts every PCI source reads the same way
 * ({@link PciFunctionFacts}, {@code Documentation/ABI/testing/sysfs-bus-pci}) and its SR-IOV role,
 * which only this source reads.
 */
public record PciFunction(PciFunctionFacts facts, SriovRole sriov) {

  public PciAddress address() {
    return facts.address();
  }
}
