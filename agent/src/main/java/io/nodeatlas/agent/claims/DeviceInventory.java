package io.nodeatlas.agent.claims;

import io.nodeatlas.discovery.model.Device;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The devices this node has right now, as last discovered, and the pool they are published in.
 * Prepare checks every allocated device against it (KEP-4381: the node is the last line of
 * defence against devices that went away). Replaced as a whole after each discovery.
 */
public final class DeviceInventory {

  private final String pool;
  private final AtomicReference<Map<String, Device>> devices = new AtomicReference<>(Map.of());

  public DeviceInventory(String pool) {
    this.pool = pool;
  }

  public String pool() {
    return pool;
  }

  public void replace(List<Device> current) {
    Map<String, Device> byName = new TreeMap<>();
    current.forEach(d -> byName.put(d.name(), d));
    devices.set(Map.copyOf(byName));
  }

  public Optional<Device> device(String name) {
    return Optional.ofNullable(devices.get().get(name));
  }

  public List<Device> all() {
    return List.copyOf(new TreeMap<>(devices.get()).values());
  }
}
