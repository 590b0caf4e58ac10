package io.nodeatlas.discovery.model;

import java.util.ArrayList;
import java.util.List;

/**
 * What a container needs to use a device, in the shape of a CDI {@code containerEdits} object
 * (CDI specification v0.6+ {@code containerEdits}). The discovery sources fill it; the CDI writer turns it into spec
 * files, so field names follow the CDI spec. List order is the order the source gave, which must be
 * deterministic.
 */
public record ContainerEdits(
    List<String> env,
    List<DeviceNode> deviceNodes,
    List<Mount> mounts,
    List<Hook> hooks,
    List<NetDevice> netDevices) {

  public static final ContainerEdits EMPTY = new ContainerEdits(List.of(), List.of(), List.of(), List.of(), List.of());

  public ContainerEdits {
    env = List.copyOf(env);
    deviceNodes = List.copyOf(deviceNodes);
    mounts = List.copyOf(mounts);
    hooks = List.copyOf(hooks);
    netDevices = List.copyOf(netDevices);
  }

  public boolean isEmpty() {
    return env.isEmpty() && deviceNodes.isEmpty() && mounts.isEmpty() && hooks.isEmpty() && netDevices.isEmpty();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * A device node to create in the container. {@code hostPath} is null when it equals {@code path};
   * {@code type}, {@code major} and {@code minor} are null when the runtime should stat the host node.
   */
  public record DeviceNode(
      String path,
      String hostPath,
      String type,
      Long major,
      Long minor,
      Integer fileMode,
      String permissions,
      Integer uid,
      Integer gid) {
    public DeviceNode {
      if (path == null || path.isEmpty()) {
        throw new IllegalArgumentException("device node path must not be empty");
      }
    }

    /** A character device at the same path in the container as on the host. */
    public static DeviceNode charDevice(String path, long major, long minor) {
      return new DeviceNode(path, null, "c", major, minor, null, null, null, null);
    }

    public DeviceNode withPermissions(String newPermissions) {
      return new DeviceNode(path, hostPath, type, major, minor, fileMode, newPermissions, uid, gid);
    }
  }

  /** A bind mount: {@code options} as for mount(8), e.g. {@code ro}, {@code nosuid}, {@code bind}. */
  public record Mount(String hostPath, String containerPath, String type, List<String> options) {
    public Mount {
      if (hostPath == null || hostPath.isEmpty() || containerPath == null || containerPath.isEmpty()) {
        throw new IllegalArgumentException("a mount needs both hostPath and containerPath");
      }
      options = options == null ? List.of() : List.copyOf(options);
    }

    public static Mount readOnlyBind(String hostPath, String containerPath) {
      return new Mount(hostPath, containerPath, null, List.of("ro", "nosuid", "nodev", "bind"));
    }
  }

  /** An OCI hook; {@code hookName} is one of the OCI hook points such as {@code createContainer}. */
  public record Hook(String hookName, String path, List<String> args, List<String> env, Integer timeout) {
    public Hook {
      if (hookName == null || path == null) {
        throw new IllegalArgumentException("a hook needs hookName and path");
      }
      args = args == null ? List.of() : List.copyOf(args);
      env = env == null ? List.of() : List.copyOf(env);
    }
  }

  /** A network interface moved into the container's network namespace (CDI 1.1.0 {@code netDevices}). */
  public record NetDevice(String hostInterfaceName, String name) {
    public NetDevice {
      if (hostInterfaceName == null || hostInterfaceName.isEmpty() || name == null || name.isEmpty()) {
        throw new IllegalArgumentException("a net device needs hostInterfaceName and name");
      }
    }
  }

  /** Collects edits in order. */
  public static final class Builder {
    private final List<String> env = new ArrayList<>();
    private final List<DeviceNode> deviceNodes = new ArrayList<>();
    private final List<Mount> mounts = new ArrayList<>();
    private final List<Hook> hooks = new ArrayList<>();
    private final List<NetDevice> netDevices = new ArrayList<>();

    public Builder env(String keyValue) {
      env.add(keyValue);
      return this;
    }

    public Builder deviceNode(DeviceNode node) {
      deviceNodes.add(node);
      return this;
    }

    public Builder mount(Mount mount) {
      mounts.add(mount);
      return this;
    }

    public Builder hook(Hook hook) {
      hooks.add(hook);
      return this;
    }

    public Builder netDevice(NetDevice netDevice) {
      netDevices.add(netDevice);
      return this;
    }

    public ContainerEdits build() {
      return new ContainerEdits(env, deviceNodes, mounts, hooks, netDevices);
    }
  }
}
