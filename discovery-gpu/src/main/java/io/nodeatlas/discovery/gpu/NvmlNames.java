package io.nodeatlas.discovery.gpu;

import java.util.Optional;

/**
 * The strings NVIDIA's DRA driver publishes for NVML's brand and architecture enums (go-nvlib's
 * {@code GetBrandAsString} and architecture names; nvml.md §1.5), so that selectors written for
 * {@code gpu.nvidia.com} read the same against {@code nodeatlas.io}.
 */
public final class NvmlNames {

  private static final String[] BRANDS = {
    "Unknown", "Quadro", "Tesla", "NVS", "Grid", "GeForce", "Titan", "NvidiaVApps", "NvidiaVPC",
    "NvidiaVCS", "NvidiaVWS", "NvidiaCloudGaming", "QuadroRTX", "NvidiaRTX", "Nvidia", "GeForceRTX",
    "TitanRTX"
  };

  private NvmlNames() {}

  /** {@code nvmlBrandType_t} → name; empty for values this build does not know. */
  public static Optional<String> brand(int value) {
    return value >= 0 && value < BRANDS.length ? Optional.of(BRANDS[value]) : Optional.empty();
  }

  /** {@code nvmlDeviceArchitecture_t} → name; empty for undefined values (11, 12, …). */
  public static Optional<String> architecture(int value) {
    return Optional.ofNullable(switch (value) {
      case 2 -> "Kepler";
      case 3 -> "Maxwell";
      case 4 -> "Pascal";
      case 5 -> "Volta";
      case 6 -> "Turing";
      case 7 -> "Ampere";
      case 8 -> "Ada Lovelace";
      case 9 -> "Hopper";
      case 10 -> "Blackwell";
      case 13 -> "Rubin";
      case -1 -> "Unknown"; // NVML_DEVICE_ARCH_UNKNOWN = 0xffffffff
      default -> null;
    });
  }
}
