package io.nodeatlas.discovery.gpu.nvml;

/**
 * A loaded NVML library: the seam between the GPU source and the native code. The only way in is
 * {@link #init()}, which returns a session that must be closed, so {@code nvmlInit_v2} and
 * {@code nvmlShutdown} are always paired (NVML's init is reference-counted and shared with other
 * users of the library in this process).
 */
public interface NvmlLibrary {

  /** Calls {@code nvmlInit_v2}; the returned session calls {@code nvmlShutdown} on close. */
  NvmlSession init() throws NvmlException;

  /** Where the library was loaded from, for messages. */
  String description();
}
