package io.nodeatlas.discovery.net.model;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code /sys/bus/pci/devices/<bdf>} (§2.2). Ids are lower-case hex without {@code 0x}; {@code numaNode}
 * is absent when the kernel says {@code -1}; {@code pcieRoot} is the host bridge ({@code pci0000:15}).
 */
public record PciFunction(
    String bdf,
    Optional<String> vendor,
    Optional<String> device,
    Optional<String> subsystemVendor,
    Optional<String> subsystemDevice,
    Optional<String> classCode,
    OptionalInt numaNode,
    Optional<String> driver,
    Optional<String> linkSpeed,
    OptionalInt linkWidth,
    Optional<String> pcieRoot,
    SriovRole sriov) {}
