package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.nvml.NvmlDevice;
import io.nodeatlas.discovery.gpu.nvml.NvmlException;
import io.nodeatlas.discovery.gpu.nvml.NvmlReturn;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.ComputeInstance;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.GpuInstance;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.Placement;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Creates the MIG instance a claim's partition device names at Prepare, and destroys it at Unprepare
 * (docs/design/gpu-mig-partitions.md). NVML API Reference, "Multi Instance GPU Management": a GPU instance
 * with {@code nvmlDeviceCreateGpuInstanceWithPlacement} at the device's profile id and placement, then one
 * compute instance over all of it ({@code nvmlGpuInstanceGetComputeInstanceProfileInfoV},
 * {@code nvmlGpuInstanceCreateComputeInstance}); destroyed in the reverse order ({@code nvmlComputeInstanceDestroy},
 * {@code nvmlGpuInstanceDestroy}, which answers {@code NVML_ERROR_IN_USE} while compute instances remain).
 * Every instance is journalled ({@link MigJournal}) before it is created; an instance not in the journal
 * is never destroyed. One NVML session per operation, all operations under one lock.
 */
final class MigRealiser implements DeviceRealiser {

  /** The record's kind: a placement value of another kind is not ours. */
  static final String KIND = "gpu.nodeatlas.io/mig-instance";
  static final int VERSION = 1;

  /** The record stored in the checkpoint (placement version 1): the instance, where it is and its capability nodes. */
  record MigRecord(String kind, String gpuUuid, int gpuMinor, int profileId, int start, int size, int gi, int ci,
      int capsMajor, int giCap, int ciCap, String migUuid) {

    MigJournal.Entry entry(String claimUid, String device) {
      return new MigJournal.Entry(claimUid, device, gpuUuid, gpuMinor, profileId, start, size, gi, ci, List.of());
    }
  }

  private static final System.Logger LOG = System.getLogger(MigRealiser.class.getName());

  private final NvmlLoader loader;
  private final HostContext host;
  private final MigJournal journal;

  MigRealiser(NvmlLoader loader, HostContext host, Path stateDir) {
    this.loader = loader;
    this.host = host;
    this.journal = new MigJournal(stateDir);
  }

  @Override
  public boolean realises(Device device) {
    return device.source().equals(GpuDevices.SOURCE) && device.attribute(MigPartitions.PROFILE_ID).isPresent()
        && device.attribute(MigPartitions.PLACEMENT_START).isPresent();
  }

  @Override
  public synchronized Placement realise(String claimUid, Device device, List<String> configs) throws RealiseException {
    String gpuUuid = string(device, GpuDevices.PARENT_UUID);
    MigJournal.Entry intent = new MigJournal.Entry(claimUid, device.name(), gpuUuid, integer(device, GpuDevices.PARENT_MINOR),
        integer(device, MigPartitions.PROFILE_ID), integer(device, MigPartitions.PLACEMENT_START),
        integer(device, MigPartitions.PLACEMENT_SIZE), -1, -1, List.of());
    try (NvmlSession nvml = loader.load(host).init()) {
      NvmlDevice gpu = gpuByUuid(nvml, gpuUuid);
      List<Integer> before = new ArrayList<>();
      for (GpuInstance gi : nvml.gpuInstances(gpu, intent.profileId(), NvmlSession.Placement.MAX_PLACEMENTS)) {
        before.add(nvml.gpuInstanceInfo(gi).id());
      }
      intent = new MigJournal.Entry(claimUid, device.name(), gpuUuid, intent.gpuMinor(), intent.profileId(), intent.start(),
          intent.size(), -1, -1, before);
      journal.put(intent);
      return create(nvml, gpu, intent);
    } catch (NvmlException e) {
      forget(intent);
      throw new RealiseException("MIG instance " + describe(intent) + " not created: " + e.getMessage()
          + advice(e), e);
    } catch (IOException e) {
      forget(intent);
      throw new RealiseException("MIG instance " + describe(intent) + " not created: cannot write "
          + journal.file() + ": " + e.getMessage(), e);
    } catch (RealiseException e) {
      forget(intent);
      throw new RealiseException("MIG instance " + describe(intent) + " not created: " + e.getMessage(), e);
    }
  }

  /** Creates the GPU and compute instance of a journalled intent, journalling each id; undone on failure. */
  private Placement create(NvmlSession nvml, NvmlDevice gpu, MigJournal.Entry intent) throws NvmlException,
      IOException, RealiseException {
    GpuInstance gi = nvml.createGpuInstance(gpu, intent.profileId(),
        new NvmlSession.Placement(intent.start(), intent.size()));
    ComputeInstance ci = null;
    try {
      MigJournal.Entry withGi = intent.withGi(nvml.gpuInstanceInfo(gi).id());
      journal.put(withGi);
      ci = nvml.createComputeInstance(gi, wholeComputeProfile(nvml, gi));
      NvmlSession.ComputeInstanceInfo info = nvml.computeInstanceInfo(ci);
      MigJournal.Entry made = withGi.withCi(info.id());
      journal.put(made);
      String migUuid = "";
      if (info.migDevice() != 0) {
        try {
          migUuid = nvml.uuid(new NvmlDevice(info.migDevice()));
        } catch (NvmlException e) {
          migUuid = "";
        }
      }
      MigRecord record = withCaps(made, migUuid);
      return PlacementRecords.write(VERSION, record);
    } catch (NvmlException | IOException | RealiseException | RuntimeException e) {
      try {
        if (ci != null) {
          nvml.destroyComputeInstance(ci);
        }
        nvml.destroyGpuInstance(gi);
      } catch (NvmlException undo) {
        e.addSuppressed(undo);
      }
      throw e;
    }
  }

  /** The record with the GI and CI capability nodes the host names ({@code mig-minors}, {@code /proc/devices}). */
  private MigRecord withCaps(MigJournal.Entry made, String migUuid) throws RealiseException {
    List<String> warnings = new ArrayList<>();
    FactReader facts = new FactReader(host.fs(), warnings::add);
    NvidiaHostFiles files = new NvidiaHostFiles(facts, facts, "/", "/", 0);
    Optional<Integer> major = files.majors().major("nvidia-caps");
    var minors = files.migMinors();
    Optional<Integer> giCap = minors.gpuInstance(made.gpuMinor(), made.gi());
    Optional<Integer> ciCap = minors.computeInstance(made.gpuMinor(), made.gi(), made.ci());
    if (major.isEmpty() || giCap.isEmpty() || ciCap.isEmpty()) {
      throw new RealiseException("the host names no capability device for it (/proc/devices nvidia-caps, "
          + "/proc/driver/nvidia-caps/mig-minors gpu" + made.gpuMinor() + "/gi" + made.gi() + "/ci" + made.ci()
          + "/access): is the nvidia-caps module loaded?");
    }
    return new MigRecord(KIND, made.gpuUuid(), made.gpuMinor(), made.profileId(), made.start(), made.size(), made.gi(),
        made.ci(), major.get(), giCap.get(), ciCap.get(), migUuid);
  }

  /**
   * The compute instance profile covering the whole GPU instance: the one with the most slices that NVML
   * offers for it ({@code NOT_SUPPORTED} for profiles larger than the GPU instance).
   */
  private static int wholeComputeProfile(NvmlSession nvml, GpuInstance gi) throws NvmlException {
    NvmlSession.ComputeInstanceProfile best = null;
    NvmlException last = null;
    for (int i = 0; i < NvmlSession.ComputeInstanceProfile.INDEX_COUNT; i++) {
      try {
        NvmlSession.ComputeInstanceProfile p = nvml.computeInstanceProfile(gi, i);
        if (best == null || p.sliceCount() > best.sliceCount()) {
          best = p;
        }
      } catch (NvmlException e) {
        if (e.status() != NvmlReturn.ERROR_NOT_SUPPORTED && e.status() != NvmlReturn.ERROR_INVALID_ARGUMENT) {
          throw e;
        }
        last = e;
      }
    }
    if (best == null) {
      throw last;
    }
    return best.id();
  }

  @Override
  public Device containerEdits(Device device, Placement record) {
    MigRecord r = parse(record).orElseThrow(() -> new IllegalArgumentException("not a MIG instance record"));
    ContainerEdits.Builder b = ContainerEdits.builder();
    ContainerEdits base = device.containerEdits();
    base.deviceNodes().forEach(b::deviceNode);
    // The GI and CI access capabilities make exactly this instance usable (NVIDIA MIG User Guide, "Device
    // Nodes and Capabilities"); NVIDIA_VISIBLE_DEVICES names it where NVML gave its MIG UUID.
    b.deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidia-caps/nvidia-cap" + r.giCap(), r.capsMajor(), r.giCap()));
    b.deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidia-caps/nvidia-cap" + r.ciCap(), r.capsMajor(), r.ciCap()));
    base.mounts().forEach(b::mount);
    base.hooks().forEach(b::hook);
    base.netDevices().forEach(b::netDevice);
    base.env().stream().filter(e -> !e.startsWith("NVIDIA_VISIBLE_DEVICES=")).forEach(b::env);
    if (!r.migUuid().isEmpty()) {
      b.env("NVIDIA_VISIBLE_DEVICES=" + r.migUuid());
    }
    b.env("NODEATLAS_MIG_INSTANCE=" + r.gpuUuid() + "/" + r.gi() + "/" + r.ci());
    return new Device(device.name(), device.source(), device.attributes(), device.capacity(), device.requestPolicies(),
        device.allowMultipleAllocations(), b.build(), device.sharedCounters(), device.consumesCounters(),
        device.nodeAllocatableResources());
  }

  @Override
  public synchronized boolean unrealise(String claimUid, String device, Placement record) throws RealiseException {
    Optional<MigRecord> r = parse(record);
    if (r.isEmpty()) {
      return false;
    }
    MigJournal.Entry entry = r.get().entry(claimUid, device);
    try (NvmlSession nvml = loader.load(host).init()) {
      destroy(nvml, gpuByUuid(nvml, r.get().gpuUuid()), entry);
      journal.remove(entry);
      return true;
    } catch (NvmlException e) {
      throw new RealiseException("MIG instance " + describe(entry) + " not destroyed: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new RealiseException("MIG instance " + describe(entry) + " destroyed, but " + journal.file()
          + " not updated: " + e.getMessage(), e);
    }
  }

  /**
   * Destroys the instance an entry names, when it is there and still the one we made (same profile and
   * placement); gone already is done.
   */
  private static void destroy(NvmlSession nvml, NvmlDevice gpu, MigJournal.Entry e) throws NvmlException {
    Optional<GpuInstance> gi = ours(nvml, gpu, e);
    if (gi.isEmpty()) {
      return;
    }
    for (int ciId : e.ci() >= 0 ? List.of(e.ci()) : List.<Integer>of()) {
      try {
        nvml.destroyComputeInstance(nvml.computeInstanceById(gi.get(), ciId));
      } catch (NvmlException x) {
        if (x.status() != NvmlReturn.ERROR_NOT_FOUND) {
          throw x;
        }
      }
    }
    if (e.ci() < 0) {
      // Killed between creating the compute instance and journalling its id: the GPU instance is ours, and
      // so is a compute instance on it (nobody else could have made one before the agent's start).
      for (int id = 0; id < 8; id++) {
        try {
          nvml.destroyComputeInstance(nvml.computeInstanceById(gi.get(), id));
        } catch (NvmlException x) {
          if (x.status() != NvmlReturn.ERROR_NOT_FOUND) {
            throw x;
          }
        }
      }
    }
    nvml.destroyGpuInstance(gi.get());
  }

  /**
   * The GPU instance an entry names: by id when journalled, else (killed before the id was written) the
   * instance at its placement of its profile whose id was not there before. Only one that matches
   * profile and placement.
   */
  private static Optional<GpuInstance> ours(NvmlSession nvml, NvmlDevice gpu, MigJournal.Entry e) throws NvmlException {
    if (e.gi() >= 0) {
      try {
        GpuInstance gi = nvml.gpuInstanceById(gpu, e.gi());
        NvmlSession.GpuInstanceInfo info = nvml.gpuInstanceInfo(gi);
        return matches(info, e) ? Optional.of(gi) : Optional.empty();
      } catch (NvmlException x) {
        if (x.status() == NvmlReturn.ERROR_NOT_FOUND) {
          return Optional.empty();
        }
        throw x;
      }
    }
    for (GpuInstance gi : nvml.gpuInstances(gpu, e.profileId(), NvmlSession.Placement.MAX_PLACEMENTS)) {
      NvmlSession.GpuInstanceInfo info = nvml.gpuInstanceInfo(gi);
      if (matches(info, e) && !e.before().contains(info.id())) {
        return Optional.of(gi);
      }
    }
    return Optional.empty();
  }

  private static boolean matches(NvmlSession.GpuInstanceInfo info, MigJournal.Entry e) {
    return info.profileId() == e.profileId() && info.placement().start() == e.start()
        && info.placement().size() == e.size();
  }

  @Override
  public synchronized List<Realised> reconcile(List<Realised> live, Set<String> claims) {
    List<Realised> changed = new ArrayList<>();
    List<MigJournal.Entry> entries;
    try {
      entries = journal.read();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "MIG instances not reconciled: " + e.getMessage());
      return changed;
    }
    List<MigJournal.Entry> liveEntries = new ArrayList<>();
    List<Realised> ours = new ArrayList<>();
    for (Realised r : live) {
      parse(r.record()).ifPresent(m -> {
        liveEntries.add(m.entry(r.claimUid(), r.device()));
        ours.add(r);
      });
    }
    if (entries.isEmpty() && ours.isEmpty()) {
      return changed;
    }
    try (NvmlSession nvml = loader.load(host).init()) {
      // Orphans: journalled for a claim the agent does not hold, or not as its record says.
      for (MigJournal.Entry e : entries) {
        boolean recorded = liveEntries.stream().anyMatch(l -> l.sameSlot(e) && l.gi() == e.gi() && l.ci() == e.ci());
        if (recorded && claims.contains(e.claimUid())) {
          continue;
        }
        try {
          destroy(nvml, gpuByUuid(nvml, e.gpuUuid()), e);
          journal.remove(e);
          LOG.log(System.Logger.Level.INFO, "destroyed MIG instance " + describe(e) + " of claim " + e.claimUid()
              + ", which no prepared claim records");
        } catch (NvmlException | IOException x) {
          LOG.log(System.Logger.Level.WARNING, "MIG instance " + describe(e) + " not destroyed: " + x.getMessage());
        }
      }
      // Live claims: re-found, or re-made where a reboot cleared them.
      for (Realised r : ours) {
        MigRecord m = parse(r.record()).orElseThrow();
        MigJournal.Entry e = m.entry(r.claimUid(), r.device());
        try {
          NvmlDevice gpu = gpuByUuid(nvml, m.gpuUuid());
          if (ours(nvml, gpu, e).isPresent()) {
            if (entries.stream().noneMatch(x -> x.sameSlot(e))) {
              journal.put(e);
            }
            continue;
          }
          MigJournal.Entry intent = new MigJournal.Entry(e.claimUid(), e.device(), e.gpuUuid(), e.gpuMinor(),
              e.profileId(), e.start(), e.size(), -1, -1, List.of());
          journal.put(intent);
          Placement remade;
          try {
            remade = create(nvml, gpu, intent);
          } catch (NvmlException | RealiseException x) {
            journal.remove(intent);
            throw x;
          }
          changed.add(new Realised(r.claimUid(), r.device(), remade));
          LOG.log(System.Logger.Level.INFO, "re-created MIG instance " + describe(e) + " of claim " + r.claimUid());
        } catch (NvmlException | IOException | RealiseException x) {
          LOG.log(System.Logger.Level.WARNING, "MIG instance " + describe(e) + " of claim " + r.claimUid()
              + " neither found nor re-created: " + x.getMessage());
        }
      }
    } catch (NvmlException e) {
      LOG.log(System.Logger.Level.WARNING, "MIG instances not reconciled: " + e.getMessage());
    }
    return changed;
  }

  private void forget(MigJournal.Entry intent) {
    try {
      journal.remove(intent);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot update " + journal.file() + ": " + e.getMessage());
    }
  }

  /** A record of ours, or empty. */
  static Optional<MigRecord> parse(Placement p) {
    return PlacementRecords.read(p, VERSION, KIND, MigRecord.class, MigRecord::kind,
        r -> r.gpuUuid() != null && r.migUuid() != null);
  }

  private static NvmlDevice gpuByUuid(NvmlSession nvml, String uuid) throws NvmlException {
    int n = nvml.deviceCount();
    for (int i = 0; i < n; i++) {
      try {
        NvmlDevice d = nvml.deviceByIndex(i);
        if (uuid.equals(nvml.uuid(d))) {
          return d;
        }
      } catch (NvmlException e) {
        // A GPU we may not open is not the one.
      }
    }
    throw new NvmlException("nvmlDeviceGetUUID", NvmlReturn.ERROR_NOT_FOUND.code(), "no GPU " + uuid + " on this node");
  }

  private static String advice(NvmlException e) {
    return switch (e.status()) {
      case ERROR_INSUFFICIENT_RESOURCES -> "; another MIG instance overlaps this placement or the GPU's slices are used up "
          + "(an instance this agent did not create is left alone)";
      case ERROR_NOT_SUPPORTED -> "; MIG mode is off on this GPU (the operator turns it on)";
      default -> "";
    };
  }

  private static String describe(MigJournal.Entry e) {
    return "profile " + e.profileId() + " at " + e.start() + ":" + e.size() + " on " + e.gpuUuid()
        + (e.gi() >= 0 ? " (GPU instance " + e.gi() + (e.ci() >= 0 ? ", compute instance " + e.ci() : "") + ")" : "");
  }

  private static String string(Device d, String attribute) throws RealiseException {
    return d.attribute(attribute).filter(v -> v instanceof AttributeValue.StringValue)
        .map(v -> ((AttributeValue.StringValue) v).value())
        .orElseThrow(() -> new RealiseException("device " + d.name() + " has no " + attribute));
  }

  private static int integer(Device d, String attribute) throws RealiseException {
    return d.attribute(attribute).filter(v -> v instanceof AttributeValue.IntValue)
        .map(v -> (int) ((AttributeValue.IntValue) v).value())
        .orElseThrow(() -> new RealiseException("device " + d.name() + " has no " + attribute));
  }
}
