package io.nodeatlas.cdi.doctor;

import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether each container runtime on the node reads the CDI specs we write: CDI injection on, and our
 * directory among its spec directories (the CDI specification's runtime integration; containerd 1.7+
 * {@code enable_cdi}, CRI-O and podman {@code cdi_spec_dirs}). Also says whether NRI is on.
 */
final class RuntimeCdiCheck implements DoctorCheck {

  private final CdiDoctorChecks.RuntimeConfigs configs;

  RuntimeCdiCheck(CdiDoctorChecks.RuntimeConfigs configs) {
    this.configs = configs;
  }

  @Override
  public String name() {
    return "runtime";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    List<Finding> out = new ArrayList<>();
    String ours = context.layout().cdiDir();
    boolean any = false;
    for (RuntimeConfig rc : configs.of(context)) {
      if (!rc.installed()) {
        continue;
      }
      any = true;
      out.addAll(findings(rc, ours));
    }
    if (!any) {
      out.add(Finding.warn("runtime", "no containerd, CRI-O or podman on this node (no binary, package or configuration)",
          "install a CDI-capable runtime: containerd 1.7+, CRI-O 1.23+ or podman 4.1+"));
    }
    return out;
  }

  static List<Finding> findings(RuntimeConfig rc, String ourDir) {
    List<Finding> out = new ArrayList<>();
    String check = "runtime." + rc.runtime();
    String who = rc.runtime() + rc.version().map(v -> " " + v).orElse("")
        + (rc.files().isEmpty() ? " (built-in defaults)" : " (" + String.join(", ", rc.files()) + ")");
    for (String note : rc.notes()) {
      if (note.startsWith("cannot read")) {
        out.add(Finding.warn(check, who + ": " + note, "fix the file's syntax; the runtime may refuse to start with it"));
      }
    }
    String where = rc.section();
    if (rc.cdiEnabled().isEmpty()) {
      out.add(Finding.warn(check, who + ": " + String.join("; ", rc.notes()),
          "set enable_cdi = true under " + where + " and restart containerd"));
    } else if (!rc.cdiEnabled().get()) {
      boolean old = rc.notes().stream().anyMatch(n -> n.contains("older than 1.7") || n.contains("has no CDI"));
      out.add(Finding.fail(check, who + ": CDI is off, so containers get none of the devices we prepare"
          + (rc.notes().isEmpty() ? "" : " (" + String.join("; ", rc.notes()) + ")"),
          old ? "upgrade containerd to 1.7 or newer and set enable_cdi = true under " + where
              : "set enable_cdi = true under " + where + " and restart containerd"));
    } else if (!reads(rc.specDirs(), ourDir)) {
      out.add(Finding.fail(check, who + ": reads CDI specs from " + String.join(", ", rc.specDirs())
          + ", not from " + ourDir + " where nodeatlas writes them",
          "add \"" + ourDir + "\" to cdi_spec_dirs under " + where + " and restart " + rc.runtime()
              + ", or run nodeatlas with --cdi-root set to one of those directories"));
    } else {
      out.add(Finding.ok(check, who + ": CDI on, reads " + String.join(", ", rc.specDirs())));
    }
    if (rc.nri().isPresent() || rc.runtime().equals("containerd") || rc.runtime().equals("cri-o")) {
      String state = rc.nri().map(on -> on ? "on" : "off").orElse("not set (the version's default)");
      out.add(Finding.ok(check + ".nri", rc.runtime() + ": NRI " + state
          + "; with NRI on, an NRI plugin could place CPUs and memory without the OCI hook"));
    }
    return out;
  }

  /** Whether {@code dirs} holds {@code dir}, taking {@code /var/run} as the link to {@code /run} it is. */
  static boolean reads(List<String> dirs, String dir) {
    String want = canonical(dir);
    return dirs.stream().map(RuntimeCdiCheck::canonical).anyMatch(want::equals);
  }

  private static String canonical(String dir) {
    String d = dir.endsWith("/") && dir.length() > 1 ? dir.substring(0, dir.length() - 1) : dir;
    return d.startsWith("/var/run/") ? d.substring(4) : d.equals("/var/run") ? "/run" : d;
  }
}
