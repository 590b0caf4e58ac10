package io.nodeatlas.discovery.net.model;

import java.util.Optional;

/**
 * One populated GID table entry. {@code gid} is the 16-byte GID in the kernel's {@code %pI6} form
 * (8 groups of 4 lower-case hex digits); {@code type} and {@code ndev} are absent on InfiniBand,
 * on pre-4.4 kernels and when the read failed.
 */
public record GidEntry(int index, String gid, Optional<GidType> type, Optional<String> ndev) {}
