package io.nodeatlas.cdi;

import io.nodeatlas.cdi.spec.CdiContainerEdits;
import io.nodeatlas.cdi.spec.CdiDevice;
import io.nodeatlas.cdi.spec.CdiNames;
import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.CdiVersion;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.model.Device;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The transient CDI spec of one prepared ResourceClaim, for the DRA {@code NodePrepareResources} answer
 * (kubelet DRA plugin API {@code Device.cdi_device_ids}, KEP-4381): kind {@code <vendor>/<class>} (default
 * {@code nodeatlas.io/claim}), file {@code <vendor>-<class>_<claimUID>.json} (the library's
 * GenerateTransientSpecName convention), meant for {@code /var/run/cdi}. Each allocated device becomes
 * the CDI device {@code <claimUID>-<device name>}, so two claims never define the same qualified name
 * (which would make the runtime drop both). Devices without container edits get no CDI device
 * and no id.
 *
 * <p>Stable public API (used by the agent): {@link #ClaimCdiSpecs()}, {@link #ClaimCdiSpecs(String, String,
 * SpecFormat)}, {@link #forClaim(String, List)}, {@link #fileName(String)}, {@link #ownership()}.
 * Write the file with {@link CdiSpecWriter#write} before answering the kubelet, and remove it with
 * {@link CdiSpecWriter#remove} on unprepare. Immutable and thread-safe.
 */
public final class ClaimCdiSpecs {

  public static final String DEFAULT_CLASS = "claim";

  private final String vendor;
  private final String deviceClass;
  private final SpecFormat format;

  public ClaimCdiSpecs() {
    this(CdiSpecGenerator.DEFAULT_VENDOR, DEFAULT_CLASS, SpecFormat.JSON);
  }

  public ClaimCdiSpecs(String vendor, String deviceClass, SpecFormat format) {
    CdiNames.checkVendor(vendor).or(() -> CdiNames.checkClass(deviceClass)).ifPresent(m -> {
      throw new IllegalArgumentException(m);
    });
    this.vendor = vendor;
    this.deviceClass = deviceClass;
    this.format = format;
  }

  /**
   * A claim's spec and ids. {@code file} is empty when no allocated device has container edits (then
   * nothing is written and the kubelet gets no ids). {@code cdiDeviceIds} maps each allocated device's
   * name to its fully qualified CDI ids (one, or none for a device without edits).
   */
  public record ClaimSpec(String claimUid, Optional<CdiSpecFile> file, SortedMap<String, List<String>> cdiDeviceIds) {
    public ClaimSpec {
      cdiDeviceIds = Collections.unmodifiableSortedMap(new TreeMap<>(cdiDeviceIds));
    }

    /** All ids of the claim, in device name order. */
    public List<String> allCdiDeviceIds() {
      return cdiDeviceIds.values().stream().flatMap(List::stream).toList();
    }
  }

  /** The spec for {@code claimUid} with the allocated {@code devices}; a device listed twice counts once. */
  public ClaimSpec forClaim(String claimUid, List<Device> devices) {
    return forClaim(claimUid, devices, List.of());
  }

  /**
   * As {@link #forClaim(String, List)}, with {@code extra} CDI devices of the caller's own in the same
   * spec (the claim's device metadata mounts, KEP-5304), so a claim has one spec file. Their names must
   * not be one a device gets ({@code <uid>-<device name>}); their ids are {@link #kind()}{@code =<name>}.
   */
  public ClaimSpec forClaim(String claimUid, List<Device> devices, List<CdiDevice> extra) {
    requireUid(claimUid);
    String kind = kind();
    SortedMap<String, CdiDevice> cdiDevices = new TreeMap<>();
    SortedMap<String, List<String>> ids = new TreeMap<>();
    for (Device d : devices) {
      if (ids.containsKey(d.name())) {
        continue;
      }
      if (d.containerEdits().isEmpty()) {
        ids.put(d.name(), List.of());
        continue;
      }
      String name = cdiDeviceName(claimUid, d.name());
      CdiContainerEdits edits = CdiEditsMapper.toCdi(d.containerEdits());
      cdiDevices.put(name, new CdiDevice(name, edits));
      ids.put(d.name(), List.of(kind + "=" + name));
    }
    for (CdiDevice e : extra) {
      if (cdiDevices.putIfAbsent(e.name(), e) != null) {
        throw new IllegalArgumentException("CDI device " + e.name() + " of claim " + claimUid + " is defined twice");
      }
    }
    if (cdiDevices.isEmpty()) {
      return new ClaimSpec(claimUid, Optional.empty(), ids);
    }
    CdiSpec draft = new CdiSpec(CdiVersion.EARLIEST.text(), kind, null, new ArrayList<>(cdiDevices.values()), null);
    CdiSpec spec = draft.withCdiVersion(CdiVersion.minimumRequired(draft).text());
    return new ClaimSpec(claimUid, Optional.of(new CdiSpecFile(fileName(claimUid), spec, format)), ids);
  }

  /** The spec's kind, {@code <vendor>/<class>}: a CDI id is {@code <kind>=<device name>}. */
  public String kind() {
    return vendor + "/" + deviceClass;
  }

  /** {@code <vendor>-<class>_<uid>.json}. */
  public String fileName(String claimUid) {
    requireUid(claimUid);
    return vendor + "-" + deviceClass + "_" + claimUid + format.extension();
  }

  /** The CDI device name of {@code deviceName} in claim {@code claimUid}. */
  public static String cdiDeviceName(String claimUid, String deviceName) {
    return claimUid + "-" + deviceName;
  }

  /** The per-claim files: {@code <vendor>-<class>_*}. */
  public SpecOwnership ownership() {
    return new SpecOwnership(vendor, vendor + "-" + deviceClass + "_", null);
  }

  private static void requireUid(String claimUid) {
    if (claimUid == null || !validUid(claimUid)) {
      throw new IllegalArgumentException("claim UID \"" + claimUid + "\" cannot name a CDI device or file");
    }
  }

  /**
   * Kubernetes UIDs are RFC 4122 text; anything else must at least be a valid CDI name fragment:
   * {@code [A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?}. Checked by hand, as each Prepare and Unprepare asks
   * several times and a regular expression's matcher is garbage each time.
   */
  static boolean validUid(String uid) {
    int n = uid.length();
    if (n == 0 || !alnum(uid.charAt(0)) || !alnum(uid.charAt(n - 1))) {
      return false;
    }
    for (int i = 1; i < n - 1; i++) {
      char c = uid.charAt(i);
      if (!alnum(c) && c != '_' && c != '.' && c != '-') {
        return false;
      }
    }
    return true;
  }

  private static boolean alnum(char c) {
    return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9';
  }
}
