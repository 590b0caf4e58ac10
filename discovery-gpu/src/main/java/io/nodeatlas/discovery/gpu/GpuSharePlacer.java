package io.nodeatlas.discovery.gpu;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.ClaimDevice;
import io.nodeatlas.discovery.share.DevicePlacer;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import io.nodeatlas.discovery.share.SharePlacer;
import io.nodeatlas.discovery.topology.Topology;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Several claims on one GPU published for sharing ({@link SharedGpus}; the scheduler already accounted their
 * memory, KEP-5075): they share it only when each configures the same {@link GpuConfig} sharing. A claim without
 * sharing (Exclusive, the default) holds its GPU alone, whatever memory it asked for; TimeSlicing claims (at one
 * interval) and MPS claims share, through one time slice or one MPS control daemon per GPU ({@link GpuRealiser#realiseShare}).
 * The share's placement records the strategy (placement version 1, {@code {"kind": "gpu.nodeatlas.io/gpu-share",
 * "strategy": ..., "interval": ...}}), so the checkpoint keeps it across restarts and the next claim's Prepare
 * sees how the GPU is held. Stateless.
 */
final class GpuSharePlacer implements SharePlacer {

  static final String KIND = "gpu.nodeatlas.io/gpu-share";
  static final int VERSION = 1;

  /**
   * How the share holds its GPU. For MPS, the client limits its containers get ({@code pinnedDeviceMemoryLimitBytes}:
   * the claim's {@code mpsConfig}, else the memory the share consumes); once made real ({@link GpuRealiser#realiseShare})
   * the GPU's UUID and, for MPS, the directories of the GPU's one control daemon.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Held(String kind, GpuConfig.Strategy strategy, GpuConfig.Interval interval, Integer activeThreadPercentage,
      Long pinnedDeviceMemoryLimitBytes, String gpuUuid, String pipeDir, String logDir) {

    Held(String kind, GpuConfig.Strategy strategy, GpuConfig.Interval interval) {
      this(kind, strategy, interval, null, null, null, null, null);
    }

    Held made(String uuid, String pipe, String log) {
      return new Held(kind, strategy, interval, activeThreadPercentage, pinnedDeviceMemoryLimitBytes, uuid, pipe, log);
    }
  }


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
    boolean mps = config.strategy() == GpuConfig.Strategy.MPS;
    Long limit = null;
    if (mps) {
      BigDecimal memory = share.consumed(GpuDevices.MEMORY);
      limit = config.pinnedDeviceMemoryLimitBytes()
          .orElse(memory.signum() > 0 ? memory.setScale(0, RoundingMode.DOWN).longValue() : null);
    }
    Held asked = new Held(KIND, config.strategy(),
        config.strategy() == GpuConfig.Strategy.TimeSlicing ? config.interval() : null,
        mps ? config.activeThreadPercentage().orElse(null) : null, limit, null, null, null);
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
      Held h = held.get();
      b.env("NODEATLAS_GPU_SHARING=" + h.strategy());
      if (h.interval() != null) {
        b.env("NODEATLAS_GPU_TIMESLICE=" + h.interval());
      }
      if (h.strategy() == GpuConfig.Strategy.MPS && h.pipeDir() != null) {
        GpuRealiser.mpsEdits(b, h.pipeDir(), h.logDir(), h.activeThreadPercentage(), h.pinnedDeviceMemoryLimitBytes());
      }
      out.add(new Device(d.name(), d.source(), d.attributes(), d.capacity(), d.requestPolicies(),
          d.allowMultipleAllocations(), b.build(), d.sharedCounters(), d.consumesCounters(), d.nodeAllocatableResources()));
    }
    return out;
  }

  private static String describe(Held h) {
    return "sharing.strategy " + h.strategy() + (h.interval() == null ? "" : " (interval " + h.interval() + ")");
  }

  static Placement record(Held h) {
    return PlacementRecords.write(VERSION, h);
  }

  static Optional<Held> parse(Placement p) {
    return PlacementRecords.read(p, VERSION, KIND, Held.class, Held::kind, h -> h.strategy() != null);
  }
}
