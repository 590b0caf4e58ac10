package io.nodeatlas.cdi.spec;

import java.util.Optional;

/**
 * The released CDI spec versions and the rule that says which one a spec's content needs
 * (the CDI reference library's specs-go/version.go at v1.1.0). A spec should declare the minimum its
 * content needs: every runtime whose library knows that version can then read it (podman 4.3.1 stops at
 * 0.5.0, containerd 1.7.0–1.7.12 too).
 */
public enum CdiVersion {
  V0_1_0("0.1.0"),
  V0_2_0("0.2.0"),
  V0_3_0("0.3.0"),
  V0_4_0("0.4.0"),
  V0_5_0("0.5.0"),
  V0_6_0("0.6.0"),
  V0_7_0("0.7.0"),
  V0_8_0("0.8.0"),
  V1_0_0("1.0.0"),
  V1_1_0("1.1.0");

  /** The oldest version the rule ever answers ("vEarliest"). */
  public static final CdiVersion EARLIEST = V0_3_0;

  /** The newest released version (specs.CurrentVersion). */
  public static final CdiVersion CURRENT = V1_1_0;

  private final String text;

  CdiVersion(String text) {
    this.text = text;
  }

  /** The version as written in {@code cdiVersion}, e.g. {@code 0.5.0}. */
  public String text() {
    return text;
  }

  @Override
  public String toString() {
    return text;
  }

  public boolean isOlderThan(CdiVersion other) {
    return compareTo(other) < 0;
  }

  /**
   * A declared version: one of the released ones, with a leading {@code v} allowed as the library
   * strips it. Anything else ({@code 0.3}, {@code 1.2.0}) is empty, i.e. "invalid version".
   */
  public static Optional<CdiVersion> parse(String declared) {
    if (declared == null) {
      return Optional.empty();
    }
    String plain = declared.startsWith("v") ? declared.substring(1) : declared;
    for (CdiVersion v : values()) {
      if (v.text.equals(plain)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  /** The minimum version and the first content feature (newest first) that forces it. */
  public record Requirement(CdiVersion version, String reason) {}

  /** The minimum version {@code spec}'s content requires (specs-go/version.go), newest rule first. */
  public static CdiVersion minimumRequired(CdiSpec spec) {
    return requirement(spec).version();
  }

  /** Like {@link #minimumRequired} but also says why, for error messages. */
  public static Requirement requirement(CdiSpec spec) {
    for (CdiDevice d : spec.devices()) {
      Optional<String> r = needs110(d.containerEdits());
      if (r.isPresent()) {
        return new Requirement(V1_1_0, "device " + d.name() + ": " + r.get());
      }
    }
    Optional<String> top = needs110(spec.containerEdits());
    if (top.isPresent()) {
      return new Requirement(V1_1_0, top.get());
    }
    for (CdiDevice d : spec.devices()) {
      Optional<String> r = needs070(d.containerEdits());
      if (r.isPresent()) {
        return new Requirement(V0_7_0, "device " + d.name() + ": " + r.get());
      }
    }
    top = needs070(spec.containerEdits());
    if (top.isPresent()) {
      return new Requirement(V0_7_0, top.get());
    }
    if (!spec.annotations().isEmpty()) {
      return new Requirement(V0_6_0, "spec annotations");
    }
    for (CdiDevice d : spec.devices()) {
      if (!d.annotations().isEmpty()) {
        return new Requirement(V0_6_0, "device " + d.name() + ": annotations");
      }
    }
    if (spec.deviceClass().contains(".")) {
      return new Requirement(V0_6_0, "a '.' in the class of kind " + spec.kind());
    }
    for (CdiDevice d : spec.devices()) {
      if (!d.name().isEmpty() && d.name().charAt(0) >= '0' && d.name().charAt(0) <= '9') {
        return new Requirement(V0_5_0, "device name " + d.name() + " starts with a digit");
      }
    }
    for (CdiDevice d : spec.devices()) {
      Optional<String> r = needs050(d.containerEdits());
      if (r.isPresent()) {
        return new Requirement(V0_5_0, "device " + d.name() + ": " + r.get());
      }
    }
    top = needs050(spec.containerEdits());
    if (top.isPresent()) {
      return new Requirement(V0_5_0, top.get());
    }
    for (CdiDevice d : spec.devices()) {
      Optional<String> r = needs040(d.containerEdits());
      if (r.isPresent()) {
        return new Requirement(V0_4_0, "device " + d.name() + ": " + r.get());
      }
    }
    top = needs040(spec.containerEdits());
    if (top.isPresent()) {
      return new Requirement(V0_4_0, top.get());
    }
    return new Requirement(EARLIEST, "baseline");
  }

  private static Optional<String> needs110(CdiContainerEdits e) {
    if (!e.netDevices().isEmpty()) {
      return Optional.of("netDevices");
    }
    if (e.intelRdt() != null && e.intelRdt().schemata() != null) {
      return Optional.of("intelRdt.schemata");
    }
    if (e.intelRdt() != null && Boolean.TRUE.equals(e.intelRdt().enableMonitoring())) {
      return Optional.of("intelRdt.enableMonitoring");
    }
    return Optional.empty();
  }

  private static Optional<String> needs070(CdiContainerEdits e) {
    if (e.intelRdt() != null) {
      return Optional.of("intelRdt");
    }
    if (!e.additionalGids().isEmpty()) {
      return Optional.of("additionalGids");
    }
    return Optional.empty();
  }

  private static Optional<String> needs050(CdiContainerEdits e) {
    return e.deviceNodes().stream().filter(n -> n.hostPath() != null).findFirst()
        .map(n -> "hostPath of device node " + n.path());
  }

  private static Optional<String> needs040(CdiContainerEdits e) {
    return e.mounts().stream().filter(m -> m.type() != null).findFirst()
        .map(m -> "type of mount " + m.containerPath());
  }
}
