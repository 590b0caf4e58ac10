package io.nodeatlas.cdi.doctor;

import io.nodeatlas.cdi.CdiProblem;
import io.nodeatlas.cdi.CdiValidator;
import io.nodeatlas.cdi.spec.CdiContainerEdits;
import io.nodeatlas.cdi.spec.CdiDevice;
import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.doctor.HostFileFacts;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.HostFs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Whether every CDI spec in the directories the runtimes read resolves on this host, as a runtime
 * would resolve it when it creates a container (CDI specification, "Container edits"): each device
 * node exists, as the type and major:minor the spec says; each hook is an executable file; each bind
 * mount's source exists; and no device name is defined twice. Spec files are read bounded and only
 * inside the host root.
 */
final class CdiSpecsCheck implements DoctorCheck {

  /** At most this many problem findings; the rest are counted in one more. */
  static final int MAX_FINDINGS = 40;

  private final CdiDoctorChecks.RuntimeConfigs configs;

  CdiSpecsCheck(CdiDoctorChecks.RuntimeConfigs configs) {
    this.configs = configs;
  }

  @Override
  public String name() {
    return "cdi";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    HostFs fs = context.host().fs();
    Set<String> dirs = new LinkedHashSet<>();
    for (RuntimeConfig rc : configs.of(context)) {
      if (rc.installed() && rc.cdiEnabled().orElse(true)) {
        dirs.addAll(rc.specDirs());
      }
    }
    if (dirs.isEmpty()) {
      dirs.addAll(RuntimeConfig.DEFAULT_SPEC_DIRS);
    }
    dirs.add(context.layout().cdiDir());
    Problems problems = new Problems();
    CdiValidator validator = new CdiValidator();
    Map<String, List<String>> definers = new TreeMap<>();
    int files = 0;
    int devices = 0;
    for (String dir : dirs) {
      Path local = fs.fromHostPath(dir);
      List<Path> specFiles;
      try {
        if (!fs.isDirectory(local)) {
          continue;
        }
        specFiles = CdiValidator.specFiles(local);
      } catch (IOException | RuntimeException e) {
        problems.add(Finding.warn("cdi.specs", "cannot list " + dir + ": " + Excerpt.scrub(String.valueOf(e.getMessage())),
            "check the directory's permissions"));
        continue;
      }
      for (Path file : specFiles) {
        String hostFile = dir + "/" + file.getFileName();
        Optional<Path> real;
        try {
          real = fs.realPath(file);
        } catch (RuntimeException e) {
          problems.add(Finding.warn("cdi.specs", hostFile + " points outside the host root; not read",
              "replace the link with the spec file itself"));
          continue;
        }
        if (real.isEmpty()) {
          continue;
        }
        CdiValidator.LoadedFile loaded = validator.load(real.get());
        List<CdiProblem> content = loaded.problem() != null ? List.of(loaded.problem())
            : validator.validate(loaded.spec(), hostFile);
        if (!content.isEmpty()) {
          problems.add(Finding.fail("cdi.specs", hostFile + ": " + Excerpt.scrub(content.get(0).message())
              + (content.size() > 1 ? " (and " + (content.size() - 1) + " more)" : ""),
              "the runtime skips this whole file: fix or remove it (nodeatlas cdi validate " + hostFile + ")"));
          continue;
        }
        files++;
        CdiSpec spec = loaded.spec();
        edits(fs, hostFile, "", spec.containerEdits(), problems);
        for (CdiDevice device : spec.devices()) {
          devices++;
          String qualified = spec.qualifiedName(device.name());
          definers.computeIfAbsent(qualified, k -> new ArrayList<>()).add(hostFile);
          edits(fs, hostFile, qualified, device.containerEdits(), problems);
        }
      }
    }
    definers.forEach((name, where) -> {
      if (where.size() > 1) {
        problems.add(Finding.fail("cdi.specs", name + " is defined by " + String.join(" and ", where),
            "a runtime drops or overrides a device defined twice: remove the stale file"));
      }
    });
    List<Finding> out = problems.list();
    if (out.isEmpty()) {
      out.add(Finding.ok("cdi.specs", Finding.count(files, "spec file") + " with " + Finding.count(devices, "device") + " in " + String.join(", ", dirs)
          + ": every device node, hook and mount source exists"));
    }
    return out;
  }

  private static void edits(HostFs fs, String file, String device, CdiContainerEdits edits, Problems problems) {
    if (edits == null) {
      return;
    }
    String who = file + (device.isEmpty() ? "" : " " + device);
    for (CdiContainerEdits.DeviceNode node : edits.deviceNodes()) {
      String hostPath = node.hostPath() != null ? node.hostPath() : node.path();
      Optional<HostFileFacts> stat = HostFileFacts.of(fs, hostPath);
      if (stat.isEmpty()) {
        problems.add(Finding.fail("cdi.devices", who + ": device node " + hostPath + " does not exist on this host",
            "load the device's driver (or create the node), then regenerate the specs: nodeatlas cdi generate"));
        continue;
      }
      HostFileFacts s = stat.get();
      if (!s.isDevice()) {
        problems.add(Finding.fail("cdi.devices", who + ": " + hostPath + " is not a device node",
            "remove what is at " + hostPath + " and reload the driver"));
      } else if (node.type() != null && !node.type().equals(s.type())) {
        problems.add(Finding.fail("cdi.devices", who + ": " + hostPath + " is a " + word(s.type()) + " device, the spec says "
            + word(node.type()), "regenerate the spec: nodeatlas cdi generate"));
      } else if ((node.major() != null && node.major() != s.major()) || (node.minor() != null && node.minor() != s.minor())) {
        problems.add(Finding.fail("cdi.devices", who + ": " + hostPath + " is " + s.major() + ":" + s.minor()
            + ", the spec says " + node.major() + ":" + node.minor()
            + " (the driver was reloaded or the node renumbered)", "regenerate the spec: nodeatlas cdi generate"));
      }
    }
    for (CdiContainerEdits.Hook hook : edits.hooks()) {
      Optional<HostFileFacts> stat = HostFileFacts.of(fs, hook.path());
      if (stat.isEmpty()) {
        problems.add(Finding.fail("cdi.hooks", who + ": hook " + hook.path() + " does not exist on this host",
            "install it there (systemd/install.sh, or the DaemonSet's init container copies it)"));
      } else if (!stat.get().isExecutableFile()) {
        problems.add(Finding.fail("cdi.hooks", who + ": hook " + hook.path() + " is not an executable file",
            "chmod 0755 " + hook.path()));
      }
    }
    for (CdiContainerEdits.Mount mount : edits.mounts()) {
      boolean bind = "bind".equals(mount.type()) || mount.options().contains("bind") || mount.options().contains("rbind");
      if (bind && mount.hostPath().startsWith("/") && HostFileFacts.of(fs, mount.hostPath()).isEmpty()) {
        problems.add(Finding.fail("cdi.mounts", who + ": mount source " + mount.hostPath() + " does not exist on this host",
            "the runtime fails the container: regenerate the spec (nodeatlas cdi generate) or restore the file"));
      }
    }
  }

  private static String word(String type) {
    return switch (type) {
      case "c", "u" -> "character";
      case "b" -> "block";
      case "p" -> "FIFO";
      default -> type;
    };
  }

  /** Findings up to {@link #MAX_FINDINGS}, then one that counts the rest. */
  private static final class Problems {
    private final List<Finding> findings = new ArrayList<>();
    private int dropped;

    void add(Finding f) {
      if (findings.size() < MAX_FINDINGS) {
        findings.add(f);
      } else {
        dropped++;
      }
    }

    List<Finding> list() {
      List<Finding> out = new ArrayList<>(findings);
      if (dropped > 0) {
        out.add(Finding.fail("cdi.specs", dropped + " more problems like the ones above", "fix those first, then run doctor again"));
      }
      return out;
    }
  }
}
