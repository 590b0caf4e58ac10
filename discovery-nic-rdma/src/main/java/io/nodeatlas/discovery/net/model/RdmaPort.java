package io.nodeatlas.discovery.net.model;

import java.util.Optional;
import java.util.OptionalInt;

/** {@code /sys/class/infiniband/<ibdev>/ports/<number>/}; every fact is optional because any file may be unreadable. */
public record RdmaPort(
    int number,
    Optional<NumberedState> state,
    Optional<NumberedState> physState,
    Optional<LinkLayer> linkLayer,
    Optional<Rate> rate,
    OptionalInt lid,
    OptionalInt smLid,
    GidTable gids) {}
