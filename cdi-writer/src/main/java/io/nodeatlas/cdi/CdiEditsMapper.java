package io.nodeatlas.cdi;

import io.nodeatlas.cdi.spec.CdiContainerEdits;
import io.nodeatlas.discovery.model.ContainerEdits;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Turns the discovery model's {@link ContainerEdits} (already CDI-shaped) into spec edits. */
final class CdiEditsMapper {

  private CdiEditsMapper() {}

  static CdiContainerEdits toCdi(ContainerEdits e) {
    List<CdiContainerEdits.DeviceNode> nodes = new ArrayList<>();
    for (ContainerEdits.DeviceNode n : e.deviceNodes()) {
      nodes.add(new CdiContainerEdits.DeviceNode(n.path(),
          // hostPath only when it differs: it forces cdiVersion 0.5.0 (specs-go/version.go).
          n.hostPath() != null && !n.hostPath().equals(n.path()) ? n.hostPath() : null,
          n.type(), n.major(), n.minor(), toLong(n.fileMode()), n.permissions(), toLong(n.uid()), toLong(n.gid())));
    }
    List<CdiContainerEdits.Mount> mounts = new ArrayList<>();
    for (ContainerEdits.Mount m : e.mounts()) {
      mounts.add(new CdiContainerEdits.Mount(m.hostPath(), m.containerPath(), m.type(), m.options()));
    }
    List<CdiContainerEdits.Hook> hooks = new ArrayList<>();
    for (ContainerEdits.Hook h : e.hooks()) {
      // timeout 0 passes the library but breaks the spec's "> 0" rule (CDI spec v1.1.0, hooks): leave it out.
      Long timeout = h.timeout() == null || h.timeout() <= 0 ? null : h.timeout().longValue();
      hooks.add(new CdiContainerEdits.Hook(h.hookName(), h.path(), h.args(), h.env(), timeout));
    }
    List<CdiContainerEdits.NetDevice> nets = new ArrayList<>();
    for (ContainerEdits.NetDevice n : e.netDevices()) {
      nets.add(new CdiContainerEdits.NetDevice(n.hostInterfaceName(), n.name()));
    }
    return new CdiContainerEdits(e.env(), nodes, nets, hooks, mounts, null, List.of());
  }

  /**
   * The union of several devices' edits, as the runtime would apply them one after another: the first
   * entry per env key, device node path, mount container path and host interface wins; hooks are
   * kept once each.
   */
  static CdiContainerEdits union(List<CdiContainerEdits> all) {
    Set<String> envKeys = new HashSet<>();
    List<String> env = new ArrayList<>();
    Set<String> nodePaths = new HashSet<>();
    List<CdiContainerEdits.DeviceNode> nodes = new ArrayList<>();
    Set<String> mountPaths = new HashSet<>();
    List<CdiContainerEdits.Mount> mounts = new ArrayList<>();
    Set<CdiContainerEdits.Hook> hooks = new LinkedHashSet<>();
    Set<String> hostIfs = new HashSet<>();
    List<CdiContainerEdits.NetDevice> nets = new ArrayList<>();
    for (CdiContainerEdits e : all) {
      for (String v : e.env()) {
        int eq = v.indexOf('=');
        if (envKeys.add(eq < 0 ? v : v.substring(0, eq))) {
          env.add(v);
        }
      }
      e.deviceNodes().stream().filter(n -> nodePaths.add(n.path())).forEach(nodes::add);
      e.mounts().stream().filter(m -> mountPaths.add(m.containerPath())).forEach(mounts::add);
      hooks.addAll(e.hooks());
      e.netDevices().stream().filter(n -> hostIfs.add(n.hostInterfaceName())).forEach(nets::add);
    }
    return new CdiContainerEdits(env, nodes, nets, List.copyOf(hooks), mounts, null, List.of());
  }

  private static Long toLong(Integer i) {
    return i == null ? null : i.longValue();
  }
}
