package io.nodeatlas.discovery.pci;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Reads {@link PciFunctionFacts} from {@code /sys/bus/pci/devices/<address>/}
 * ({@code Documentation/ABI/testing/sysfs-bus-pci}) through a {@link FactReader}: each missing file
 * is an absent fact, each malformed one a warning in the reader's format.
 */
public final class PciFunctionReader {

  private final FactReader facts;

  public PciFunctionReader(FactReader facts) {
    this.facts = facts;
  }

  /** The function's facts; its directory found through the bus entry. */
  public PciFunctionFacts read(PciAddress address) {
    return read(address, Optional.empty());
  }

  /**
   * @param knownDir the function's directory as reached through a {@code device} link, used when
   *     the bus entry is missing or not a link (partial captures)
   */
  public PciFunctionFacts read(PciAddress address, Optional<Path> knownDir) {
    return readAt(address, directory(address, knownDir));
  }

  /**
   * The facts in {@code dir}, the function's directory as the caller already found it: the target of a
   * {@code device} link whose last element is the function's address is the directory the bus entry
   * leads to ({@code Documentation/ABI/testing/sysfs-bus-pci}: {@code /sys/bus/pci/devices/<address>}
   * is a link to it), so a source that reached the function that way need not resolve the bus entry
   * again, a readlink per function on a node of thousands of VFs. A missing directory reads as a
   * function without facts.
   */
  public PciFunctionFacts readAt(PciAddress address, Path dir) {
    return readAt(address, dir, true);
  }

  /**
   * {@link #readAt} without the two facts {@link PciFunctionFacts#publishTo} leaves out, the class code
   * and the IOMMU group (both empty): for a source that publishes only what {@code publishTo} does. On a
   * node of thousands of VFs they are a file read and a readlink per function that nobody sees.
   */
  public PciFunctionFacts readPublishedAt(PciAddress address, Path dir) {
    return readAt(address, dir, false);
  }

  private PciFunctionFacts readAt(PciAddress address, Path dir, boolean unpublished) {
    HostFs fs = facts.fs();
    return new PciFunctionFacts(
        address,
        facts.read(dir.resolve("vendor"), t -> PciIds.hexId(t, 4)),
        facts.read(dir.resolve("device"), t -> PciIds.hexId(t, 4)),
        facts.read(dir.resolve("subsystem_vendor"), t -> PciIds.hexId(t, 4)),
        facts.read(dir.resolve("subsystem_device"), t -> PciIds.hexId(t, 4)),
        unpublished ? facts.read(dir.resolve("class"), t -> PciIds.hexId(t, 6)) : Optional.empty(),
        facts.linkName(dir.resolve("driver")),
        optionalInt(facts.read(dir.resolve("numa_node"), t -> PciIds.numaNode(t).orElse(null))),
        PcieRoots.ofResolved(fs, dir).or(() -> PcieRoots.of(fs, address.toString())),
        facts.readIfApplicable(dir.resolve("current_link_speed"), t -> PciIds.linkSpeed(t).orElse(null)),
        optionalInt(facts.readIfApplicable(dir.resolve("current_link_width"), t -> PciIds.linkWidth(t).orElse(null))),
        unpublished
            ? optionalInt(facts.linkName(dir.resolve("iommu_group")).flatMap(PciFunctionReader::groupNumber))
            : OptionalInt.empty(),
        PcieSwitches.of(facts, dir));
  }

  /** The function's directory: the bus link resolved lexically, else the bus entry itself, else the known path. */
  public Path directory(PciAddress address, Optional<Path> knownDir) {
    HostFs fs = facts.fs();
    Path entry = fs.sys("bus/pci/devices/" + address);
    Optional<Path> target = facts.link(entry);
    if (target.isPresent() && fs.isDirectory(target.get())) {
      return target.get();
    }
    if (fs.isDirectory(entry) || knownDir.isEmpty()) {
      return entry;
    }
    return knownDir.get();
  }

  private static Optional<Integer> groupNumber(String name) {
    if (name.isEmpty() || name.length() > 9 || !name.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return Optional.empty();
    }
    return Optional.of(Integer.parseInt(name));
  }

  private static OptionalInt optionalInt(Optional<Integer> v) {
    return v.map(OptionalInt::of).orElse(OptionalInt.empty());
  }
}
