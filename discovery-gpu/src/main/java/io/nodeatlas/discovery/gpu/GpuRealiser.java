package io.nodeatlas.discovery.gpu;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import java.io.IOException;
import java.nio.file.Path;
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
  /** Where a container finds the MPS daemon's shared memory. */
  static final String SHM_IN_CONTAINER = "/dev/shm";

  /**
   * What was set up for the claim's sharing; {@code visible} is the UUID the MPS daemon serves, {@code pipeDir}
   * and {@code logDir} its directories on the host (MPS only).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Sharing(GpuConfig.Strategy strategy, GpuConfig.Interval interval, Integer activeThreadPercentage,
      Long pinnedDeviceMemoryLimitBytes, String visible, String gpuUuid, String pipeDir, String logDir) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record GpuRecord(String kind, MigRealiser.MigRecord mig, Sharing sharing) {}

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
    Sharing s;
    try {
      // One daemon per GPU or MIG device: a MIG instance NVML gives no UUID for is named by its GPU and instance.
      Path dir = !mps ? null : sharing.daemonDir(made == null || !made.migUuid().isEmpty() ? visible
          : made.gpuUuid() + "-gi" + made.gi() + "-ci" + made.ci());
      s = new Sharing(config.strategy(), config.interval(), config.activeThreadPercentage().orElse(null),
          config.pinnedDeviceMemoryLimitBytes().orElse(null), visible, gpuUuid,
          mps ? GpuSharing.pipeDir(dir).toString() : null, mps ? GpuSharing.logDir(dir).toString() : null);
      if (config.strategy() == GpuConfig.Strategy.TimeSlicing) {
        sharing.setTimeslice(gpuUuid, config.interval());
      } else {
        sharing.acquireMps(GpuSharing.holder(claimUid, null), dir, visible, s.activeThreadPercentage(),
            s.pinnedDeviceMemoryLimitBytes());
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
      mpsEdits(b, s.pipeDir(), s.logDir(), s.activeThreadPercentage(), s.pinnedDeviceMemoryLimitBytes());
    }
    return new Device(d.name(), d.source(), d.attributes(), d.capacity(), d.requestPolicies(),
        d.allowMultipleAllocations(), b.build(), d.sharedCounters(), d.consumesCounters(), d.nodeAllocatableResources());
  }

  /**
   * The GPU's MPS control daemon as a container reaches it: its pipe and log directories, and the client's own limits
   * (CUDA MPS documentation, "Environment Variables": a client's variables override the daemon's defaults).
   */
  static void mpsEdits(ContainerEdits.Builder b, String pipeDir, String logDir, Integer activeThreadPercentage,
      Long pinnedLimitBytes) {
    b.env("CUDA_MPS_PIPE_DIRECTORY=" + MPS_PIPE_IN_CONTAINER);
    b.env("CUDA_MPS_LOG_DIRECTORY=" + MPS_LOG_IN_CONTAINER);
    if (activeThreadPercentage != null) {
      b.env("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + activeThreadPercentage);
    }
    if (pinnedLimitBytes != null) {
      b.env("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=" + (pinnedLimitBytes >> 20) + "M");
    }
    b.mount(new ContainerEdits.Mount(pipeDir, MPS_PIPE_IN_CONTAINER, null, List.of("rw", "nosuid", "nodev", "bind")));
    b.mount(new ContainerEdits.Mount(logDir, MPS_LOG_IN_CONTAINER, null, List.of("rw", "nosuid", "nodev", "bind")));
    // The daemon's own /dev/shm (MpsShm), in place of the container's: CDI replaces a mount at the same path.
    Path parent = Path.of(pipeDir).getParent();
    if (parent != null) {
      b.mount(new ContainerEdits.Mount(MpsShm.dir(parent).toString(), SHM_IN_CONTAINER, null,
          List.of("rw", "nosuid", "nodev", "bind")));
    }
  }

  /**
   * A share of a GPU several claims hold ({@link GpuSharePlacer}): MPS joins the GPU's one control daemon (started by
   * the first share), a time slice other than Default is set by the first share; the placement gains the GPU's UUID
   * and the daemon's directories.
   */
  @Override
  public Placement realiseShare(Share share, Device device) throws RealiseException {
    Optional<GpuSharePlacer.Held> held = GpuSharePlacer.parse(share.placement());
    if (held.isEmpty() || !realises(device)) {
      return share.placement();
    }
    GpuSharePlacer.Held h = held.get();
    boolean mps = h.strategy() == GpuConfig.Strategy.MPS;
    boolean slice = h.strategy() == GpuConfig.Strategy.TimeSlicing && h.interval() != null
        && h.interval() != GpuConfig.Interval.Default;
    if (!mps && !slice) {
      return share.placement();
    }
    String uuid = text(device, GpuDevices.UUID);
    try {
      String holder = GpuSharing.holder(share.claimUid(), share.shareId());
      if (mps) {
        Path dir = sharing.daemonDir(uuid);
        sharing.acquireMps(holder, dir, uuid, null, null);
        return GpuSharePlacer.record(h.made(uuid, GpuSharing.pipeDir(dir).toString(), GpuSharing.logDir(dir).toString()));
      }
      sharing.acquireTimeslice(holder, uuid, h.interval());
      return GpuSharePlacer.record(h.made(uuid, null, null));
    } catch (IOException | RuntimeException e) {
      throw new RealiseException("GPU sharing " + h.strategy() + " not set up: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean unrealiseShare(Share share) throws RealiseException {
    Optional<GpuSharePlacer.Held> held = GpuSharePlacer.parse(share.placement());
    if (held.isEmpty()) {
      return false;
    }
    GpuSharePlacer.Held h = held.get();
    if (h.gpuUuid() == null) {
      return true;
    }
    try {
      String holder = GpuSharing.holder(share.claimUid(), share.shareId());
      if (h.strategy() == GpuConfig.Strategy.MPS) {
        Optional<Path> dir = sharing.recordedDaemonDir(h.pipeDir(), h.logDir());
        if (dir.isPresent()) {
          sharing.releaseMps(holder, dir.get(), h.gpuUuid());
        }
      } else if (h.strategy() == GpuConfig.Strategy.TimeSlicing) {
        sharing.releaseTimeslice(holder, h.gpuUuid());
      }
    } catch (IOException | RuntimeException e) {
      throw new RealiseException("GPU sharing " + h.strategy() + " not undone: " + e.getMessage(), e);
    }
    return true;
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
        Optional<Path> dir = sharing.recordedDaemonDir(s.pipeDir(), s.logDir());
        if (dir.isPresent()) {
          sharing.releaseMps(GpuSharing.holder(claimUid, null), dir.get(), s.visible());
        }
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
    return reconcile(live, List.of(), claims);
  }

  @Override
  public List<Realised> reconcile(List<Realised> live, List<Share> shares, Set<String> claims) {
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
    // One MPS control daemon per directory the live records name (per GPU; per claim as written before), with
    // exactly their holders: started where a reboot or a crash of the agent (its cgroup) took it, left alone
    // where it runs. A MIG instance a daemon serves was re-found or re-made above.
    java.util.Map<Path, Daemon> daemons = new java.util.TreeMap<>();
    java.util.Map<String, Set<String>> slices = new java.util.TreeMap<>();
    java.util.Map<String, GpuConfig.Interval> intervals = new java.util.TreeMap<>();
    for (Realised r : live) {
      Optional<GpuRecord> g = parse(r.record());
      if (g.isPresent() && g.get().sharing() != null && g.get().sharing().strategy() == GpuConfig.Strategy.TimeSlicing) {
        intervals.put(g.get().sharing().gpuUuid(), g.get().sharing().interval());
      }
      if (g.isEmpty() || g.get().sharing() == null || g.get().sharing().strategy() != GpuConfig.Strategy.MPS) {
        continue;
      }
      Sharing s = g.get().sharing();
      String visible = changedSharing(changed, r).map(Sharing::visible).orElse(s.visible());
      Optional<Path> dir = sharing.recordedDaemonDir(s.pipeDir(), s.logDir());
      if (dir.isEmpty()) {
        LOG.log(System.Logger.Level.WARNING, "MPS control daemon of claim " + r.claimUid() + " not started: its "
            + "record names directories outside " + sharing.daemonDir("x").getParent());
        continue;
      }
      daemons.computeIfAbsent(dir.get(), d -> new Daemon(visible, s.activeThreadPercentage(),
          s.pinnedDeviceMemoryLimitBytes(), new java.util.TreeSet<>())).holders().add(safeHolder(r.claimUid(), null));
    }
    for (Share sh : shares) {
      Optional<GpuSharePlacer.Held> held = GpuSharePlacer.parse(sh.placement()).filter(h -> h.gpuUuid() != null);
      if (held.isEmpty()) {
        continue;
      }
      GpuSharePlacer.Held h = held.get();
      if (h.strategy() == GpuConfig.Strategy.MPS) {
        Optional<Path> dir = sharing.recordedDaemonDir(h.pipeDir(), h.logDir());
        if (dir.isPresent()) {
          daemons.computeIfAbsent(dir.get(), d -> new Daemon(h.gpuUuid(), null, null, new java.util.TreeSet<>()))
              .holders().add(safeHolder(sh.claimUid(), sh.shareId()));
        }
      } else if (h.strategy() == GpuConfig.Strategy.TimeSlicing) {
        slices.computeIfAbsent(h.gpuUuid(), u -> new java.util.TreeSet<>()).add(safeHolder(sh.claimUid(), sh.shareId()));
        intervals.put(h.gpuUuid(), h.interval());
      }
    }
    daemons.forEach((dir, d) -> {
      try {
        sharing.setMpsHolders(dir, d.holders());
        if (sharing.ensureMps(dir, d.visible(), d.activeThreadPercentage(), d.pinnedLimitBytes())) {
          LOG.log(System.Logger.Level.INFO, "MPS control daemon for " + d.visible() + " started again (held by "
              + d.holders() + ")");
        }
      } catch (IOException | RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "MPS control daemon for " + d.visible() + " not started again: "
            + e.getMessage() + "; its containers run without MPS until their claims are prepared anew");
      }
    });
    // Daemons no live record names (a crash between starting one and the checkpoint commit, a claim gone).
    try {
      for (Path dir : sharing.mpsDirs()) {
        if (!daemons.containsKey(dir)) {
          try {
            sharing.stopMps(dir, "");
          } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "MPS control daemon in " + dir + " not stopped: " + e.getMessage());
          }
        }
      }
      for (String gpu : sharing.timesliceGpus()) {
        try {
          Set<String> holders = slices.getOrDefault(gpu, Set.of());
          sharing.setTimesliceHolders(gpu, holders);
          if (holders.isEmpty()) {
            sharing.releaseTimeslice("none", gpu);
          }
        } catch (IOException | RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "time slice of " + gpu + " not reset: " + e.getMessage());
        }
      }
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "GPU sharing directories not read: " + e.getMessage());
    }
    restoreTimeslices(intervals);
    return changed;
  }

  /**
   * While the agent runs ({@link DeviceRealiser#upkeep}): an MPS control daemon that died while live claims hold it is
   * started again in its directories, once; one that runs without a live holder is stopped ({@link GpuSharing#upkeep}).
   */
  @Override
  public java.util.Map<String, Integer> upkeep(Set<String> claims) {
    try {
      return sharing.upkeep(holder -> claims.contains(holder.contains(".") ? holder.substring(0, holder.indexOf('.'))
          : holder));
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "MPS control daemons not checked: " + e.getMessage());
      return java.util.Map.of("gpu_mps_check_failed", 1);
    }
  }

  /** A reboot or a GPU reset leaves the Default slice: the interval live claims and shares asked for is set again. */
  private void restoreTimeslices(java.util.Map<String, GpuConfig.Interval> intervals) {
    intervals.forEach((gpu, interval) -> {
      if (interval == null || interval == GpuConfig.Interval.Default) {
        return;
      }
      try {
        sharing.setTimeslice(gpu, interval);
        LOG.log(System.Logger.Level.INFO, "time slice of " + gpu + " set again to " + interval);
      } catch (IOException | RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "time slice of " + gpu + " not set again to " + interval + ": "
            + e.getMessage() + "; its containers run at the Default slice until their claims are prepared anew");
      }
    });
  }

  /** One MPS control daemon as the live records name it. */
  private record Daemon(String visible, Integer activeThreadPercentage, Long pinnedLimitBytes, Set<String> holders) {}

  private static String safeHolder(String claimUid, String shareId) {
    try {
      return GpuSharing.holder(claimUid, shareId);
    } catch (IllegalArgumentException e) {
      return "unnamed";
    }
  }

  /** The sharing of {@code r}'s device as re-made at this start (a new MIG instance), when it was. */
  private static Optional<Sharing> changedSharing(List<Realised> changed, Realised r) {
    return changed.stream().filter(c -> c.claimUid().equals(r.claimUid()) && c.device().equals(r.device()))
        .findFirst().flatMap(c -> parse(c.record())).map(GpuRecord::sharing);
  }

  private static Placement migPlacement(MigRealiser.MigRecord m) {
    return PlacementRecords.write(MigRealiser.VERSION, m);
  }

  private static Placement record(GpuRecord r) {
    return PlacementRecords.write(VERSION, r);
  }

  static Optional<GpuRecord> parse(Placement p) {
    return PlacementRecords.read(p, VERSION, KIND, GpuRecord.class, GpuRecord::kind, r -> true);
  }

  private static String text(Device d, String attribute) throws RealiseException {
    return d.attribute(attribute).filter(v -> v instanceof AttributeValue.StringValue)
        .map(v -> ((AttributeValue.StringValue) v).value())
        .orElseThrow(() -> new RealiseException("device " + d.name() + " has no " + attribute));
  }
}
