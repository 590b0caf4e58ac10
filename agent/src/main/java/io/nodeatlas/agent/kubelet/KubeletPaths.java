package io.nodeatlas.agent.kubelet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Where the kubelet looks for us (kubelet plugin watcher, KEP-4381): the registration socket
 * {@code <root>/plugins_registry/<driver>-reg.sock}, watched by the kubelet's plugin watcher, and the
 * DRA socket {@code <root>/plugins/<driver>/dra.sock}, announced in GetInfo. The root is the
 * kubelet's {@code --root-dir}, not always {@code /var/lib/kubelet}.
 */
public record KubeletPaths(Path kubeletRoot, String driverName) {

  /** sockaddr_un.sun_path is 108 bytes including the terminating NUL. */
  public static final int MAX_SOCKET_PATH_BYTES = 107;

  public KubeletPaths {
    kubeletRoot = kubeletRoot.toAbsolutePath().normalize();
  }

  public Path registrationSocket() {
    return kubeletRoot.resolve("plugins_registry").resolve(driverName + "-reg.sock");
  }

  public Path pluginDir() {
    return kubeletRoot.resolve("plugins").resolve(driverName);
  }

  public Path draSocket() {
    return pluginDir().resolve("dra.sock");
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
