package io.nodeatlas.discovery.gpu;

import java.util.Optional;

/**
 * The values published for NVML's brand and architecture enums ({@code nvmlBrandType_t},
 * {@code nvmlDeviceArchitecture_t} in {@code nvml.h}). The words are NVIDIA's own names for the enum
 * constants (as go-nvlib's {@code GetBrandAsString} and its architecture names spell them), written
 * in lower case as every enum-like value we publish is: {@code nvidia}, {@code geforcertx},
 * {@code hopper}, {@code ada lovelace}. A selector written for {@code gpu.nvidia.com} compares the
 * same words, lower-cased.
 */
public final class NvmlNames {

  private static final String[] BRANDS = {
    "unknown", "quadro", "tesla", "nvs", "grid", "geforce", "titan", "nvidiavapps", "nvidiavpc",
    "nvidiavcs", "nvidiavws", "nvidiacloudgaming", "quadrortx", "nvidiartx", "nvidia", "geforcertx",
    "titanrtx"
  };

  private NvmlNames() {}

  /** {@code nvmlBrandType_t} → name; empty for values this build does not know. */
  public static Optional<String> brand(int value) {
    return value >= 0 && value < BRANDS.length ? Optional.of(BRANDS[value]) : Optional.empty();
  }

  /** {@code nvmlDeviceArchitecture_t} → name; empty for undefined values (11, 12, …). */
  public static Optional<String> architecture(int value) {
    return Optional.ofNullable(switch (value) {
      case 2 -> "kepler";
      case 3 -> "maxwell";
      case 4 -> "pascal";
      case 5 -> "volta";
      case 6 -> "turing";
      case 7 -> "ampere";
      case 8 -> "ada lovelace";
      case 9 -> "hopper";
      case 10 -> "blackwell";
      case 13 -> "rubin";
      case -1 -> "unknown"; // NVML_DEVICE_ARCH_UNKNOWN = 0xffffffff
      default -> null;
    });
  }
}
