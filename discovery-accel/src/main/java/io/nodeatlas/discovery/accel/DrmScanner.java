package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.accel.parse.DrmNodeName;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.pci.PciAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Finds the DRM minors in {@code /sys/class/drm} and groups them by the PCI function they belong to.
 *
 * <p>Each entry of the class directory is a link into the device tree
 * ({@code card0 -> ../../devices/pci0000:00/0000:00:02.0/drm/card0}); the minor's {@code device}
 * link names its parent ({@code device -> ../../../0000:00:02.0}) and its {@code dev} attribute its
 * device number ({@code 226:0}, read later, once the function is known to be ours). A GPU has one primary node {@code card<N>} and one render node
 * {@code renderD<128+N>} on the same parent (kernel {@code Documentation/gpu/drm-uapi.rst}, "Render
 * nodes"); matching them through that parent, not through their numbers, keeps working when the
 * numbering is not the classic one. Only minors whose parent is itself a PCI function count: a
 * virtual or platform DRM device ({@code vgem}, {@code simpledrm}) and a display on a USB or virtio
 * bus have no PCI function to describe and are left out, silently, because nothing is broken.
 *
 * <p>The kernel has no {@code Documentation/ABI} file for {@code /sys/class/drm}; the class and the
 * minors' {@code dev} attribute come from {@code drivers/gpu/drm/drm_sysfs.c} and the driver core,
 * the {@code device} link and the PCI function's own attributes from the driver model
 * ({@code Documentation/ABI/testing/sysfs-bus-pci}).
 */
final class DrmScanner {

  private final FactReader facts;
  private final HostFs fs;

  DrmScanner(FactReader facts) {
    this.facts = facts;
    this.fs = facts.fs();
  }

  /** {@code /sys/class/drm}. */
  static Path classDir(HostFs fs) {
    return fs.sys("class/drm");
  }

  /** The PCI functions with DRM minors, by address. */
  List<DrmFunction> scan() {
    Map<PciAddress, Path> dirs = new TreeMap<>();
    Map<PciAddress, List<DrmFunction.Minor>> nodes = new TreeMap<>();
    for (Path entry : facts.list(classDir(fs))) {
      Optional<DrmNodeName> name = DrmNodeName.of(entry.getFileName().toString());
      if (name.isEmpty()) {
        continue; // connectors, controlD*, version, ttm
      }
      Optional<Path> minorDir = minorDirectory(entry);
      if (minorDir.isEmpty()) {
        continue;
      }
      Optional<Path> parent = pciParent(minorDir.get());
      if (parent.isEmpty()) {
        continue;
      }
      PciAddress address = PciAddress.parse(parent.get().getFileName().toString());
      dirs.putIfAbsent(address, parent.get());
      nodes.computeIfAbsent(address, a -> new ArrayList<>()).add(new DrmFunction.Minor(name.get(), minorDir.get()));
    }
    List<DrmFunction> out = new ArrayList<>();
    for (Map.Entry<PciAddress, List<DrmFunction.Minor>> e : nodes.entrySet()) {
      List<DrmFunction.Minor> sorted = new ArrayList<>(e.getValue());
      sorted.sort(io.nodeatlas.discovery.model.Order.by(DrmFunction.Minor::name));
      out.add(new DrmFunction(e.getKey(), dirs.get(e.getKey()), sorted));
    }
    return out;
  }

  /**
   * The minor's directory in the device tree: the class entry's link resolved (lexically, so the
   * {@code device} link inside resolves against the real parent). A class entry that is a directory
   * rather than a link (a flattened capture) is used as it is. A link leaving the host root
   * ({@link FactReader#link}) or leading nowhere costs one warning and the minor.
   */
  private Optional<Path> minorDirectory(Path entry) {
    boolean isLink;
    try {
      isLink = fs.readLink(entry).isPresent();
    } catch (HostFileException e) {
      facts.warn(entry, e.reason());
      return Optional.empty();
    }
    if (!isLink) {
      return fs.isDirectory(entry) ? Optional.of(entry) : Optional.empty();
    }
    return facts.link(entry).filter(target -> isDirectory(entry, target));
  }

  /**
   * The PCI function a minor belongs to: its {@code device} link, when that leads to a PCI function
   * directory ({@code 0000:03:00.0}). No link, or a link to a device that is not a PCI function (a
   * platform device, a USB interface, a virtio device), means no PCI parent. A link that leads
   * nowhere costs one warning.
   */
  private Optional<Path> pciParent(Path minorDir) {
    Path link = minorDir.resolve("device");
    Optional<Path> target = facts.link(link).filter(t -> isDirectory(link, t));
    if (target.isEmpty()) {
      return Optional.empty();
    }
    Path name = target.get().getFileName();
    return name != null && PciAddress.isSysfsName(name.toString()) ? target : Optional.empty();
  }

  /** Whether a link's target is a directory; a warning when it is not (sysfs links always lead to one). */
  private boolean isDirectory(Path link, Path target) {
    if (fs.isDirectory(target)) {
      return true;
    }
    facts.warn(link, "leads to no directory (to " + Excerpt.of(fs.hostPath(target))
        + ": a dangling link or a loop); this DRM minor is left out");
    return false;
  }
}
