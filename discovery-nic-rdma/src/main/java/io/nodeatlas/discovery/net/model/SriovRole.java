package io.nodeatlas.discovery.net.model;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** A PCI function's place in SR-IOV (§2.3). */
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

    public OptionalInt indexOf(String vfBdf) {
      for (VfLink vf : vfs) {
        if (vf.bdf().equals(vfBdf)) {
          return OptionalInt.of(vf.index());
        }
      }
      return OptionalInt.empty();
    }
  }

  /** A VF: {@code physfn} is a symlink to its PF; the index is that of the PF's {@code virtfnN} pointing back. */
  record VirtualFunction(String pfBdf, OptionalInt vfIndex) implements SriovRole {}

  /** {@code virtfn<index> -> ../<bdf>}. */
  record VfLink(int index, String bdf) {}

  default Optional<PhysicalFunction> asPhysicalFunction() {
    return this instanceof PhysicalFunction pf ? Optional.of(pf) : Optional.empty();
  }

  default Optional<VirtualFunction> asVirtualFunction() {
    return this instanceof VirtualFunction vf ? Optional.of(vf) : Optional.empty();
  }
}
