package io.nodeatlas.discovery.gpu;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.Placement;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The gpu family's claim-time work on a GPU or MIG device held whole: the MIG instance of a partition
 * ({@link MigRealiser}) and the claim's {@link GpuConfig} sharing ({@link GpuSharing}: time slice or an
 * MPS control daemon), shared by every container that uses the claim. Its record (placement version 1) is
 * {@code {"kind": "gpu.nodeatlas.io/claim-device", "mig": {...}, "sharing": {...}}}; a GPU held exclusively
 * without a MIG instance has none.
 */
final class GpuRealiser implements DeviceRealiser {

  static final String KIND = "gpu.nodeatlas.io/claim-device";
  static final int VERSION = 1;
  /** Where a container finds the MPS control pipe and log directories. */
  static final String MPS_PIPE_IN_CONTAINER = "/tmp/nvidia-mps";
  static final String MPS_LOG_IN_CONTAINER = "/tmp/nvidia-mps-log";

  /**
   * What was set up for the claim's sharing; {@code visible} is the UUID the MPS daemon serves, {@code pipeDir}
   * and {@code logDir} its directories on the host (MPS only).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Sharing(GpuConfig.Strategy strategy, GpuConfig.Interval interval, Integer activeThreadPercentage,
      Long pinnedDeviceMemoryLimitBytes, String visible, String gpuUuid, String pipeDir, String logDir) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record GpuRecord(String kind, MigRealiser.MigRecord mig, Sharing sharing) {}

  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
  private static final System.Logger LOG = System.getLogger(GpuRealiser.class.getName());

  private final MigRealiser mig;
  private final GpuSharing sharing;

  GpuRealiser(MigRealiser mig, GpuSharing sharing) {
    this.mig = mig;
    this.sharing = sharing;
  }

  @Override
  public boolean realises(Device device) {
    return device.source().equals(GpuDevices.SOURCE)
        && device.type().filter(t -> t.equals("gpu") || t.equals("mig")).isPresent();
  }

  @Override
  public Placement realise(String claimUid, Device device, List<String> configs) throws RealiseException {
    GpuConfig config;
    try {
      config = GpuConfig.of(configs);
    } catch (IllegalArgumentException e) {
      throw new RealiseException("GPU configuration (" + GpuConfig.API_VERSION + " " + GpuConfig.KIND + "): " + e.getMessage());
    }
    boolean migDevice = device.type().filter("mig"::equals).isPresent();
    if (migDevice && config.strategy() == GpuConfig.Strategy.TimeSlicing) {
      throw new RealiseException("GPU configuration: sharing.strategy TimeSlicing applies to a whole GPU; a MIG "
          + "device takes Exclusive or MPS");
    }
    MigRealiser.MigRecord made = null;
    if (mig.realises(device)) {
      made = MigRealiser.parse(mig.realise(claimUid, device, configs)).orElseThrow();
    }
    if (config.strategy() == GpuConfig.Strategy.Exclusive) {
      return made == null ? Placement.NONE : record(new GpuRecord(KIND, made, null));
    }
    String gpuUuid = made != null ? made.gpuUuid() : text(device, migDevice ? GpuDevices.PARENT_UUID : GpuDevices.UUID);
    String visible = made != null ? (made.migUuid().isEmpty() ? gpuUuid : made.migUuid()) : text(device, GpuDevices.UUID);
    boolean mps = config.strategy() == GpuConfig.Strategy.MPS;
    Sharing s = new Sharing(config.strategy(), config.interval(), config.activeThreadPercentage().orElse(null),
        config.pinnedDeviceMemoryLimitBytes().orElse(null), visible, gpuUuid,
        mps ? sharing.pipeDir(claimUid).toString() : null, mps ? sharing.logDir(claimUid).toString() : null);
    try {
      if (config.strategy() == GpuConfig.Strategy.TimeSlicing) {
        sharing.setTimeslice(gpuUuid, config.interval());
      } else {
        sharing.startMps(claimUid, visible, config);
      }
    } catch (IOException | RuntimeException e) {
      if (made != null) {
        try {
          mig.unrealise(claimUid, device.name(), migPlacement(made));
        } catch (RealiseException undo) {
          e.addSuppressed(undo);
        }
      }
      throw new RealiseException("GPU sharing " + config.strategy() + " not set up: " + e.getMessage(), e);
    }
    return record(new GpuRecord(KIND, made, s));
  }

  @Override
  public Device containerEdits(Device device, Placement record) {
    GpuRecord r = parse(record).orElseThrow(() -> new IllegalArgumentException("not a GPU claim record"));
    Device d = r.mig() == null ? device : mig.containerEdits(device, migPlacement(r.mig()));
    if (r.sharing() == null) {
      return d;
    }
    Sharing s = r.sharing();
    ContainerEdits base = d.containerEdits();
    ContainerEdits.Builder b = ContainerEdits.builder();
    base.env().forEach(b::env);
    base.deviceNodes().forEach(b::deviceNode);
    base.mounts().forEach(b::mount);
    base.hooks().forEach(b::hook);
    base.netDevices().forEach(b::netDevice);
    b.env("NODEATLAS_GPU_SHARING=" + s.strategy());
    if (s.strategy() == GpuConfig.Strategy.TimeSlicing) {
      b.env("NODEATLAS_GPU_TIMESLICE=" + s.interval());
    } else if (s.strategy() == GpuConfig.Strategy.MPS) {
      // The claim's MPS control daemon: its pipe and log directories, and the client limits (CUDA MPS
      // documentation, "Environment Variables").
      b.env("CUDA_MPS_PIPE_DIRECTORY=" + MPS_PIPE_IN_CONTAINER);
      b.env("CUDA_MPS_LOG_DIRECTORY=" + MPS_LOG_IN_CONTAINER);
      if (s.activeThreadPercentage() != null) {
        b.env("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + s.activeThreadPercentage());
      }
      if (s.pinnedDeviceMemoryLimitBytes() != null) {
        b.env("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=" + (s.pinnedDeviceMemoryLimitBytes() >> 20) + "M");
      }
      b.mount(new ContainerEdits.Mount(s.pipeDir(), MPS_PIPE_IN_CONTAINER, null, List.of("rw", "nosuid", "nodev", "bind")));
      b.mount(new ContainerEdits.Mount(s.logDir(), MPS_LOG_IN_CONTAINER, null, List.of("rw", "nosuid", "nodev", "bind")));
    }
    return new Device(d.name(), d.source(), d.attributes(), d.capacity(), d.requestPolicies(),
        d.allowMultipleAllocations(), b.build(), d.sharedCounters(), d.consumesCounters(), d.nodeAllocatableResources());
  }

  @Override
  public boolean unrealise(String claimUid, String device, Placement record) throws RealiseException {
    Optional<GpuRecord> r = parse(record);
    if (r.isEmpty()) {
      return false;
    }
    Sharing s = r.get().sharing();
    try {
      if (s != null && s.strategy() == GpuConfig.Strategy.TimeSlicing) {
        sharing.setTimeslice(s.gpuUuid(), GpuConfig.Interval.Default);
      } else if (s != null && s.strategy() == GpuConfig.Strategy.MPS) {
        sharing.stopMps(claimUid, s.visible());
      }
    } catch (IOException | RuntimeException e) {
      throw new RealiseException("GPU sharing " + s.strategy() + " not undone: " + e.getMessage(), e);
    }
    if (r.get().mig() != null) {
      mig.unrealise(claimUid, device, migPlacement(r.get().mig()));
    }
    return true;
  }

  @Override
  public List<Realised> reconcile(List<Realised> live, Set<String> claims) {
    List<Realised> migLive = new ArrayList<>();
    List<GpuRecord> records = new ArrayList<>();
    for (Realised r : live) {
      parse(r.record()).filter(g -> g.mig() != null).ifPresent(g -> {
        migLive.add(new Realised(r.claimUid(), r.device(), migPlacement(g.mig())));
        records.add(g);
      });
    }
    List<Realised> changed = new ArrayList<>();
    for (Realised c : mig.reconcile(migLive, claims)) {
      for (int i = 0; i < migLive.size(); i++) {
        Realised before = migLive.get(i);
        if (before.claimUid().equals(c.claimUid()) && before.device().equals(c.device())) {
          GpuRecord old = records.get(i);
          MigRealiser.MigRecord made = MigRealiser.parse(c.record()).orElseThrow();
          Sharing s = old.sharing();
          if (s != null && s.strategy() == GpuConfig.Strategy.MPS) {
            // A re-made instance has a new MIG UUID: the daemon serves that one.
            s = new Sharing(s.strategy(), s.interval(), s.activeThreadPercentage(), s.pinnedDeviceMemoryLimitBytes(),
                made.migUuid().isEmpty() ? made.gpuUuid() : made.migUuid(), s.gpuUuid(), s.pipeDir(), s.logDir());
          }
          changed.add(new Realised(c.claimUid(), c.device(), record(new GpuRecord(KIND, made, s))));
        }
      }
    }
    // The MPS daemons of live claims: a reboot or a crash of the agent (its cgroup) took them; one that still
    // runs is left alone. Their MIG instance, where they have one, was re-found or re-made above.
    for (Realised r : live) {
      Optional<GpuRecord> g = parse(r.record());
      if (g.isEmpty() || g.get().sharing() == null || g.get().sharing().strategy() != GpuConfig.Strategy.MPS) {
        continue;
      }
      Sharing s = g.get().sharing();
      String visible = changedSharing(changed, r).map(Sharing::visible).orElse(s.visible());
      try {
        if (!sharing.pipeDir(r.claimUid()).toString().equals(s.pipeDir())
            || !sharing.logDir(r.claimUid()).toString().equals(s.logDir())) {
          LOG.log(System.Logger.Level.WARNING, "MPS control daemon of claim " + r.claimUid() + " not started: its "
              + "record names directories other than " + sharing.pipeDir(r.claimUid()).getParent());
          continue;
        }
        if (sharing.ensureMps(r.claimUid(), visible, s.activeThreadPercentage(), s.pinnedDeviceMemoryLimitBytes())) {
          LOG.log(System.Logger.Level.INFO, "MPS control daemon of claim " + r.claimUid() + " started again for "
              + visible);
        }
      } catch (IOException | RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "MPS control daemon of claim " + r.claimUid() + " not started again: "
            + e.getMessage() + "; its containers run without MPS until the claim is prepared anew");
      }
    }
    // MPS daemons of claims that are gone (a crash between starting one and the checkpoint commit).
    try {
      for (String uid : sharing.mpsClaims()) {
        if (!claims.contains(uid)) {
          try {
            sharing.stopMps(uid, "");
          } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "MPS control daemon of gone claim " + uid + " not stopped: " + e.getMessage());
          }
        }
      }
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "MPS directories not read: " + e.getMessage());
    }
    return changed;
  }

  /** The sharing of {@code r}'s device as re-made at this start (a new MIG instance), when it was. */
  private static Optional<Sharing> changedSharing(List<Realised> changed, Realised r) {
    return changed.stream().filter(c -> c.claimUid().equals(r.claimUid()) && c.device().equals(r.device()))
        .findFirst().flatMap(c -> parse(c.record())).map(GpuRecord::sharing);
  }

  private static Placement migPlacement(MigRealiser.MigRecord m) {
    try {
      return new Placement(MigRealiser.VERSION, JSON.writeValueAsString(m));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Placement record(GpuRecord r) {
    try {
      return new Placement(VERSION, JSON.writeValueAsString(r));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Optional<GpuRecord> parse(Placement p) {
    if (p.version() != VERSION || !p.value().contains(KIND)) {
      return Optional.empty();
    }
    try {
      GpuRecord r = JSON.readValue(p.value(), GpuRecord.class);
      return KIND.equals(r.kind()) ? Optional.of(r) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static String text(Device d, String attribute) throws RealiseException {
    return d.attribute(attribute).filter(v -> v instanceof AttributeValue.StringValue)
        .map(v -> ((AttributeValue.StringValue) v).value())
        .orElseThrow(() -> new RealiseException("device " + d.name() + " has no " + attribute));
  }
}
