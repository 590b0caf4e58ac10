/**
 * The JNA binding of the NVML subset the GPU source needs. JNA types ({@code Pointer}, {@code
 * Memory}) never leave this package: callers see {@link io.nodeatlas.discovery.gpu.nvml.NvmlLibrary},
 * {@link io.nodeatlas.discovery.gpu.nvml.NvmlSession} and plain records.
 */
package io.nodeatlas.discovery.gpu.nvml;
