package io.nodeatlas.cdi;

/**
 * The rules a CDI spec file must satisfy, one per check of the reference library (shared/reference/cdi.md
 * §3 and §1.2). Every {@link CdiProblem} names the rule it broke, so a user can look it up.
 */
public enum CdiRule {
  /** Not JSON/YAML, an unknown field, or a value of the wrong type (§3.4: strict decoding). */
  PARSE("parse", "§3.4"),
  /** {@code cdiVersion} is not a released version (§1.2 ValidateVersion). */
  VERSION("version", "§1.2"),
  /** {@code cdiVersion} is older than the content needs (§1.2 minimum-version rule). */
  MINIMUM_VERSION("minimum-version", "§1.2"),
  /** Vendor part of {@code kind} (§3.1). */
  VENDOR_NAME("vendor-name", "§3.1"),
  /** Class part of {@code kind} (§3.1). */
  CLASS_NAME("class-name", "§3.1"),
  /** Device name syntax (§3.1). */
  DEVICE_NAME("device-name", "§3.1"),
  /** Annotation keys and total size (§3.2). */
  ANNOTATIONS("annotations", "§3.2"),
  /** {@code KEY=VALUE} with a non-empty key (§3.3). */
  ENV("env", "§3.3"),
  /** Device node path, type and permissions (§3.3). */
  DEVICE_NODE("device-node", "§3.3"),
  /** Hook name and path (§3.3). */
  HOOK("hook", "§3.3"),
  /** Mount host and container paths (§3.3). */
  MOUNT("mount", "§3.3"),
  /** Net device names, no duplicates (§3.3). */
  NET_DEVICE("net-device", "§3.3"),
  /** intelRdt.closID (§3.3). */
  INTEL_RDT("intel-rdt", "§3.3"),
  /** A device needs at least one edit of its own (§3.3). */
  EMPTY_DEVICE_EDITS("empty-device-edits", "§3.3"),
  /** A spec needs at least one device (§3.1). */
  NO_DEVICES("no-devices", "§3.1"),
  /** Device names are unique in a spec (§3.1). */
  DUPLICATE_DEVICE("duplicate-device", "§3.1"),
  /** Two files of the same directory define the same qualified device: runtimes drop it (§3.5). */
  CONFLICT("conflict", "§3.5"),
  /** A file we would write has a name runtimes do not scan, or one that is not a plain file name (§3.4). */
  FILE_NAME("file-name", "§3.4");

  private final String id;
  private final String section;

  CdiRule(String id, String section) {
    this.id = id;
    this.section = section;
  }

  /** Stable identifier printed with each problem, e.g. {@code device-node}. */
  public String id() {
    return id;
  }

  /** Where shared/reference/cdi.md states the rule. */
  public String section() {
    return section;
  }
}
