package io.nodeatlas.agent.doctor;

import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.doctor.KubeletFacts;
import io.nodeatlas.discovery.host.HostFs;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the kubelet can find us: it runs, its {@code --root-dir} is where the agent registers, its
 * plugin watcher's directory ({@code plugins_registry}, kubelet plugin registration, KEP-4381's DRA
 * plugins) exists, and our registration socket is in it. Also lists the device plugins it has.
 */
public final class KubeletCheck implements DoctorCheck {

  @Override
  public String name() {
    return "kubelet";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    KubeletFacts k = context.kubelet();
    String ours = context.layout().kubeletRoot();
    List<Finding> out = new ArrayList<>();
    k.problems().forEach(p -> out.add(Finding.warn("kubelet.config", p, "check the kubelet's --config file")));
    if (!k.running()) {
      out.add(Finding.warn("kubelet", "no kubelet process on this node: `nodeatlas run` would serve no kubelet here",
          "start the kubelet, or run nodeatlas standalone (--standalone) to keep only the static CDI specs"));
      return out;
    }
    String root = k.rootDir().orElse(KubeletFacts.DEFAULT_ROOT);
    if (!strip(root).equals(strip(ours))) {
      out.add(Finding.fail("kubelet.root", "the kubelet (" + k.process().get() + ") runs with --root-dir " + root
          + ", but nodeatlas registers under " + ours + ", where the kubelet never looks",
          "run nodeatlas with --kubelet-root " + root + " (NODEATLAS_KUBELET_ROOT), and mount that directory in the DaemonSet"));
      return out;
    }
    HostFs fs = context.host().fs();
    String registry = root + "/plugins_registry";
    if (!fs.isDirectory(fs.fromHostPath(registry))) {
      out.add(Finding.fail("kubelet.registration", "the kubelet's plugin watcher directory " + registry + " does not exist",
          "the kubelet creates it when it starts; restart the kubelet and check its log for the plugin watcher"));
      return out;
    }
    String driver = context.layout().driverName();
    List<String> sockets = new ArrayList<>();
    for (String name : fs.listNames(fs.fromHostPath(registry))) {
      if (name.startsWith(driver + "-") && name.endsWith("-reg.sock")) {
        sockets.add(name);
      }
    }
    if (sockets.isEmpty()) {
      out.add(Finding.warn("kubelet.registration", "the kubelet (" + k.process().get() + ", root " + root
          + ") runs, but " + driver + " has no registration socket in " + registry,
          "start the agent (systemctl start nodeatlas, or the DaemonSet), then run doctor again"));
    } else {
      out.add(Finding.ok("kubelet.registration", "kubelet " + k.process().get() + ", root " + root + "; registered as "
          + String.join(", ", sockets)));
    }
    if (!k.devicePluginResources().isEmpty()) {
      List<String> plugins = new ArrayList<>();
      k.devicePluginResources().forEach((res, n) -> plugins.add(res + " (" + n + ")"));
      out.add(Finding.ok("kubelet.device-plugins", "device plugins registered: " + String.join(", ", plugins)));
    }
    return out;
  }

  private static String strip(String path) {
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }
}
