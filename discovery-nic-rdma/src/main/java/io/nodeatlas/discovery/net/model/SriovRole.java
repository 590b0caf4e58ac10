package io.nodeatlas.discovery.net.model;

import io.nodeatlas.discovery.pci.PciAddress;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A PCI function's place in SR-IOV ({@code Documentation/ABI/testing/sysfs-bus-pci}:
 * {@code sriov_totalvfs}, {@code sriov_numvfs}, {@code virtfnN}, {@code physfn}).
 */
public sealed interface SriovRole permits SriovRole.None, SriovRole.PhysicalFunction, SriovRole.VirtualFunction {

  None NONE = new None();

  /** Not SR-IOV capable, or the capability files are absent. */
  record None() implements SriovRole {}

  /**
   * A PF: {@code sriov_totalvfs} > 0. {@code vfs} come from the {@code virtfnN} links, whose N is the VF
   * index; they are read, never computed from offset and stride.
   */
  record PhysicalFunction(int totalVfs, int numVfs, List<VfLink> vfs) implements SriovRole {
    public PhysicalFunction {
      vfs = List.copyOf(vfs);
    }

    public OptionalInt indexOf(PciAddress vf) {
      for (VfLink link : vfs) {
        if (link.address().equals(vf)) {
          return OptionalInt.of(link.index());
        }
      }
      return OptionalInt.empty();
    }
  }

  /** A VF: {@code physfn} is a symlink to its PF; the index is that of the PF's {@code virtfnN} pointing back. */
  record VirtualFunction(PciAddress pf, OptionalInt vfIndex) implements SriovRole {}

  /** {@code virtfn<index> -> ../<address>}. */
  record VfLink(int index, PciAddress address) {}

  default Optional<PhysicalFunction> asPhysicalFunction() {
    return this instanceof PhysicalFunction pf ? Optional.of(pf) : Optional.empty();
  }

  default Optional<VirtualFunction> asVirtualFunction() {
    return this instanceof VirtualFunction vf ? Optional.of(vf) : Optional.empty();
  }
}
