/**
 * The {@code accel} discovery source: GPUs driven through the kernel's DRM subsystem (AMD on
 * {@code amdgpu}/{@code radeon}, Intel on {@code i915}/{@code xe}, and any other DRM driver of a PCI
 * function), read from {@code /sys/class/drm} and the PCI functions behind it, published as
 * {@code gpu} devices with the {@code /dev/dri} nodes (and {@code /dev/kfd} for ROCm) a container
 * needs. NVIDIA GPUs on the {@code nvidia} driver belong to the {@code gpu} source (NVML).
 *
 * <p>Layers: {@code parse} turns sysfs text into values and never touches files; the readers here
 * ({@link io.nodeatlas.discovery.accel.DrmScanner}, {@link io.nodeatlas.discovery.accel.GpuReader},
 * {@link io.nodeatlas.discovery.accel.PciIdsReader}) go through a
 * {@link io.nodeatlas.discovery.host.FactReader} and return records;
 * {@link io.nodeatlas.discovery.accel.AccelDevices} publishes them.
 */
package io.nodeatlas.discovery.accel;
