package io.nodeatlas.match;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * What one node offers the scheduler: its devices (names unique within the node), the DRA driver each
 * belongs to, the taints on each ({@code resource.k8s.io/v1} {@code Device.taints}, KEP-5055), and what
 * claims allocated before this run hold ({@code ResourceClaim.status.allocation.devices.results}).
 */
public record Inventory(List<Device> devices, Map<String, String> drivers, Map<String, List<DeviceTaint>> taints,
    List<Held> held) {

  public Inventory {
    devices = List.copyOf(devices);
    drivers = Map.copyOf(drivers);
    taints = Map.copyOf(taints);
    held = List.copyOf(held);
  }

  /** Devices of our own driver alone, untainted and free: what {@code nodeatlas match} sees on this node. */
  public static Inventory ours(List<Device> devices) {
    return new Inventory(devices, Map.of(), Map.of(), List.of());
  }

  /** The driver of {@code device}; ours unless said otherwise. */
  public String driver(String device) {
    return drivers.getOrDefault(device, Names.DRIVER);
  }

  /** A device taint: the effects that keep a device from new allocations are NoSchedule and NoExecute. */
  public record DeviceTaint(String key, String value, String effect) {
    public boolean blocksAllocation() {
      return "NoSchedule".equals(effect) || "NoExecute".equals(effect);
    }

    @Override
    public String toString() {
      return key + (value == null || value.isEmpty() ? "" : "=" + value) + ":" + effect;
    }
  }

  /**
   * An allocated claim's hold on one device: the whole device, or of a device that allows multiple
   * allocations the amounts in {@code consumed} ({@code consumedCapacity}, KEP-5075).
   */
  public record Held(String device, String claim, Map<String, BigDecimal> consumed) {
    public Held {
      consumed = Map.copyOf(consumed);
    }
  }
}
