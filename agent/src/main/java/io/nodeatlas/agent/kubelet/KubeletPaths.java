package io.nodeatlas.agent.kubelet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Where the kubelet looks for us (plugin watcher, KEP-4381): {@code <root>/plugins_registry/<driver>-reg.sock}
 * and {@code <root>/plugins/<driver>/dra.sock}, or with a pod UID the names of the kubeletplugin helper's
 * {@code RollingUpdate} option, {@code <driver>-<podUID>-reg.sock} and {@code dra-<podUID>.sock}.
 */
public record KubeletPaths(Path kubeletRoot, String driverName, String podUid) {

  /** sockaddr_un.sun_path is 108 bytes including the terminating NUL. */
  public static final int MAX_SOCKET_PATH_BYTES = 107;

  public KubeletPaths {
    kubeletRoot = kubeletRoot.toAbsolutePath().normalize();
    podUid = podUid == null ? "" : podUid;
    // The UID becomes a file name: a Kubernetes UID is RFC 4122 text, anything else is refused.
    if (!podUid.isEmpty() && !podUid.matches("[A-Za-z0-9][A-Za-z0-9-]{0,62}")) {
      throw new IllegalArgumentException("pod UID \"" + podUid + "\" is not a UID (letters, digits and '-', at most 63)");
    }
  }

  /** The fixed socket names of a single instance. */
  public KubeletPaths(Path kubeletRoot, String driverName) {
    this(kubeletRoot, driverName, "");
  }

  public Path registrationSocket() {
    return kubeletRoot.resolve("plugins_registry")
        .resolve(podUid.isEmpty() ? driverName + "-reg.sock" : driverName + "-" + podUid + "-reg.sock");
  }

  public Path pluginDir() {
    return kubeletRoot.resolve("plugins").resolve(driverName);
  }

  public Path draSocket() {
    return pluginDir().resolve(podUid.isEmpty() ? "dra.sock" : "dra-" + podUid + ".sock");
  }

  /** Fails early with the path in the message; the kernel would only say "invalid argument". */
  public void requireSocketPathsFit() {
    for (Path p : new Path[] {registrationSocket(), draSocket()}) {
      int bytes = p.toString().getBytes(StandardCharsets.UTF_8).length;
      if (bytes > MAX_SOCKET_PATH_BYTES) {
        throw new IllegalArgumentException("socket path " + p + " is " + bytes
            + " bytes; unix sockets allow at most " + MAX_SOCKET_PATH_BYTES + " (choose a shorter --kubelet-root)");
      }
    }
  }
}
