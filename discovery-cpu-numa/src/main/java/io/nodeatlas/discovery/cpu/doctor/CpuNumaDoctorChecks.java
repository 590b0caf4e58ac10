package io.nodeatlas.discovery.cpu.doctor;

import io.nodeatlas.discovery.doctor.DoctorCheck;
import java.util.List;

/** What the CPU, NUMA and hugepage family needs on a node for its shares to reach containers. */
public final class CpuNumaDoctorChecks {

  private CpuNumaDoctorChecks() {}

  public static List<DoctorCheck> all() {
    return List.of(new CpusetHookCheck(), new CgroupCheck(), new HugepagesCheck(), new ReservedCpusCheck());
  }
}
