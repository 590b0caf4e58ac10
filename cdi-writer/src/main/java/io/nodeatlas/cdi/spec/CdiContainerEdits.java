package io.nodeatlas.cdi.spec;

import java.util.List;

/**
 * CDI {@code containerEdits} (CDI spec v1.1.0, {@code specs-go/config.go} {@code ContainerEdits}). Lists keep the file's order, which matters
 * to runtimes (a later env entry with the same key wins). {@code intelRdt} is null when absent: an
 * empty {@code intelRdt: {}} is not the same as none, it raises the minimum version to 0.7.0 (specs-go/version.go).
 */
public record CdiContainerEdits(
    List<String> env,
    List<DeviceNode> deviceNodes,
    List<NetDevice> netDevices,
    List<Hook> hooks,
    List<Mount> mounts,
    IntelRdt intelRdt,
    List<Long> additionalGids) {

  public static final CdiContainerEdits EMPTY =
      new CdiContainerEdits(List.of(), List.of(), List.of(), List.of(), List.of(), null, List.of());

  public CdiContainerEdits {
    env = copy(env);
    deviceNodes = copy(deviceNodes);
    netDevices = copy(netDevices);
    hooks = copy(hooks);
    mounts = copy(mounts);
    additionalGids = copy(additionalGids);
  }

  /** Edits of the kinds every CDI version knows: env, device nodes, hooks and mounts. */
  public CdiContainerEdits(List<String> env, List<DeviceNode> deviceNodes, List<Hook> hooks, List<Mount> mounts) {
    this(env, deviceNodes, List.of(), hooks, mounts, null, List.of());
  }

  /** True when no edit is present: a device with such edits is invalid ("invalid device, empty device edits"). */
  public boolean isEmpty() {
    return env.isEmpty() && deviceNodes.isEmpty() && netDevices.isEmpty() && hooks.isEmpty() && mounts.isEmpty()
        && intelRdt == null && additionalGids.isEmpty();
  }

  private static <T> List<T> copy(List<T> list) {
    return list == null ? List.of() : List.copyOf(list);
  }

  /**
   * A device node. {@code path} is the path in the container; {@code hostPath} (CDI ≥ 0.5.0) is set only
   * when the host node lives elsewhere. When {@code type} and {@code major} are absent the runtime
   * {@code stat}s the host node at container-create time. Optional fields are null when absent.
   * {@code fileMode} holds Go {@code os.FileMode} permission bits, written in decimal.
   */
  public record DeviceNode(
      String path,
      String hostPath,
      String type,
      Long major,
      Long minor,
      Long fileMode,
      String permissions,
      Long uid,
      Long gid) {

    public DeviceNode {
      path = path == null ? "" : path;
      hostPath = emptyToNull(hostPath);
      type = emptyToNull(type);
      permissions = emptyToNull(permissions);
    }

    /** A node at {@code path} whose type and numbers the runtime reads from the host. */
    public static DeviceNode ofPath(String path) {
      return new DeviceNode(path, null, null, null, null, null, null, null, null);
    }
  }

  /** A mount; {@code type} (CDI ≥ 0.4.0) is null when absent. Bind mounts carry {@code bind} in options. */
  public record Mount(String hostPath, String containerPath, String type, List<String> options) {
    public Mount {
      hostPath = hostPath == null ? "" : hostPath;
      containerPath = containerPath == null ? "" : containerPath;
      type = emptyToNull(type);
      options = options == null ? List.of() : List.copyOf(options);
    }
  }

  /** An OCI hook added at the point {@code hookName}; {@code timeout} in seconds, null when absent. */
  public record Hook(String hookName, String path, List<String> args, List<String> env, Long timeout) {
    public Hook {
      hookName = hookName == null ? "" : hookName;
      path = path == null ? "" : path;
      args = args == null ? List.of() : List.copyOf(args);
      env = env == null ? List.of() : List.copyOf(env);
    }
  }

  /** A host network interface moved into the container as {@code name} (CDI 1.1.0). */
  public record NetDevice(String hostInterfaceName, String name) {
    public NetDevice {
      hostInterfaceName = hostInterfaceName == null ? "" : hostInterfaceName;
      name = name == null ? "" : name;
    }
  }

  /**
   * Intel RDT settings (CDI ≥ 0.7.0). {@code schemata} is null when absent and raises the version to
   * 1.1.0 when present, even empty (specs-go/version.go); {@code enableMonitoring} is null when absent.
   */
  public record IntelRdt(String closID, String l3CacheSchema, String memBwSchema, List<String> schemata,
      Boolean enableMonitoring) {
    public IntelRdt {
      closID = emptyToNull(closID);
      l3CacheSchema = emptyToNull(l3CacheSchema);
      memBwSchema = emptyToNull(memBwSchema);
      schemata = schemata == null ? null : List.copyOf(schemata);
      // Go omits a false bool (omitempty), so false and absent are the same.
      enableMonitoring = Boolean.TRUE.equals(enableMonitoring) ? Boolean.TRUE : null;
    }
  }

  static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
