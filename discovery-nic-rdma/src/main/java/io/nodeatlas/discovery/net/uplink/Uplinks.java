package io.nodeatlas.discovery.net.uplink;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The host's uplink interfaces: each with why it is one ({@code default route (IPv4)}, {@code node IP
 * 10.0.0.5}, {@code below bond0}, ...). {@code unknown} holds the reason when the routes could not be read:
 * then every interface counts as an uplink (fail closed: handing out the host's uplink cuts the node off,
 * refusing one NIC costs a pod).
 */
public record Uplinks(Map<String, String> interfaces, Optional<String> unknown) {

  public static final Uplinks NONE = new Uplinks(Map.of(), Optional.empty());

  public Uplinks {
    interfaces = Map.copyOf(new TreeMap<>(interfaces));
  }

  public boolean isUplink(String interfaceName) {
    return unknown.isPresent() || interfaces.containsKey(interfaceName);
  }

  public Set<String> names() {
    return interfaces.keySet();
  }
}
