package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.accel.parse.DrmNodeName;
import io.nodeatlas.discovery.pci.PciAddress;
import java.nio.file.Path;
import java.util.List;

/**
 * A PCI function with DRM minors: its address, its directory as reached through the minors'
 * {@code device} link, and its primary and render nodes in order with their sysfs directories.
 */
public record DrmFunction(PciAddress address, Path deviceDir, List<Minor> minors) {

  public DrmFunction {
    minors = List.copyOf(minors);
  }

  /** Whether the function has a render node ({@code renderD<N>}): whether its driver renders at all. */
  public boolean hasRenderNode() {
    return minors.stream().anyMatch(m -> m.name().kind() == DrmNodeName.Kind.RENDER);
  }

  /** One DRM minor and its directory in the device tree ({@code .../0000:03:00.0/drm/renderD129}). */
  public record Minor(DrmNodeName name, Path dir) {}
}
