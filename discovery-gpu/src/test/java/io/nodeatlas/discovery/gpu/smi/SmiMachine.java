package io.nodeatlas.discovery.gpu.smi;

import java.util.List;
import java.util.Optional;

/**
 * What {@code nvidia-smi -q} (text or {@code -x} XML) printed about one machine, as far as the
 * conformance test compares it. Values nvidia-smi prints as {@code N/A} are empty.
 */
public record SmiMachine(Optional<String> driverVersion, Optional<String> cudaVersion, List<Gpu> gpus) {

  public SmiMachine {
    gpus = List.copyOf(gpus);
  }

  /** One GPU; {@code migMode} is {@code Enabled}, {@code Disabled} or empty (not MIG-capable). */
  public record Gpu(
      String busId,
      String name,
      String uuid,
      Optional<Integer> minor,
      long memoryTotalMiB,
      Optional<String> brand,
      Optional<String> architecture,
      Optional<String> serial,
      Optional<String> vbios,
      Optional<String> boardPartNumber,
      Optional<Long> pciDeviceId,
      Optional<Long> pciSubSystemId,
      Optional<String> migMode,
      List<Mig> migDevices) {
    public Gpu {
      migDevices = List.copyOf(migDevices);
    }
  }

  /** One MIG device; UUID and profile come from {@code nvidia-smi -L} when the capture has it. */
  public record Mig(
      int index,
      int gpuInstanceId,
      int computeInstanceId,
      long memoryTotalMiB,
      int multiprocessors,
      int copyEngines,
      int decoders,
      int encoders,
      int jpegEngines,
      int ofaEngines,
      Optional<String> uuid,
      Optional<String> profile) {}
}
