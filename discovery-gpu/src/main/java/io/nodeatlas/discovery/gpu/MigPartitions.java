package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.nvml.NvmlDevice;
import io.nodeatlas.discovery.gpu.nvml.NvmlException;
import io.nodeatlas.discovery.gpu.nvml.NvmlReturn;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.GpuInstanceProfile;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.Placement;
import io.nodeatlas.discovery.model.CounterConsumption;
import io.nodeatlas.discovery.model.CounterSet;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Dynamic MIG as partitionable devices (KEP-4815): a MIG-capable GPU's capacity as one counter set, and
 * one device per GPU instance profile and placement that consumes from it, so the scheduler can never
 * allocate two placements that share a memory slice.
 *
 * <p>Everything comes from NVML ({@code nvmlDeviceGetGpuInstanceProfileInfoV},
 * {@code nvmlDeviceGetGpuInstancePossiblePlacements_v2}), never from a table of products: one counter per
 * memory slice (placements count memory slices, docs/design/gpu-mig-profiles-h200.md), the compute
 * slices, and each engine kind some profile takes, each total the most any one profile takes (the whole-GPU
 * profile). The whole GPU consumes every counter. Devices are named from NVML's profile name:
 * {@code gpu-<minor>-mig-<profile>-<start>}, e.g. {@code gpu-0-mig-1g-18gb-me-0}.
 *
 * <p>KEP-5963 (compatibility groups for devices that exclude each other) was not found in the upstream
 * material this build follows, and fabric8's {@code resource.k8s.io/v1} model has no such field: none is
 * set. The counters alone already keep a partition and the whole GPU apart.
 */
public final class MigPartitions {

  public static final String PLACEMENT_START = Names.ours("migPlacementStart");
  public static final String PLACEMENT_SIZE = Names.ours("migPlacementSize");
  public static final String PROFILE_ID = Names.ours("migProfileID");

  static final String COMPUTE_SLICES = "compute-slices";
  static final String MEMORY_SLICE_PREFIX = "memory-slice-";

  private static final long MIB = 1L << 20;
  /** 1 PiB in MiB: more memory than any GPU has, and far from overflowing bytes in a long. */
  private static final long MAX_MEMORY_MIB = 1L << 30;

  /** One profile NVML answered for, with its placements. */
  public record Profile(GpuInstanceProfile info, List<Placement> placements) {
    public Profile {
      placements = List.copyOf(placements);
    }

    /** {@code 1g.18gb+me} from NVML's {@code MIG 1g.18gb+me}. */
    public String shortName() {
      String n = info.name().trim();
      return n.startsWith("MIG ") ? n.substring(4).trim() : n;
    }
  }

  /** What one GPU publishes: its counter set, what the whole GPU consumes, and the partitions. */
  public record Published(CounterSet counters, CounterConsumption whole, List<Device> partitions) {}

  /** A GPU instance that exists and that no claim of ours made (an operator's): its id, profile id and placement. */
  public record Existing(int id, int profileId, Placement placement) {}

  private MigPartitions() {}

  /**
   * Reads every profile index NVML answers for, with its placements. {@code NOT_SUPPORTED} for an index
   * is normal (a profile this GPU lacks); any other failure costs that profile and a warning.
   */
  static List<Profile> read(NvmlSession nvml, NvmlDevice gpu, String label, Consumer<String> warn) {
    List<Profile> out = new ArrayList<>();
    for (int index = 0; index < GpuInstanceProfile.INDEX_COUNT; index++) {
      GpuInstanceProfile info;
      try {
        info = nvml.gpuInstanceProfile(gpu, index);
      } catch (NvmlException e) {
        if (e.code() != NvmlReturn.ERROR_NOT_SUPPORTED.code() && e.code() != NvmlReturn.ERROR_INVALID_ARGUMENT.code()) {
          warn.accept(label + ": MIG profile index " + index + " not read: " + e.getMessage());
        }
        continue;
      }
      try {
        out.add(new Profile(info, nvml.gpuInstancePlacements(gpu, info.id())));
      } catch (NvmlException e) {
        warn.accept(label + ": placements of MIG profile " + info.name() + " not read: " + e.getMessage());
      }
    }
    return out;
  }

  /**
   * The counter set and partitions of GPU {@code gpu-<minor>}; empty when NVML gave nothing usable.
   * {@code parent} is the whole GPU's device, whose identity attributes the partitions share.
   */
  public static Optional<Published> build(int minor, Device parent, List<Profile> profiles, Consumer<String> warn) {
    return build(minor, parent, profiles, List.of(), warn);
  }

  /**
   * As {@link #build(int, Device, List, Consumer)} on a GPU where the instances {@code existing} were made by
   * others: their memory slices are taken (no partition that overlaps one is published) and their compute slices
   * and engines are gone from the counter set's totals (no partition that needs more than is left is published);
   * the whole GPU still consumes every counter in full, so the scheduler cannot allocate it while they exist. A
   * counter they use up leaves the set and the whole GPU's consumption (the API wants no partition to need it);
   * empty, with a warning, when no partition is left.
   */
  public static Optional<Published> build(int minor, Device parent, List<Profile> profiles, List<Existing> existing,
      Consumer<String> warn) {
    String setName = "gpu-" + minor;
    int memorySlices = 0;
    SortedMap<String, Long> totals = new TreeMap<>();
    List<Profile> usable = new ArrayList<>();
    for (Profile p : profiles) {
      GpuInstanceProfile i = p.info();
      boolean placementsOk = !p.placements().isEmpty() && p.placements().stream()
          .allMatch(pl -> pl.size() > 0 && pl.start() >= 0 && pl.start() + pl.size() <= 64);
      // NVML's unsigned ints arrive as Java ints: a value past 2^31 is negative here, and none is plausible.
      boolean countsOk = i.sliceCount() > 0 && i.sliceCount() <= CounterSet.MAX_COUNTERS && i.multiprocessorCount() >= 0
          && i.copyEngineCount() >= 0 && i.decoderCount() >= 0 && i.encoderCount() >= 0 && i.jpegCount() >= 0
          && i.ofaCount() >= 0 && i.memoryMiB() > 0 && i.memoryMiB() <= MAX_MEMORY_MIB;
      if (!placementsOk || !countsOk || !Names.isDnsLabel(partitionName(minor, p, 0))) {
        warn.accept("gpu-" + minor + ": MIG profile " + i.name() + " (id " + i.id() + ") left out: "
            + "no usable placement, implausible slice, engine or memory counts, or a name that cannot be a device name");
        continue;
      }
      usable.add(p);
      for (Placement pl : p.placements()) {
        memorySlices = Math.max(memorySlices, pl.start() + pl.size());
      }
      max(totals, COMPUTE_SLICES, i.sliceCount());
      max(totals, "copy-engines", i.copyEngineCount());
      max(totals, "decoders", i.decoderCount());
      max(totals, "encoders", i.encoderCount());
      max(totals, "jpeg-engines", i.jpegCount());
      max(totals, "ofa-engines", i.ofaCount());
    }
    totals.values().removeIf(v -> v <= 0);
    if (usable.isEmpty() || memorySlices + totals.size() > CounterSet.MAX_COUNTERS) {
      if (!usable.isEmpty()) {
        warn.accept("gpu-" + minor + ": " + memorySlices + " memory slices and " + totals.size()
            + " other counters exceed the API's " + CounterSet.MAX_COUNTERS + " counters per set; no MIG partitions");
      }
      return Optional.empty();
    }
    // What the instances of others hold: their memory slices, and their profiles' compute slices and engines.
    java.util.Set<Integer> taken = new java.util.TreeSet<>();
    SortedMap<String, Long> used = new TreeMap<>();
    for (Existing e : existing) {
      Optional<Profile> of = usable.stream().filter(p -> p.info().id() == e.profileId()).findFirst();
      if (of.isEmpty() || e.placement().start() < 0 || e.placement().size() <= 0
          || e.placement().start() + e.placement().size() > memorySlices) {
        warn.accept("gpu-" + minor + ": GPU instance " + e.id() + " (profile id " + e.profileId() + ", placement "
            + e.placement().start() + ":" + e.placement().size() + ") is of no profile or placement NVML offers; no MIG "
            + "partitions, since what it holds cannot be accounted");
        return Optional.empty();
      }
      for (int s = e.placement().start(); s < e.placement().start() + e.placement().size(); s++) {
        taken.add(s);
      }
      for (var c : consumption(of.get().info()).entrySet()) {
        used.merge(c.getKey(), (long) c.getValue(), Long::sum);
      }
    }
    SortedMap<String, Long> left = new TreeMap<>();
    totals.forEach((k, v) -> left.put(k, v - used.getOrDefault(k, 0L)));
    SortedMap<String, Quantity> all = new TreeMap<>();
    SortedMap<String, Quantity> inSet = new TreeMap<>();
    for (int s = 0; s < memorySlices; s++) {
      all.put(MEMORY_SLICE_PREFIX + s, Quantity.of(1));
      inSet.put(MEMORY_SLICE_PREFIX + s, Quantity.of(1));
    }
    left.forEach((k, v) -> {
      if (v > 0) {
        all.put(k, Quantity.of(totals.get(k)));
        inSet.put(k, Quantity.of(v));
      }
    });
    CounterSet set = new CounterSet(setName, inSet);

    List<Device> partitions = new ArrayList<>();
    for (Profile p : usable) {
      GpuInstanceProfile i = p.info();
      boolean fits = consumption(i).entrySet().stream()
          .allMatch(c -> !totals.containsKey(c.getKey()) || c.getValue() <= left.get(c.getKey()));
      for (Placement pl : p.placements()) {
        boolean overlaps = false;
        for (int s = pl.start(); s < pl.start() + pl.size(); s++) {
          overlaps |= taken.contains(s);
        }
        if (!fits || overlaps) {
          continue;
        }
        SortedMap<String, Quantity> uses = new TreeMap<>();
        for (int s = pl.start(); s < pl.start() + pl.size(); s++) {
          uses.put(MEMORY_SLICE_PREFIX + s, Quantity.of(1));
        }
        put(uses, totals, COMPUTE_SLICES, i.sliceCount());
        put(uses, totals, "copy-engines", i.copyEngineCount());
        put(uses, totals, "decoders", i.decoderCount());
        put(uses, totals, "encoders", i.encoderCount());
        put(uses, totals, "jpeg-engines", i.jpegCount());
        put(uses, totals, "ofa-engines", i.ofaCount());
        Device.Builder d = Device.builder(partitionName(minor, p, pl.start()), GpuDevices.SOURCE)
            .attribute(Device.TYPE, "mig")
            .attribute(GpuDevices.PROFILE, p.shortName())
            .attribute(PROFILE_ID, i.id())
            .attribute(PLACEMENT_START, pl.start())
            .attribute(PLACEMENT_SIZE, pl.size())
            .attribute(GpuDevices.PARENT_MINOR, minor);
        for (String shared : List.of(GpuDevices.UUID, GpuDevices.PRODUCT_NAME, GpuDevices.BRAND, GpuDevices.ARCHITECTURE,
            GpuDevices.CUDA_COMPUTE_CAPABILITY, GpuDevices.DRIVER_VERSION, GpuDevices.CUDA_DRIVER_VERSION,
            Names.PCI_BUS_ID, Names.PCIE_ROOT, Names.NUMA_NODE)) {
          parent.attribute(shared).ifPresent(v -> d.attribute(shared.equals(GpuDevices.UUID) ? GpuDevices.PARENT_UUID : shared, v));
        }
        d.capacity(GpuDevices.MEMORY, Quantity.of(i.memoryMiB() * MIB))
            .capacity(GpuDevices.MULTIPROCESSORS, i.multiprocessorCount())
            .capacity(GpuDevices.COPY_ENGINES, i.copyEngineCount())
            .capacity(GpuDevices.DECODERS, i.decoderCount())
            .capacity(GpuDevices.ENCODERS, i.encoderCount())
            .capacity(GpuDevices.JPEG_ENGINES, i.jpegCount())
            .capacity(GpuDevices.OFA_ENGINES, i.ofaCount());
        // The parent's node, control nodes and driver files; the instance exists only once a claim's Prepare
        // creates it (MigRealiser), which adds its capability nodes.
        d.containerEdits(parent.containerEdits());
        partitions.add(d.build().withCounters(List.of(), List.of(new CounterConsumption(setName, uses))));
      }
    }
    if (partitions.isEmpty()) {
      warn.accept("gpu-" + minor + ": no MIG partitions: the GPU instances that exist (" + existing.size()
          + ", made by others) leave no placement free");
      return Optional.empty();
    }
    return Optional.of(new Published(set, new CounterConsumption(setName, all), partitions));
  }

  /** What a GPU instance of profile {@code i} takes of the counters other than memory slices. */
  private static SortedMap<String, Integer> consumption(GpuInstanceProfile i) {
    SortedMap<String, Integer> out = new TreeMap<>();
    out.put(COMPUTE_SLICES, i.sliceCount());
    out.put("copy-engines", i.copyEngineCount());
    out.put("decoders", i.decoderCount());
    out.put("encoders", i.encoderCount());
    out.put("jpeg-engines", i.jpegCount());
    out.put("ofa-engines", i.ofaCount());
    out.values().removeIf(v -> v <= 0);
    return out;
  }

  static String partitionName(int minor, Profile p, int start) {
    String profile = p.shortName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
    return "gpu-" + minor + "-mig-" + profile + "-" + start;
  }

  private static void max(SortedMap<String, Long> totals, String key, int value) {
    totals.merge(key, Integer.toUnsignedLong(value), Math::max);
  }

  private static void put(SortedMap<String, Quantity> uses, SortedMap<String, Long> totals, String key, int value) {
    if (value > 0 && totals.containsKey(key)) {
      uses.put(key, Quantity.of(value));
    }
  }
}
