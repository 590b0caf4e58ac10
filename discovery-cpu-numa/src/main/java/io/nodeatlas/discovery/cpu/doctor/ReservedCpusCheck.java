package io.nodeatlas.discovery.cpu.doctor;

import io.nodeatlas.discovery.cpu.CpuNumaDevices;
import io.nodeatlas.discovery.cpu.CpuNumaSource;
import io.nodeatlas.discovery.cpu.parse.ReservedCpus;
import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.doctor.KubeletFacts;
import io.nodeatlas.discovery.model.Device;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPUs the kubelet keeps for the system ({@code reservedSystemCPUs}, KubeletConfiguration) against
 * ours ({@code --reserved-cpus}), and the kubelet's CPU manager: with the {@code static} policy it hands
 * out exclusive CPUs itself, which would overlap the CPUs our claims get.
 */
final class ReservedCpusCheck implements DoctorCheck {

  @Override
  public String name() {
    return "cpu.reserved";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    List<Device> cpus = FamilyDevices.ofType(context.devices(), CpuNumaDevices.CPU_TYPE);
    KubeletFacts k = context.kubelet();
    List<Finding> out = new ArrayList<>();
    if (cpus.isEmpty() || !k.running()) {
      out.add(Finding.ok("cpu.reserved", cpus.isEmpty() ? "no CPU devices published" : "no kubelet to compare with"));
      return out;
    }
    String ours = context.host().options().get(CpuNumaSource.RESERVED_CPUS).orElse("");
    String theirs = k.reservedSystemCpus().orElse("");
    if (!same(ours, theirs)) {
      out.add(Finding.warn("cpu.reserved", "the kubelet reserves CPUs " + (theirs.isEmpty() ? "none" : theirs)
          + " for the system, nodeatlas " + (ours.isEmpty() ? "none" : ours)
          + ": claims could get CPUs the system uses, or leave CPUs nobody can claim",
          "run nodeatlas with --reserved-cpus " + (theirs.isEmpty() ? "\"\"" : theirs) + " (NODEATLAS_RESERVED_CPUS)"));
    }
    if (k.cpuManagerPolicy().map("static"::equalsIgnoreCase).orElse(false)) {
      out.add(Finding.warn("cpu.reserved", "the kubelet's CPU manager policy is static: it pins Guaranteed pods to CPUs "
          + "that nodeatlas may also give to claims",
          "use cpuManagerPolicy: none on nodes where nodeatlas publishes CPUs, or leave CPUs out (--sources all,-cpu-numa)"));
    }
    if (out.isEmpty()) {
      out.add(Finding.ok("cpu.reserved", "reserved CPUs agree with the kubelet's: " + (ours.isEmpty() ? "none" : ours)));
    }
    return out;
  }

  private static boolean same(String a, String b) {
    try {
      return ReservedCpus.parse(a).equals(ReservedCpus.parse(b));
    } catch (IllegalArgumentException e) {
      return a.strip().equals(b.strip());
    }
  }
}
