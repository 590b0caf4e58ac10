package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.shares.SharedDevice;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.topology.Topology;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The devices this node has right now, as last discovered, the topology they were derived from, and
 * the pool they are published in. Prepare checks every allocated device against it (KEP-4381: the
 * node is the last line of defence against devices that went away), and the families place shares on
 * the topology. Replaced as a whole after each discovery.
 */
public final class DeviceInventory {

  /**
   * One discovery's devices and topology, swapped together so a reader never mixes two discoveries,
   * and each device's {@link SharedDevice} made once, when Prepare first asks for it (the same for
   * every claim until the next discovery; Prepare asks for each device of each claim).
   */
  private record Snapshot(Map<String, Device> devices, Topology topology,
      java.util.concurrent.ConcurrentHashMap<String, SharedDevice> shared) {
    Snapshot(Map<String, Device> devices, Topology topology) {
      this(devices, topology, new java.util.concurrent.ConcurrentHashMap<>());
    }
  }

  private final String pool;
  private final AtomicReference<Snapshot> current = new AtomicReference<>(new Snapshot(Map.of(), Topology.EMPTY));

  public DeviceInventory(String pool) {
    this.pool = pool;
  }

  public String pool() {
    return pool;
  }

  /** The devices and the topology they were derived from (which CPUs share a core, a cache, a node). */
  public void replace(List<Device> devices, Topology topology) {
    Map<String, Device> byName = new TreeMap<>();
    devices.forEach(d -> byName.put(d.name(), d));
    current.set(new Snapshot(Map.copyOf(byName), topology == null ? Topology.EMPTY : topology));
  }

  /** New devices, the topology kept. */
  public void replace(List<Device> devices) {
    replace(devices, current.get().topology());
  }

  public Optional<Device> device(String name) {
    return Optional.ofNullable(current.get().devices().get(name));
  }

  /** The device with what sharing needs to know of it ({@code make} of the device and topology), from one discovery. */
  public Optional<SharedDevice> shared(String name, java.util.function.BiFunction<Device, Topology, SharedDevice> make) {
    Snapshot s = current.get();
    Device d = s.devices().get(name);
    return d == null ? Optional.empty() : Optional.of(s.shared().computeIfAbsent(name, n -> make.apply(d, s.topology())));
  }

  public Topology topology() {
    return current.get().topology();
  }

  public List<Device> all() {
    return List.copyOf(new TreeMap<>(current.get().devices()).values());
  }
}
