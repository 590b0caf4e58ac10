package io.nodeatlas.discovery.accel;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@code amdgpu} adds to its PCI function's sysfs directory (kernel
 * {@code Documentation/gpu/amdgpu/driver-misc.rst}): the board's FRU fields {@code product_name},
 * {@code product_number} and {@code serial_number} (boards with a FRU EEPROM, mostly server parts),
 * {@code unique_id} (GFX9 and newer), {@code vbios_version}, and the VRAM sizes
 * {@code mem_info_vram_total} and {@code mem_info_vis_vram_total} (the part the CPU can map through
 * the BAR).
 */
public record AmdgpuFacts(
    Optional<String> productName,
    Optional<String> productNumber,
    Optional<String> serialNumber,
    Optional<String> uniqueId,
    Optional<String> vbiosVersion,
    OptionalLong vramBytes,
    OptionalLong visibleVramBytes) {}
