package io.nodeatlas.discovery.gpu.nvml;

/**
 * An opaque {@code nvmlDevice_t} (a GPU or a MIG device), valid only inside the {@link NvmlSession}
 * that produced it: NVML handles die with {@code nvmlShutdown}. Callers never look inside.
 */
public record NvmlDevice(long handle) {}
