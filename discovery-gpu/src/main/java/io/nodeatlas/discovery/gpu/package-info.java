/**
 * The {@code gpu} discovery source: NVIDIA GPUs and MIG devices through NVML (JNA binding in
 * {@code io.nodeatlas.discovery.gpu.nvml}), the PCI function's facts from sysfs, and the device
 * nodes and driver files a container needs, from {@code /proc}, {@code /dev} and the driver root.
 */
package io.nodeatlas.discovery.gpu;
