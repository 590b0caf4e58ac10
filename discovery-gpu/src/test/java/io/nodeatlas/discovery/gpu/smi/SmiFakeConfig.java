package io.nodeatlas.discovery.gpu.smi;

import io.nodeatlas.discovery.gpu.FakeNvml;
import io.nodeatlas.discovery.gpu.smi.SmiMachine.Gpu;
import io.nodeatlas.discovery.gpu.smi.SmiMachine.Mig;
import java.util.Map;
import java.util.Optional;

/** Builds the fake NVML configuration that answers as the machine nvidia-smi described. */
public final class SmiFakeConfig {

  /** nvidia-smi's "Product Brand" → {@code nvmlBrandType_t}, as {@code nvml.h} numbers it. */
  private static final Map<String, Integer> BRANDS = Map.ofEntries(
      Map.entry("Unknown", 0), Map.entry("Quadro", 1), Map.entry("Tesla", 2), Map.entry("NVS", 3),
      Map.entry("Grid", 4), Map.entry("GeForce", 5), Map.entry("Titan", 6), Map.entry("Quadro RTX", 12),
      Map.entry("NVIDIA RTX", 13), Map.entry("NVIDIA", 14));

  /** nvidia-smi's "Product Architecture" → {@code nvmlDeviceArchitecture_t}. */
  private static final Map<String, Integer> ARCHITECTURES = Map.of(
      "Kepler", 2, "Maxwell", 3, "Pascal", 4, "Volta", 5, "Turing", 6, "Ampere", 7, "Ada Lovelace", 8,
      "Hopper", 9, "Blackwell", 10);

  private SmiFakeConfig() {}

  public static Optional<Integer> brandCode(String printed) {
    return Optional.ofNullable(BRANDS.get(printed));
  }

  public static Optional<Integer> architectureCode(String printed) {
    return Optional.ofNullable(ARCHITECTURES.get(printed));
  }

  public static FakeNvml.Config from(SmiMachine machine) {
    FakeNvml.Config c = FakeNvml.config();
    machine.driverVersion().ifPresent(v -> c.set("driver.version", v));
    machine.cudaVersion().ifPresent(v -> c.set("cuda.driver.version", Integer.toString(NvidiaSmiParser.cudaVersionAsInt(v))));
    c.set("device.count", Integer.toString(machine.gpus().size()));
    for (int i = 0; i < machine.gpus().size(); i++) {
      Gpu g = machine.gpus().get(i);
      String p = "device." + i + ".";
      c.set(p + "name", g.name());
      c.set(p + "uuid", g.uuid());
      c.set(p + "pci.busid", g.busId());
      c.set(p + "memory.total", Long.toString(g.memoryTotalMiB() << 20));
      g.minor().ifPresent(v -> c.set(p + "minor", v.toString()));
      g.serial().ifPresent(v -> c.set(p + "serial", v));
      g.vbios().ifPresent(v -> c.set(p + "vbios", v));
      g.boardPartNumber().ifPresent(v -> c.set(p + "board_part_number", v));
      g.pciDeviceId().ifPresent(v -> c.set(p + "pci.device_id", "0x" + Long.toHexString(v)));
      g.pciSubSystemId().ifPresent(v -> c.set(p + "pci.subsystem_id", "0x" + Long.toHexString(v)));
      g.brand().flatMap(SmiFakeConfig::brandCode).ifPresent(v -> c.set(p + "brand", v.toString()));
      g.architecture().flatMap(SmiFakeConfig::architectureCode).ifPresent(v -> c.set(p + "architecture", v.toString()));
      g.migMode().ifPresent(m -> c.set(p + "mig.mode", m.equals("Enabled") ? "1" : "0"));
      c.set(p + "mig.count", Integer.toString(g.migDevices().size()));
      for (int j = 0; j < g.migDevices().size(); j++) {
        Mig m = g.migDevices().get(j);
        String q = p + "mig." + j + ".";
        c.set(q + "index", Integer.toString(m.index()));
        c.set(q + "gi", Integer.toString(m.gpuInstanceId()));
        c.set(q + "ci", Integer.toString(m.computeInstanceId()));
        c.set(q + "memory.total", Long.toString(m.memoryTotalMiB() << 20));
        c.set(q + "sm_count", Integer.toString(m.multiprocessors()));
        c.set(q + "ce_count", Integer.toString(m.copyEngines()));
        c.set(q + "dec_count", Integer.toString(m.decoders()));
        c.set(q + "enc_count", Integer.toString(m.encoders()));
        c.set(q + "jpg_count", Integer.toString(m.jpegEngines()));
        c.set(q + "ofa_count", Integer.toString(m.ofaEngines()));
        m.uuid().ifPresent(v -> c.set(q + "uuid", v));
        m.profile().ifPresent(v -> c.set(q + "profile", v));
      }
    }
    return c;
  }
}
