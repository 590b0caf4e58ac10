package io.nodeatlas.discovery.net.model;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code /sys/class/infiniband/<ibdev>/ports/<number>/}; every fact is optional because any file may be
 * unreadable. {@code sm_lid} is not read: it is published nowhere, and every file costs syscalls per VF.
 */
public record RdmaPort(
    int number,
    Optional<NumberedState> state,
    Optional<NumberedState> physState,
    Optional<LinkLayer> linkLayer,
    Optional<Rate> rate,
    OptionalInt lid,
    GidTable gids) {}
