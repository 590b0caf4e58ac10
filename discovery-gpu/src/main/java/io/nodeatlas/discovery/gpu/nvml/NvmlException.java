package io.nodeatlas.discovery.gpu.nvml;

/**
 * An NVML call did not return {@code NVML_SUCCESS}. The message carries the function, the
 * library's own text ({@code nvmlErrorString}, display only) and the C name of the code.
 */
public final class NvmlException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String function;
  private final int code;

  public NvmlException(String function, int code, String description) {
    super(function + ": " + description + " (" + NvmlReturn.of(code).cName()
        + (NvmlReturn.of(code) == NvmlReturn.UNKNOWN_CODE ? " " + code : "") + ")");
    this.function = function;
    this.code = code;
  }

  /** The NVML function that failed, e.g. {@code nvmlDeviceGetSerial}. */
  public String function() {
    return function;
  }

  /** The raw {@code nvmlReturn_t} value. */
  public int code() {
    return code;
  }

  public NvmlReturn status() {
    return NvmlReturn.of(code);
  }
}
