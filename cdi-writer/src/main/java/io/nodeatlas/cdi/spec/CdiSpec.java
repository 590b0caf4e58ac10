package io.nodeatlas.cdi.spec;

import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One CDI spec file's content (CDI spec v1.1.0, {@code specs-go/config.go} {@code Spec}): {@code cdiVersion}, {@code kind}
 * ({@code vendor/class}), optional annotations, the devices and optional spec-wide edits.
 *
 * <p>The record holds whatever a file said, valid or not, so that {@code cdi validate} can report on
 * any vendor's file; {@link io.nodeatlas.cdi.CdiValidator} decides validity. Absent and empty are the
 * same thing here, as in the Go types' {@code omitempty}: annotations are never null, edits never null.
 */
public record CdiSpec(
    String cdiVersion,
    String kind,
    SortedMap<String, String> annotations,
    List<CdiDevice> devices,
    CdiContainerEdits containerEdits) {

  public CdiSpec {
    cdiVersion = cdiVersion == null ? "" : cdiVersion;
    kind = kind == null ? "" : kind;
    annotations = annotations == null ? Collections.emptySortedMap()
        : Collections.unmodifiableSortedMap(new TreeMap<>(annotations));
    devices = devices == null ? List.of() : List.copyOf(devices);
    containerEdits = containerEdits == null ? CdiContainerEdits.EMPTY : containerEdits;
  }

  /** The part of {@code kind} before the first {@code /} (empty when there is none), as parser.ParseQualifier splits it. */
  public String vendor() {
    return CdiNames.vendorOf(kind);
  }

  /** The part of {@code kind} after the first {@code /} (empty when there is none). */
  public String deviceClass() {
    return CdiNames.classOf(kind);
  }

  /** The fully qualified name {@code vendor/class=name} of one of this spec's devices. */
  public String qualifiedName(String deviceName) {
    return kind + "=" + deviceName;
  }

  public Optional<CdiDevice> device(String name) {
    return devices.stream().filter(d -> d.name().equals(name)).findFirst();
  }

  /** The same spec declaring another version. */
  public CdiSpec withCdiVersion(String version) {
    return new CdiSpec(version, kind, annotations, devices, containerEdits);
  }
}
