package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.GpuInfo.MigInfo;
import io.nodeatlas.discovery.gpu.nvml.NvmlDevice;
import io.nodeatlas.discovery.gpu.nvml.NvmlException;
import io.nodeatlas.discovery.gpu.nvml.NvmlReturn;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.MigMode;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.PciInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Reads one GPU through an open session, call by call: a failing call costs that fact and one
 * warning, never the GPU. Identity (PCI, minor, UUID) is read first, so that later warnings can
 * name the GPU. The MIG walk skips empty slots ({@code NOT_FOUND}, {@code INVALID_ARGUMENT}), which
 * are normal.
 */
final class NvmlGpuReader {

  private final NvmlSession nvml;
  private final Consumer<String> warn;

  NvmlGpuReader(NvmlSession nvml, Consumer<String> warn) {
    this.nvml = nvml;
    this.warn = warn;
  }

  @FunctionalInterface
  private interface Call<T> {
    T get() throws NvmlException;
  }

  /** Collects one device's facts; remembers whether the GPU is lost so that its warnings stay few. */
  private final class Facts {
    private final String label;
    boolean lost;

    Facts(String label) {
      this.label = label;
    }

    <T> Optional<T> read(String what, Call<T> call) {
      return read(what, call, null);
    }

    /** Like {@link #read(String, Call)}; {@code NOT_SUPPORTED} gives {@code whenUnsupported}, silently, when given. */
    <T> Optional<T> read(String what, Call<T> call, T whenUnsupported) {
      if (lost) {
        return Optional.empty();
      }
      try {
        return Optional.ofNullable(call.get());
      } catch (NvmlException e) {
        if (e.status() == NvmlReturn.ERROR_GPU_IS_LOST) {
          lost = true;
        } else if (whenUnsupported != null && e.status() == NvmlReturn.ERROR_NOT_SUPPORTED) {
          return Optional.of(whenUnsupported);
        } else {
          warn.accept(label + ": " + what + " not read: " + e.getMessage());
        }
        return Optional.empty();
      }
    }
  }

  GpuInfo read(int index, NvmlDevice device) {
    Facts f = new Facts("GPU at NVML index " + index);
    Optional<PciInfo> pci = f.read("PCI info", () -> nvml.pciInfo(device));
    String label = GpuInfo.label(index, pci);
    Facts g = new Facts(label);
    g.lost = f.lost;
    Optional<Integer> minor = g.read("minor number", () -> nvml.minorNumber(device));
    Optional<String> uuid = g.read("UUID", () -> nvml.uuid(device));
    Optional<String> name = g.read("product name", () -> nvml.name(device));
    Optional<Integer> brand = g.read("brand", () -> nvml.brand(device));
    Optional<Integer> architecture = g.read("architecture", () -> nvml.architecture(device));
    var cc = g.read("CUDA compute capability", () -> nvml.cudaComputeCapability(device));
    Optional<String> serial = g.read("serial number", () -> nvml.serial(device));
    Optional<String> part = g.read("board part number", () -> nvml.boardPartNumber(device));
    Optional<String> vbios = g.read("VBIOS version", () -> nvml.vbiosVersion(device));
    var memory = g.read("memory info", () -> nvml.memoryInfo(device));
    // NOT_SUPPORTED from nvmlDeviceGetMigMode means "not MIG-capable" (NVML API Reference,
    // nvmlDeviceGetMigMode), not a failure: such a GPU has MIG disabled.
    Optional<MigMode> mig = g.read("MIG mode", () -> nvml.migMode(device), new MigMode(false, false));
    List<MigInfo> migs = new ArrayList<>();
    if (mig.map(MigMode::current).orElse(false)) {
      int max = g.read("MIG device count", () -> nvml.maxMigDeviceCount(device)).orElse(0);
      for (int slot = 0; slot < max && !g.lost; slot++) {
        readMig(g, device, slot, label).ifPresent(migs::add);
      }
    }
    return new GpuInfo(index, pci, minor, uuid, name, brand, architecture, cc, serial, part, vbios,
        memory, mig, migs, g.lost);
  }

  private Optional<MigInfo> readMig(Facts parent, NvmlDevice gpu, int slot, String label) {
    NvmlDevice mig;
    try {
      mig = nvml.migDeviceByIndex(gpu, slot);
    } catch (NvmlException e) {
      switch (e.status()) {
        case ERROR_NOT_FOUND, ERROR_INVALID_ARGUMENT -> { }
        case ERROR_GPU_IS_LOST -> parent.lost = true;
        default -> warn.accept(label + " MIG device " + slot + " not read: " + e.getMessage());
      }
      return Optional.empty();
    }
    Facts m = new Facts(label + " MIG device " + slot);
    Optional<String> uuid = m.read("UUID", () -> nvml.uuid(mig));
    Optional<String> name = m.read("name", () -> nvml.name(mig));
    Optional<Integer> gi = m.read("GPU instance id", () -> nvml.gpuInstanceId(mig));
    Optional<Integer> ci = m.read("compute instance id", () -> nvml.computeInstanceId(mig));
    var attributes = m.read("attributes", () -> nvml.migAttributes(mig));
    var memory = m.read("memory info", () -> nvml.memoryInfo(mig));
    if (m.lost) {
      parent.lost = true;
      return Optional.empty();
    }
    return Optional.of(new MigInfo(slot, uuid, name, gi, ci, attributes, memory));
  }
}
