package io.nodeatlas.cdi.doctor;

import java.util.List;
import java.util.Optional;

/**
 * What one container runtime's configuration says about CDI, as read from its files.
 *
 * @param runtime {@code containerd}, {@code cri-o} or {@code podman}
 * @param installed whether the runtime is on the node (its binary, package or configuration)
 * @param files the configuration files read, in the order the runtime merges them
 * @param version the installed package's version, where the package database says it
 * @param cdiEnabled whether CDI injection is on; empty when the configuration leaves it to a default
 *     that depends on the version we could not read
 * @param specDirs the directories the runtime reads CDI specs from, highest priority last
 * @param nri whether the Node Resource Interface is on; empty when unknown
 * @param notes what the files left to defaults, and what could not be read
 * @param section where the CDI settings go, as the runtime's documentation names it
 */
public record RuntimeConfig(String runtime, boolean installed, List<String> files, Optional<String> version,
    Optional<Boolean> cdiEnabled, List<String> specDirs, Optional<Boolean> nri, List<String> notes, String section) {

  /** The CDI directories of the reference library and every runtime's default. */
  public static final List<String> DEFAULT_SPEC_DIRS = List.of("/etc/cdi", "/var/run/cdi");

  public RuntimeConfig {
    files = List.copyOf(files);
    specDirs = List.copyOf(specDirs);
    notes = List.copyOf(notes);
  }
}
