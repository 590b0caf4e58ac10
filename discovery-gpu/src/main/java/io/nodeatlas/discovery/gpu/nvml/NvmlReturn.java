package io.nodeatlas.discovery.gpu.nvml;

/**
 * {@code nvmlReturn_t}, the status every NVML call returns ({@code nvml.h}, NVML API Reference,
 * "Error reporting"). Codes this build does not know (a newer driver) map to {@link #UNKNOWN_CODE};
 * the numeric value is kept in {@link NvmlException#code()} so that nothing is lost.
 */
public enum NvmlReturn {
  SUCCESS(0),
  ERROR_UNINITIALIZED(1),
  ERROR_INVALID_ARGUMENT(2),
  ERROR_NOT_SUPPORTED(3),
  ERROR_NO_PERMISSION(4),
  ERROR_ALREADY_INITIALIZED(5),
  ERROR_NOT_FOUND(6),
  ERROR_INSUFFICIENT_SIZE(7),
  ERROR_INSUFFICIENT_POWER(8),
  ERROR_DRIVER_NOT_LOADED(9),
  ERROR_TIMEOUT(10),
  ERROR_IRQ_ISSUE(11),
  ERROR_LIBRARY_NOT_FOUND(12),
  ERROR_FUNCTION_NOT_FOUND(13),
  ERROR_CORRUPTED_INFOROM(14),
  ERROR_GPU_IS_LOST(15),
  ERROR_RESET_REQUIRED(16),
  ERROR_OPERATING_SYSTEM(17),
  ERROR_LIB_RM_VERSION_MISMATCH(18),
  ERROR_IN_USE(19),
  ERROR_MEMORY(20),
  ERROR_NO_DATA(21),
  ERROR_VGPU_ECC_NOT_SUPPORTED(22),
  ERROR_INSUFFICIENT_RESOURCES(23),
  ERROR_FREQ_NOT_SUPPORTED(24),
  ERROR_ARGUMENT_VERSION_MISMATCH(25),
  ERROR_DEPRECATED(26),
  ERROR_NOT_READY(27),
  ERROR_GPU_NOT_FOUND(28),
  ERROR_INVALID_STATE(29),
  ERROR_RESET_TYPE_NOT_SUPPORTED(30),
  ERROR_UNKNOWN(999),
  /** A code this build does not know. */
  UNKNOWN_CODE(-1);

  private final int code;

  NvmlReturn(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static NvmlReturn of(int code) {
    for (NvmlReturn r : values()) {
      if (r.code == code && r != UNKNOWN_CODE) {
        return r;
      }
    }
    return UNKNOWN_CODE;
  }

  /** The C name, e.g. {@code NVML_ERROR_NOT_SUPPORTED}, as users find it in NVIDIA's documentation. */
  public String cName() {
    return this == UNKNOWN_CODE ? "NVML_ERROR_UNKNOWN_CODE" : "NVML_" + name();
  }
}
