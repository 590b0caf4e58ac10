package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.pci.PcieRoots;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The PCIe root of a PCI function by the shared rule ({@link PcieRoots}), falling back to the directory
 * a netdev's or ibdev's {@code device} link led to when the bus entry is not a symlink, as in some
 * partial captures (rdma-nic-hugepages.md §2.4).
 */
public final class PcieRootResolver {

  private final HostFs fs;

  public PcieRootResolver(HostFs fs) {
    this.fs = fs;
  }

  /**
   * @param knownDir where the function's directory was already found (through a netdev's or ibdev's
   *     {@code device} link); used when the bus entry is not a symlink, as in some partial captures
   */
  public Optional<String> resolve(String bdf, Optional<Path> knownDir) {
    Optional<String> root;
    try {
      root = PcieRoots.of(fs, bdf);
    } catch (HostFileException e) {
      root = Optional.empty();
    }
    return root.isPresent() ? root : knownDir.flatMap(dir -> PcieRoots.ofResolved(fs, dir));
  }
}
