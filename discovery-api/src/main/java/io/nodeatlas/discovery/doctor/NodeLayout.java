package io.nodeatlas.discovery.doctor;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * Where {@code nodeatlas run} keeps its files on this node, as the host sees them (absolute host
 * paths, resolved below the host root when read), and where its health endpoint answers.
 *
 * @param cdiDir the directory the agent writes CDI specs to ({@code --cdi-root})
 * @param stateDir the directory of the checkpoint ({@code --state-dir})
 * @param kubeletRoot where the agent registers with the kubelet ({@code --kubelet-root})
 * @param hookPath where the OCI hook lies, as the CDI specs name it ({@code --hook-path})
 * @param healthUrl the agent's {@code /healthz}, when it serves one
 */
public record NodeLayout(String driverName, String cdiDir, String stateDir, String kubeletRoot, String hookPath,
    Optional<URI> healthUrl) {

  public NodeLayout {
    Objects.requireNonNull(driverName, "driverName");
    for (String p : new String[] {cdiDir, stateDir, kubeletRoot, hookPath}) {
      if (p == null || !p.startsWith("/")) {
        throw new IllegalArgumentException("a node layout path must be absolute, not " + p);
      }
    }
    healthUrl = healthUrl == null ? Optional.empty() : healthUrl;
  }
}
