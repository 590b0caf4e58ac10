package io.nodeatlas.cdi.doctor;

import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import java.util.List;

/**
 * The CDI writer's doctor checks: whether the runtimes read our specs, and whether every spec they read
 * resolves. Both read the runtimes' configuration, once per doctor run.
 */
public final class CdiDoctorChecks {

  private CdiDoctorChecks() {}

  public static List<DoctorCheck> all() {
    RuntimeConfigs configs = new RuntimeConfigs();
    return List.of(new RuntimeCdiCheck(configs), new CdiSpecsCheck(configs));
  }

  /** The runtimes' configuration of the context last asked about, read once for both checks. */
  static final class RuntimeConfigs {
    private DoctorContext context;
    private List<RuntimeConfig> configs;

    synchronized List<RuntimeConfig> of(DoctorContext c) {
      if (c != context) {
        configs = new RuntimeConfigReader(c.host().fs()).read();
        context = c;
      }
      return configs;
    }
  }
}
