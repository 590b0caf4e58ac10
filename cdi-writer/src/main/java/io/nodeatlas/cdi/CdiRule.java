package io.nodeatlas.cdi;

/**
 * The rules a CDI spec file must satisfy, one per check of the reference library
 * ({@code tags.cncf.io/container-device-interface}: {@code pkg/cdi}, {@code specs-go}; CDI spec v1.1.0).
 * Every {@link CdiProblem} names the rule it broke, so a user can look it up.
 */
public enum CdiRule {
  /** Not UTF-8 JSON/YAML, an unknown field, or a value of the wrong type (strict decoding). */
  PARSE("parse"),
  /** The file is beyond one of the reader's bounds (size, nesting, devices, list entries, annotations...). */
  LIMIT("limit"),
  /** {@code cdiVersion} is not a released version (ValidateVersion). */
  VERSION("version"),
  /** {@code cdiVersion} is older than the content needs (minimum-version rule). */
  MINIMUM_VERSION("minimum-version"),
  /** Vendor part of {@code kind}. */
  VENDOR_NAME("vendor-name"),
  /** Class part of {@code kind}. */
  CLASS_NAME("class-name"),
  /** Device name syntax. */
  DEVICE_NAME("device-name"),
  /** Annotation keys and total size. */
  ANNOTATIONS("annotations"),
  /** {@code KEY=VALUE} with a non-empty key. */
  ENV("env"),
  /** Device node path, type and permissions. */
  DEVICE_NODE("device-node"),
  /** Hook name and path. */
  HOOK("hook"),
  /** Mount host and container paths. */
  MOUNT("mount"),
  /**
   * Paths handed to the kernel and the runtime: no NUL byte, absolute where the OCI runtime spec wants a
   * full path (device nodes, hook programs, mount destinations), no {@code ..} segment in device and mount paths.
   */
  PATH("path"),
  /** Net device names, no duplicates. */
  NET_DEVICE("net-device"),
  /** intelRdt.closID. */
  INTEL_RDT("intel-rdt"),
  /** A device needs at least one edit of its own. */
  EMPTY_DEVICE_EDITS("empty-device-edits"),
  /** A spec needs at least one device. */
  NO_DEVICES("no-devices"),
  /** Device names are unique in a spec. */
  DUPLICATE_DEVICE("duplicate-device"),
  /** Two files of the same directory define the same qualified device: runtimes drop it. */
  CONFLICT("conflict"),
  /** A file we would write has a name runtimes do not scan, or one that is not a plain file name. */
  FILE_NAME("file-name");

  private final String id;

  CdiRule(String id) {
    this.id = id;
  }

  /** Stable identifier printed with each problem, e.g. {@code device-node}. */
  public String id() {
    return id;
  }
}
