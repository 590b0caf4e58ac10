package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.nvml.NvmlSession.ComputeCapability;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.MemoryInfo;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.MigMode;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.PciInfo;
import java.util.List;
import java.util.Optional;

/**
 * What NVML told us about one GPU. Every fact is optional because every NVML call can fail on its
 * own; {@code lost} is set when any call answered {@code NVML_ERROR_GPU_IS_LOST}. A GPU that is not
 * MIG-capable ({@code nvmlDeviceGetMigMode} answers {@code NVML_ERROR_NOT_SUPPORTED}) has MIG mode
 * disabled; {@code migMode} is empty only when that call failed otherwise.
 */
public record GpuInfo(
    int index,
    Optional<PciInfo> pci,
    Optional<Integer> minor,
    Optional<String> uuid,
    Optional<String> name,
    Optional<Integer> brand,
    Optional<Integer> architecture,
    Optional<ComputeCapability> computeCapability,
    Optional<String> serial,
    Optional<String> boardPartNumber,
    Optional<String> vbiosVersion,
    Optional<MemoryInfo> memory,
    Optional<MigMode> migMode,
    List<MigInfo> migDevices,
    boolean lost) {

  public GpuInfo {
    migDevices = List.copyOf(migDevices);
  }

  /** A short way to name this GPU in warnings: its bus id when known, else its NVML index. */
  public String label() {
    return label(index, pci);
  }

  /** The label of the GPU at NVML index {@code index} with these PCI facts. */
  static String label(int index, Optional<PciInfo> pci) {
    return pci.flatMap(NvmlPci::address).map(a -> "GPU " + a).orElse("GPU at NVML index " + index);
  }

  /** One MIG device of this GPU; {@code slot} is its NVML MIG index. */
  public record MigInfo(
      int slot,
      Optional<String> uuid,
      Optional<String> name,
      Optional<Integer> gpuInstanceId,
      Optional<Integer> computeInstanceId,
      Optional<io.nodeatlas.discovery.gpu.nvml.NvmlSession.MigAttributes> attributes,
      Optional<MemoryInfo> memory) {

    /** The profile from NVML's MIG device name, {@code "NVIDIA H100 80GB HBM3 MIG 1g.10gb"} → {@code 1g.10gb}. */
    public Optional<String> profile() {
      return name.flatMap(n -> {
        int at = n.lastIndexOf(" MIG ");
        String p = at < 0 ? "" : n.substring(at + 5).strip();
        return p.isEmpty() ? Optional.empty() : Optional.of(p);
      });
    }
  }
}
