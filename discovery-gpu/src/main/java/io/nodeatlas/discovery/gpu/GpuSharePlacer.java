package io.nodeatlas.discovery.gpu;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.ClaimDevice;
import io.nodeatlas.discovery.share.DevicePlacer;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import io.nodeatlas.discovery.share.SharePlacer;
import io.nodeatlas.discovery.topology.Topology;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Several claims on one GPU published for sharing ({@link SharedGpus}; the scheduler already accounted their
 * memory, KEP-5075): they share it only when each configures the same {@link GpuConfig} sharing. A claim without
 * sharing (Exclusive, the default) holds its GPU alone, whatever memory it asked for; TimeSlicing claims share.
 * The share's placement records the strategy (placement version 1, {@code {"kind": "gpu.nodeatlas.io/gpu-share",
 * "strategy": ..., "interval": ...}}), so the checkpoint keeps it across restarts and the next claim's Prepare
 * sees how the GPU is held. Stateless.
 */
final class GpuSharePlacer implements SharePlacer {

  static final String KIND = "gpu.nodeatlas.io/gpu-share";
  static final int VERSION = 1;

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Held(String kind, GpuConfig.Strategy strategy, GpuConfig.Interval interval) {}

  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  @Override
  public Optional<DevicePlacer> forDevice(Device device, Topology topology) {
    if (!device.source().equals(GpuDevices.SOURCE) || !device.type().filter("gpu"::equals).isPresent()) {
      return Optional.empty();
    }
    return Optional.of(new DevicePlacer() {
      @Override
      public Decision place(Share share, List<Share> others) {
        return place(share, others, List.of());
      }

      @Override
      public Decision place(Share share, List<Share> others, List<String> configs) {
        return GpuSharePlacer.place(share, others, configs);
      }
    });
  }

  static DevicePlacer.Decision place(Share share, List<Share> others, List<String> configs) {
    GpuConfig config;
    try {
      config = GpuConfig.of(configs);
    } catch (IllegalArgumentException e) {
      return DevicePlacer.Decision.refused("GPU configuration (" + GpuConfig.API_VERSION + " " + GpuConfig.KIND + "): "
          + e.getMessage());
    }
    Held asked = new Held(KIND, config.strategy(),
        config.strategy() == GpuConfig.Strategy.TimeSlicing ? config.interval() : null);
    for (Share other : others) {
      if (other.claimUid().equals(share.claimUid())) {
        continue;
      }
      // A share whose record is not ours (none should be) counts as held alone.
      Held held = parse(other.placement()).orElse(new Held(KIND, GpuConfig.Strategy.Exclusive, null));
      if (held.strategy() == GpuConfig.Strategy.Exclusive) {
        return DevicePlacer.Decision.refused("the GPU is held by claim " + other.claimUid() + " alone (its GpuConfig "
            + "sets no sharing: Exclusive); claims share a GPU only when each sets the same sharing.strategy");
      }
      if (asked.strategy() != held.strategy() || (asked.interval() != null && asked.interval() != held.interval())) {
        return DevicePlacer.Decision.refused("the GPU is shared by claim " + other.claimUid() + " with "
            + describe(held) + ", and this claim asks for " + describe(asked) + "; claims share a GPU only when each sets "
            + "the same sharing, so set " + describe(held) + " in this claim's GpuConfig or ask for another GPU");
      }
    }
    if (asked.strategy() == GpuConfig.Strategy.MPS) {
      return DevicePlacer.Decision.refused("sharing.strategy MPS is not supported on a GPU shared among claims (the agent "
          + "runs an MPS control daemon for a GPU one claim holds); use TimeSlicing here, or let the pods share one claim");
    }
    if (asked.interval() != null && asked.interval() != GpuConfig.Interval.Default) {
      return DevicePlacer.Decision.refused("sharing.timeSlicingConfig.interval " + asked.interval() + " is not supported on "
          + "a GPU shared among claims (its time slice stays Default); use interval Default, or let the pods share one claim");
    }
    return DevicePlacer.Decision.of(record(asked));
  }

  /** {@code NODEATLAS_GPU_SHARING} (and {@code NODEATLAS_GPU_TIMESLICE}) on each shared GPU of the claim, as for a claim's own GPU. */
  @Override
  public List<Device> containerEdits(List<ClaimDevice> claim) {
    List<Device> out = new ArrayList<>();
    for (ClaimDevice c : claim) {
      Optional<Held> held = c.share().flatMap(s -> parse(s.placement()))
          .filter(h -> c.device().source().equals(GpuDevices.SOURCE) && h.strategy() != GpuConfig.Strategy.Exclusive);
      if (held.isEmpty()) {
        out.add(c.device());
        continue;
      }
      Device d = c.device();
      ContainerEdits base = d.containerEdits();
      ContainerEdits.Builder b = ContainerEdits.builder();
      base.env().forEach(b::env);
      base.deviceNodes().forEach(b::deviceNode);
      base.mounts().forEach(b::mount);
      base.hooks().forEach(b::hook);
      base.netDevices().forEach(b::netDevice);
      b.env("NODEATLAS_GPU_SHARING=" + held.get().strategy());
      if (held.get().interval() != null) {
        b.env("NODEATLAS_GPU_TIMESLICE=" + held.get().interval());
      }
      out.add(new Device(d.name(), d.source(), d.attributes(), d.capacity(), d.requestPolicies(),
          d.allowMultipleAllocations(), b.build(), d.sharedCounters(), d.consumesCounters(), d.nodeAllocatableResources()));
    }
    return out;
  }

  private static String describe(Held h) {
    return "sharing.strategy " + h.strategy() + (h.interval() == null ? "" : " (interval " + h.interval() + ")");
  }

  private static Placement record(Held h) {
    try {
      return new Placement(VERSION, JSON.writeValueAsString(h));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Optional<Held> parse(Placement p) {
    if (p.version() != VERSION || !p.value().contains(KIND)) {
      return Optional.empty();
    }
    try {
      Held h = JSON.readValue(p.value(), Held.class);
      return KIND.equals(h.kind()) && h.strategy() != null ? Optional.of(h) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
