package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.pci.PciFunctionFacts;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One GPU as the kernel describes it: the PCI function's facts, its DRM nodes, its dedicated memory
 * when the driver says ({@code amdgpu} VRAM, {@code xe} VRAM summed over tiles; an integrated GPU has
 * none), and the {@code amdgpu} extras.
 */
public record Gpu(PciFunctionFacts pci, List<DrmNode> nodes, OptionalLong memoryBytes, Optional<AmdgpuFacts> amdgpu) {

  public Gpu {
    nodes = List.copyOf(nodes);
  }

  /** The bound kernel driver ({@code amdgpu}, {@code i915}, {@code xe}, ...), when known. */
  public Optional<String> driver() {
    return pci.kernelDriver();
  }
}
