package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.SriovRole;
import io.nodeatlas.discovery.net.parse.BusIds;
import io.nodeatlas.discovery.net.parse.Numbers;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * SR-IOV role of a PCI function (§2.3): a VF has a {@code physfn} symlink; a PF has
 * {@code sriov_totalvfs} > 0 and one {@code virtfnN} link per enabled VF. A VF's index is the N of the
 * PF's link that points back at it. PFs are read once per instance, so a PF with 64 VFs costs one
 * directory scan, not 64; make one reader per discovery run.
 */
public final class SriovReader {

  private static final int MAX_VFS = 65535;

  private final HostFs fs;
  private final Map<String, Optional<SriovRole.PhysicalFunction>> pfCache = new HashMap<>();

  public SriovReader(HostFs fs) {
    this.fs = fs;
  }

  /** @param dir the function's own sysfs directory (resolved, so that relative links resolve right) */
  public SriovRole read(Path dir, String bdf, Consumer<String> warn) {
    String subject = "PCI " + bdf;
    Optional<Path> physfn;
    try {
      physfn = fs.resolveLink(dir.resolve("physfn"));
    } catch (HostFileException e) {
      warn.accept(subject + ": physfn left out: " + e.getMessage());
      physfn = Optional.empty();
    }
    if (physfn.isPresent()) {
      String pfBdf = physfn.get().getFileName().toString();
      if (!BusIds.isBdf(pfBdf)) {
        warn.accept(subject + ": physfn points at \"" + physfn.get() + "\", which is not a PCI function");
        return SriovRole.NONE;
      }
      OptionalInt index = physicalFunction(physfn.get(), pfBdf, warn)
          .map(pf -> pf.indexOf(bdf))
          .orElse(OptionalInt.empty());
      if (index.isEmpty()) {
        warn.accept(subject + ": VF index left out: no virtfnN link of PF " + pfBdf + " points at it");
      }
      return new SriovRole.VirtualFunction(pfBdf, index);
    }
    return physicalFunction(dir, bdf, warn).<SriovRole>map(pf -> pf).orElse(SriovRole.NONE);
  }

  private Optional<SriovRole.PhysicalFunction> physicalFunction(Path dir, String bdf, Consumer<String> warn) {
    Optional<SriovRole.PhysicalFunction> cached = pfCache.get(bdf);
    if (cached != null) {
      return cached;
    }
    Optional<SriovRole.PhysicalFunction> pf = readPhysicalFunction(dir, bdf, warn);
    pfCache.put(bdf, pf);
    return pf;
  }

  private Optional<SriovRole.PhysicalFunction> readPhysicalFunction(Path dir, String bdf, Consumer<String> warn) {
    SysfsAttributes attrs = new SysfsAttributes(fs, dir, "PCI " + bdf, warn);
    Optional<Integer> total = attrs.read("sriov_totalvfs", t -> Numbers.parseInt("sriov_totalvfs", t, 0, MAX_VFS));
    if (total.isEmpty() || total.get() == 0) {
      return Optional.empty();
    }
    int numVfs = attrs.read("sriov_numvfs", t -> Numbers.parseInt("sriov_numvfs", t, 0, MAX_VFS)).orElse(0);
    List<SriovRole.VfLink> vfs = new ArrayList<>();
    List<Path> entries;
    try {
      entries = fs.list(dir);
    } catch (HostFileException e) {
      attrs.warn("VF list left out: " + e.getMessage());
      entries = List.of();
    }
    for (Path entry : entries) {
      String name = entry.getFileName().toString();
      if (!name.startsWith("virtfn") || name.length() == 6) {
        continue;
      }
      int index;
      try {
        index = Numbers.parseInt("virtfn index", name.substring(6), 0, MAX_VFS);
      } catch (RuntimeException e) {
        continue;
      }
      try {
        fs.readLink(entry)
            .map(target -> target.getFileName().toString())
            .filter(BusIds::isBdf)
            .ifPresentOrElse(
                vf -> vfs.add(new SriovRole.VfLink(index, vf)),
                () -> attrs.warn(name + " left out: not a link to a PCI function"));
      } catch (HostFileException e) {
        attrs.warn(name + " left out: " + e.getMessage());
      }
    }
    vfs.sort(Comparator.comparingInt(SriovRole.VfLink::index));
    return Optional.of(new SriovRole.PhysicalFunction(total.get(), numVfs, vfs));
  }
}
