package io.nodeatlas.discovery.cpu.doctor;

import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.doctor.HostFileFacts;
import io.nodeatlas.discovery.model.Device;
import java.util.List;
import java.util.Optional;

/**
 * The cpuset/hugetlb OCI hook that CPU and hugepage shares name in their CDI specs: present at the
 * hook path, an executable file, root's and writable by nobody else (runtimes run it as root on the
 * host, as a {@code createRuntime} hook of the OCI runtime specification).
 */
final class CpusetHookCheck implements DoctorCheck {

  @Override
  public String name() {
    return "cpu.hook";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    List<Device> hooked = FamilyDevices.hooked(context.devices());
    String path = context.layout().hookPath();
    Optional<HostFileFacts> facts = HostFileFacts.of(context.host().fs(), path);
    if (hooked.isEmpty()) {
      return List.of(Finding.ok("cpu.hook", "no CPU or hugepage shares are published here; the hook is not needed"));
    }
    String need = Finding.count(hooked.size(), "shared CPU or hugepage device") + (hooked.size() == 1 ? " names" : " name")
        + " the hook " + path;
    if (facts.isEmpty()) {
      return List.of(Finding.fail("cpu.hook", need + ", which does not exist: their containers fail to start",
          "install it: systemd/install.sh puts it there; the DaemonSet's init container copies it (set --hook-path to match)"));
    }
    HostFileFacts f = facts.get();
    if (!f.isExecutableFile()) {
      return List.of(Finding.fail("cpu.hook", need + ", which is not an executable file", "chmod 0755 " + path));
    }
    if (!f.ownedByTrusted(context.host().fs()) || f.writableByOthers()) {
      return List.of(Finding.fail("cpu.hook", need + String.format(", owned by uid %d with mode %04o: whoever can "
          + "write it runs code as root in every such container's start", f.uid(), f.permissions()),
          "chown root:root " + path + " && chmod 0755 " + path));
    }
    return List.of(Finding.ok("cpu.hook", need + String.format(": root's, mode %04o", f.permissions())));
  }
}
