package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.model.Order;
import io.nodeatlas.discovery.net.model.SriovRole;
import io.nodeatlas.discovery.net.parse.Numbers;
import io.nodeatlas.discovery.pci.PciAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * SR-IOV role of a PCI function ({@code Documentation/ABI/testing/sysfs-bus-pci}): a VF has a
 * {@code physfn} symlink; a PF has {@code sriov_totalvfs} > 0 and one {@code virtfnN} link per enabled
 * VF. A VF's index is the N of the PF's link that points back at it. PFs are read once per instance,
 * so a PF with 64 VFs costs one directory scan, not 64; make one reader per discovery run. The common
 * PCI facts come from {@link io.nodeatlas.discovery.pci.PciFunctionReader}; this reads only SR-IOV.
 */
public final class SriovReader {

  private static final int MAX_VFS = 65535;

  private final FactReader facts;
  private final Map<PciAddress, Optional<SriovRole.PhysicalFunction>> pfCache = new HashMap<>();
  private final Map<PciAddress, Map<PciAddress, Integer>> vfIndexes = new HashMap<>();
  /** {@code physfn} links looked at by {@link #isVirtualFunction}, by function directory, until {@link #read} takes them. */
  private final Map<Path, Optional<Path>> probedPhysfn = new HashMap<>();
  /** Reads for {@link #isVirtualFunction}: what it would warn about is left to {@link #read}, in its place. */
  private final FactReader quiet;
  private boolean quietWarned;

  public SriovReader(FactReader facts) {
    this.facts = facts;
    this.quiet = new FactReader(facts.fs(), warning -> quietWarned = true);
  }

  /**
   * Whether the function in {@code dir} is a VF, as {@link #read} of the same directory will find: a
   * {@code physfn} link to a PCI function. Read ahead of the SR-IOV pass for whoever needs to know
   * earlier (see {@link NetInterfaceReader}); the link read here is the one {@link #read} then uses,
   * so asking costs no lookup. A link that is refused answers false and is left for {@link #read}
   * to read again and warn about, so that the warnings come in the same order as without asking.
   */
  public boolean isVirtualFunction(Path dir) {
    Optional<Path> physfn = probedPhysfn.get(dir);
    if (physfn == null) {
      quietWarned = false;
      physfn = quiet.link(dir.resolve("physfn"));
      if (quietWarned) {
        return false;
      }
      probedPhysfn.put(dir, physfn);
    }
    return physfn.flatMap(SriovReader::pfAddress).isPresent();
  }

  /** @param dir the function's own sysfs directory (lexically resolved, so that relative links resolve right) */
  public SriovRole read(Path dir, PciAddress address) {
    Path physfnLink = dir.resolve("physfn");
    Optional<Path> probed = probedPhysfn.remove(dir);
    Optional<Path> physfn = probed != null ? probed : facts.link(physfnLink);
    if (physfn.isPresent()) {
      Optional<PciAddress> pf = pfAddress(physfn.get());
      if (pf.isEmpty()) {
        facts.warn(physfnLink, "points at " + facts.fs().hostPath(physfn.get()) + ", which is not a PCI function; SR-IOV role left out");
        return SriovRole.NONE;
      }
      OptionalInt index = physicalFunction(physfn.get(), pf.get()).isPresent()
          ? vfIndex(pf.get(), address)
          : OptionalInt.empty();
      if (index.isEmpty()) {
        facts.warn(physfn.get(), "no virtfnN link points back at VF " + address + "; its vfIndex left out");
      }
      return new SriovRole.VirtualFunction(pf.get(), index);
    }
    return physicalFunction(dir, address).<SriovRole>map(p -> p).orElse(SriovRole.NONE);
  }

  /** The PCI function a {@code physfn} link leads to, by the name of its target. */
  private static Optional<PciAddress> pfAddress(Path physfn) {
    Path pfName = physfn.getFileName();
    return pfName != null && PciAddress.isSysfsName(pfName.toString()) ? PciAddress.tryParse(pfName.toString()) : Optional.empty();
  }

  /**
   * The index of the PF's {@code virtfnN} link that points at {@code vf}, from a map built once per PF
   * (a PF with 64 VFs would otherwise be searched 64 times, a cost growing with VFs per PF); the
   * lowest N wins if two links point at the same VF, as a search in index order would.
   */
  private OptionalInt vfIndex(PciAddress pf, PciAddress vf) {
    Map<PciAddress, Integer> indexes = vfIndexes.computeIfAbsent(pf, k -> {
      Map<PciAddress, Integer> byAddress = new HashMap<>();
      pfCache.get(k).ifPresent(p -> p.vfs().forEach(link -> byAddress.putIfAbsent(link.address(), link.index())));
      return byAddress;
    });
    Integer index = indexes.get(vf);
    return index == null ? OptionalInt.empty() : OptionalInt.of(index);
  }

  private Optional<SriovRole.PhysicalFunction> physicalFunction(Path dir, PciAddress address) {
    Optional<SriovRole.PhysicalFunction> cached = pfCache.get(address);
    if (cached != null) {
      return cached;
    }
    Optional<SriovRole.PhysicalFunction> pf = readPhysicalFunction(dir);
    pfCache.put(address, pf);
    return pf;
  }

  private Optional<SriovRole.PhysicalFunction> readPhysicalFunction(Path dir) {
    Optional<Integer> total = facts.read(dir.resolve("sriov_totalvfs"), t -> Numbers.parseInt(t, 0, MAX_VFS));
    if (total.isEmpty() || total.get() == 0) {
      return Optional.empty();
    }
    int numVfs = facts.read(dir.resolve("sriov_numvfs"), t -> Numbers.parseInt(t, 0, MAX_VFS)).orElse(0);
    List<SriovRole.VfLink> vfs = new ArrayList<>();
    for (Path entry : facts.list(dir)) {
      String name = entry.getFileName().toString();
      if (!name.startsWith("virtfn") || name.length() == 6) {
        continue;
      }
      int index;
      try {
        index = Numbers.parseInt(name.substring(6), 0, MAX_VFS);
      } catch (IllegalArgumentException e) {
        continue;
      }
      facts.linkName(entry)
          .filter(PciAddress::isSysfsName)
          .flatMap(PciAddress::tryParse)
          .ifPresentOrElse(
              vf -> vfs.add(new SriovRole.VfLink(index, vf)),
              () -> facts.warn(entry, "not a link to a PCI function; left out"));
    }
    vfs.sort(Order.byInt(SriovRole.VfLink::index));
    return Optional.of(new SriovRole.PhysicalFunction(total.get(), numVfs, vfs));
  }
}
