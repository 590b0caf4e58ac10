package io.nodeatlas.discovery.cpu.doctor;

import io.nodeatlas.discovery.cpu.CpuNumaDevices;
import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.host.HostFs;
import java.util.List;
import java.util.Set;

/**
 * The cgroup hierarchy the hook writes to: cgroup v2 with the {@code cpuset} controller (and
 * {@code hugetlb} where hugepages are shared) in the root's {@code cgroup.controllers}
 * (Documentation/admin-guide/cgroup-v2.rst), or cgroup v1 with those hierarchies mounted.
 */
final class CgroupCheck implements DoctorCheck {

  @Override
  public String name() {
    return "cpu.cgroup";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    HostFs fs = context.host().fs();
    boolean pages = !FamilyDevices.ofType(context.devices(), CpuNumaDevices.HUGEPAGES_TYPE).isEmpty();
    var controllers = fs.readValue(fs.sys("fs/cgroup/cgroup.controllers"));
    if (controllers.isPresent()) {
      Set<String> have = Set.of(controllers.get().split("\\s+"));
      if (!have.contains("cpuset")) {
        return List.of(Finding.warn("cpu.cgroup", "cgroup v2 without the cpuset controller (" + controllers.get() + ")",
            "CPU shares cannot be pinned: boot with the cpuset controller available (it is unless cgroup_disable=cpuset)"));
      }
      if (pages && !have.contains("hugetlb")) {
        return List.of(Finding.warn("cpu.cgroup", "cgroup v2 without the hugetlb controller (" + controllers.get() + ")",
            "hugepage shares are not limited per container: use a kernel built with CONFIG_CGROUP_HUGETLB"));
      }
      return List.of(Finding.ok("cpu.cgroup", "cgroup v2 with " + controllers.get()));
    }
    if (fs.isDirectory(fs.sys("fs/cgroup/cpuset"))) {
      return List.of(Finding.ok("cpu.cgroup", "cgroup v1 with a cpuset hierarchy; the hook writes cpuset.cpus there"));
    }
    return List.of(Finding.warn("cpu.cgroup", "no cgroup file system under /sys/fs/cgroup",
        "mount cgroup2 on /sys/fs/cgroup (systemd does), or give doctor the host's /sys with --sysfs-root"));
  }
}
