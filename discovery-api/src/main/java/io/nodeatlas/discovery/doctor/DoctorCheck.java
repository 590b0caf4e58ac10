package io.nodeatlas.discovery.doctor;

import java.util.List;

/**
 * One preflight check of {@code nodeatlas doctor}: it reads the node through the context (never
 * outside the host root, every file bounded) and reports findings. A module contributes the checks of
 * what it owns: a device family through {@link io.nodeatlas.discovery.spi.DiscoverySource#doctorChecks()},
 * the CDI writer and the agent through their own lists. A check that throws costs only its own findings.
 */
public interface DoctorCheck {

  /** The check's dotted name, the prefix of its findings' names ({@code cdi.runtime}). */
  String name();

  List<Finding> run(DoctorContext context);
}
