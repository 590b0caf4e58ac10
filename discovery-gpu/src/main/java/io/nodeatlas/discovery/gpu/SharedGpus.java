package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A whole GPU published for several claims ({@code --gpu-multiple-allocations}): {@code allowMultipleAllocations}
 * and its {@code memory} as consumable capacity ({@code resource.k8s.io/v1} {@code DeviceCapacity.requestPolicy},
 * KEP-5075) whose default is all of it, so a claim that names no amount holds the whole GPU and nobody shares it
 * by accident. A request may ask from {@link #MIN_REQUEST} up to the whole memory. Which claims may then share one
 * GPU is the claims' {@link GpuConfig} sharing, checked at Prepare ({@link GpuSharePlacer}).
 */
public final class SharedGpus {

  /** The least memory a claim may ask of a shared GPU. */
  public static final Quantity MIN_REQUEST = Quantity.of(1L << 20);

  private SharedGpus() {}

  /** {@code gpu} as a device several claims may hold; empty when it has no memory capacity to share. */
  public static Optional<Device> shared(Device gpu) {
    Quantity memory = gpu.capacity().get(GpuDevices.MEMORY);
    if (memory == null || memory.compareTo(MIN_REQUEST) < 0) {
      return Optional.empty();
    }
    TreeMap<String, RequestPolicy> policies = new TreeMap<>();
    policies.put(GpuDevices.MEMORY, RequestPolicy.range(memory, MIN_REQUEST, memory, null));
    return Optional.of(new Device(gpu.name(), gpu.source(), gpu.attributes(), gpu.capacity(), policies, true,
        gpu.containerEdits(), gpu.sharedCounters(), gpu.consumesCounters(), gpu.nodeAllocatableResources()));
  }
}
