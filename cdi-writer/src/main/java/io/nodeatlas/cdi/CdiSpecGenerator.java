package io.nodeatlas.cdi;

import io.nodeatlas.cdi.spec.CdiContainerEdits;
import io.nodeatlas.cdi.spec.CdiDevice;
import io.nodeatlas.cdi.spec.CdiNames;
import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.CdiVersion;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The static CDI specs of a node: one spec per device class, kind {@code <vendor>/<class>} where the
 * class is the device's {@code nodeatlas.io/type} attribute ({@code gpu}, {@code mig}, {@code rdma},
 * {@code nic}, {@code vf}, {@code cpu}, {@code hugepages}, …), file {@code <vendor>-<class>.json}
 * (the CDI library's {@code GenerateSpecName} convention). CDI device names are the discovered device
 * names. Devices without a type or without container edits get no CDI device (CDI spec: a device
 * needs at least one container edit of its own).
 *
 * <p>A class also gets a device {@code all}, the union of its devices' edits (the convention of
 * {@code nvidia-ctk cdi generate}), when {@link #offersAllDevice every device of the class} is a whole,
 * exclusive device that a container reaches through device nodes; see there for why.
 *
 * <p>{@code cdiVersion} is the minimum the spec's content needs (CDI spec: each field names the version
 * that introduced it), so the oldest runtimes that can read it do; {@link Builder#cdiVersion} may raise
 * it but a request below the minimum is an error, never a silently broken file.
 *
 * <p>Stable public API (used by the agent): {@link #builder()}, {@link #generate(NodeReport)},
 * {@link #generate(List)}, {@link #fileName(String)}, {@link #ownership()}. Immutable and thread-safe.
 */
public final class CdiSpecGenerator {

  /** Our CDI vendor is our domain, as for every name we publish. */
  public static final String DEFAULT_VENDOR = Names.DOMAIN;
  public static final String ALL_DEVICE = "all";

  private final String vendor;
  private final CdiVersion atLeast;
  private final SpecFormat format;
  private final boolean ownerAnnotation;

  private CdiSpecGenerator(Builder b) {
    this.vendor = b.vendor;
    this.atLeast = b.atLeast;
    this.format = b.format;
    this.ownerAnnotation = b.ownerAnnotation;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Generator settings. */
  public static final class Builder {
    private String vendor = DEFAULT_VENDOR;
    private CdiVersion atLeast;
    private SpecFormat format = SpecFormat.JSON;
    private boolean ownerAnnotation;

    private Builder() {}

    /** The vendor part of every kind; a lower-case DNS name (default {@code nodeatlas.io}). */
    public Builder vendor(String vendor) {
      CdiNames.checkVendor(vendor).ifPresent(m -> {
        throw new IllegalArgumentException(m);
      });
      this.vendor = vendor;
      return this;
    }

    /** Declare at least this version (null: just the minimum the content needs). */
    public Builder cdiVersion(CdiVersion atLeast) {
      this.atLeast = atLeast;
      return this;
    }

    public Builder format(SpecFormat format) {
      this.format = format;
      return this;
    }

    /** Add the {@link SpecOwnership#OWNER_ANNOTATION} annotation; this raises every spec to 0.6.0. */
    public Builder ownerAnnotation(boolean ownerAnnotation) {
      this.ownerAnnotation = ownerAnnotation;
      return this;
    }

    public CdiSpecGenerator build() {
      return new CdiSpecGenerator(this);
    }
  }

  /** A device that got no CDI device, and why. */
  public record Skipped(String device, String reason) {}

  /** The specs (sorted by file name) and the devices left out. */
  public record Result(List<CdiSpecFile> specs, List<Skipped> skipped) {
    public Result {
      specs = List.copyOf(specs);
      skipped = List.copyOf(skipped);
    }
  }

  public Result generate(NodeReport report) {
    return generate(report.devices());
  }

  /**
   * One spec per class present among {@code devices}. Throws {@link IllegalArgumentException} when the
   * requested version is below what a spec's content needs.
   */
  public Result generate(List<Device> devices) {
    SortedMap<String, SortedMap<String, CdiContainerEdits>> byClass = new TreeMap<>();
    Map<String, Boolean> allDevice = new TreeMap<>();
    List<Skipped> skipped = new ArrayList<>();
    for (Device d : devices) {
      Optional<String> type = d.type();
      if (type.isEmpty()) {
        skipped.add(new Skipped(d.name(), "no " + Device.TYPE + " attribute"));
        continue;
      }
      Optional<String> badClass = CdiNames.checkClass(type.get());
      if (badClass.isPresent()) {
        skipped.add(new Skipped(d.name(), badClass.get()));
        continue;
      }
      if (d.containerEdits().isEmpty()) {
        skipped.add(new Skipped(d.name(), "no container edits"));
        continue;
      }
      SortedMap<String, CdiContainerEdits> inClass = byClass.computeIfAbsent(type.get(), k -> new TreeMap<>());
      if (inClass.putIfAbsent(d.name(), CdiEditsMapper.toCdi(d.containerEdits())) != null) {
        skipped.add(new Skipped(d.name(), "a device of that name is already in class " + type.get()));
      } else {
        allDevice.merge(type.get(), offersAllDevice(d), Boolean::logicalAnd);
      }
    }
    List<CdiSpecFile> specs = new ArrayList<>();
    for (Map.Entry<String, SortedMap<String, CdiContainerEdits>> e : byClass.entrySet()) {
      String deviceClass = e.getKey();
      SortedMap<String, CdiContainerEdits> edits = new TreeMap<>(e.getValue());
      if (allDevice.get(deviceClass)) {
        if (edits.containsKey(ALL_DEVICE)) {
          skipped.add(new Skipped(ALL_DEVICE, "class " + deviceClass + " has a discovered device named all; no merged device"));
        } else {
          edits.put(ALL_DEVICE, CdiEditsMapper.union(List.copyOf(e.getValue().values())));
        }
      }
      List<CdiDevice> cdiDevices = new ArrayList<>();
      edits.forEach((name, ce) -> cdiDevices.add(new CdiDevice(name, ce)));
      specs.add(spec(deviceClass, cdiDevices));
    }
    return new Result(specs, skipped);
  }

  /**
   * Whether {@code device} may be part of its class's {@code all} device; the class gets one when all
   * its devices may. {@code all} hands a container every device of the class at once, which is right
   * only for whole devices reached through device nodes, like GPUs or RDMA devices:
   * <ul>
   *   <li>the device is exclusive: a device that allows multiple allocations ({@code resource.k8s.io/v1}
   *       {@code Device.allowMultipleAllocations}, KEP-5075) is handed out in shares, and {@code all}
   *       would give one container every share, past the scheduler's accounting;</li>
   *   <li>it has at least one device node: access to device nodes is what {@code all} unites. A device
   *       that is only env vars and mounts (a hugetlbfs mount per page size) has none, and the union
   *       keeps one value per env var and container path, so it would stand for one device, not all;</li>
   *   <li>it has no {@code netDevices} (CDI spec v1.1.0): an interface moves into one container's network
   *       namespace, so {@code all} would take every interface of the class away from the host.</li>
   * </ul>
   */
  static boolean offersAllDevice(Device device) {
    return !device.allowMultipleAllocations()
        && !device.containerEdits().deviceNodes().isEmpty()
        && device.containerEdits().netDevices().isEmpty();
  }

  /** A spec of this generator's vendor and format around the given devices, at its version. */
  CdiSpecFile spec(String deviceClass, List<CdiDevice> devices) {
    SortedMap<String, String> annotations = new TreeMap<>();
    if (ownerAnnotation) {
      annotations.put(SpecOwnership.OWNER_ANNOTATION, SpecOwnership.OWNER);
    }
    String kind = vendor + "/" + deviceClass;
    CdiSpec draft = new CdiSpec(CdiVersion.EARLIEST.text(), kind, annotations, devices, null);
    return new CdiSpecFile(fileName(deviceClass), draft.withCdiVersion(version(draft).text()), format);
  }

  /** The version to declare for {@code spec}: its minimum, raised to the requested one. */
  CdiVersion version(CdiSpec spec) {
    CdiVersion.Requirement needed = CdiVersion.requirement(spec);
    if (atLeast == null) {
      return needed.version();
    }
    if (atLeast.isOlderThan(needed.version())) {
      throw new IllegalArgumentException("cdiVersion " + atLeast + " is too old for " + spec.kind() + ": its content needs "
          + needed.version() + " (" + needed.reason() + ")");
    }
    return atLeast;
  }

  /** {@code <vendor>-<class>.json} or {@code .yaml}. */
  public String fileName(String deviceClass) {
    return vendor + "-" + deviceClass + format.extension();
  }

  /** The files this generator's specs own: {@code <vendor>-*}, but not the per-claim {@code <vendor>-claim_*}. */
  public SpecOwnership ownership() {
    return new SpecOwnership(vendor, vendor + "-", vendor + "-" + ClaimCdiSpecs.DEFAULT_CLASS + "_");
  }

  public String vendor() {
    return vendor;
  }

  public SpecFormat format() {
    return format;
  }
}
