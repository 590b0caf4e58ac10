package io.nodeatlas.cdi.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The CDI and NRI settings of containerd, CRI-O and podman, from their parsed TOML (merged in the
 * runtime's order). Pure: the trees in, the settings out.
 *
 * <ul>
 *   <li>containerd 1.x, config {@code version = 2}: {@code [plugins."io.containerd.grpc.v1.cri"]}
 *       {@code enable_cdi} (off unless set, in 1.7; the key exists since 1.7) and {@code cdi_spec_dirs};
 *       NRI is {@code [plugins."io.containerd.nri.v1.nri"] disable}, true unless set.
 *   <li>containerd 2.x, config {@code version = 3}: {@code [plugins."io.containerd.cri.v1.runtime"]}
 *       {@code enable_cdi} (on unless set) and {@code cdi_spec_dirs}; NRI on unless disabled.
 *   <li>CRI-O: {@code [crio.runtime] cdi_spec_dirs} (CDI always on); NRI {@code [crio.nri] enable_nri}.
 *   <li>podman: {@code containers.conf} {@code [engine] cdi_spec_dirs}.
 * </ul>
 */
public final class RuntimeConfigParser {

  static final String CRI_V2 = "io.containerd.grpc.v1.cri";
  static final String CRI_V3 = "io.containerd.cri.v1.runtime";
  static final String NRI = "io.containerd.nri.v1.nri";

  private RuntimeConfigParser() {}

  /** containerd's settings; {@code packageVersion} decides the defaults of a version 2 configuration. */
  public static RuntimeConfig containerd(JsonNode config, List<String> files, Optional<String> packageVersion,
      boolean installed, List<String> notes) {
    List<String> out = new ArrayList<>(notes);
    // 0: no file, containerd's built-in defaults; 1: a file without a version (containerd 1.4 or older).
    int version = config.has("version") ? config.path("version").asInt(1) : files.isEmpty() ? 0 : 1;
    JsonNode plugins = config.path("plugins");
    Optional<Boolean> cdi;
    List<String> dirs;
    Optional<Boolean> nri;
    Optional<Integer> major = packageVersion.flatMap(RuntimeConfigParser::major);
    if (version >= 3) {
      JsonNode cri = plugins.path(CRI_V3);
      cdi = Optional.of(bool(cri, "enable_cdi").orElse(true));
      dirs = dirs(cri.path("cdi_spec_dirs"), out, "cdi_spec_dirs");
      nri = Optional.of(!bool(plugins.path(NRI), "disable").orElse(false));
    } else if (version == 2 || version == 0) {
      JsonNode cri = plugins.path(CRI_V2);
      Optional<Boolean> set = bool(cri, "enable_cdi");
      if (set.isPresent()) {
        cdi = set;
      } else if (major.isPresent()) {
        cdi = Optional.of(major.get() >= 2);
        out.add("enable_cdi is not set: containerd " + packageVersion.get() + (major.get() >= 2 ? " turns CDI on" : " leaves CDI off"));
      } else {
        cdi = Optional.empty();
        out.add("enable_cdi is not set: containerd 1.7 leaves CDI off, 2.x turns it on, and the version is unknown");
      }
      dirs = dirs(cri.path("cdi_spec_dirs"), out, "cdi_spec_dirs");
      Optional<Boolean> disable = bool(plugins.path(NRI), "disable");
      nri = disable.map(d -> !d).or(() -> major.map(m -> m >= 2));
    } else {
      cdi = Optional.of(false);
      dirs = List.of();
      nri = Optional.of(false);
      out.add("configuration version " + version + " is containerd 1.4's or older, which has no CDI");
    }
    if (major.isPresent() && major.get() == 1 && packageVersion.flatMap(RuntimeConfigParser::minor).orElse(7) < 7) {
      cdi = Optional.of(false);
      out.add("containerd " + packageVersion.get() + " is older than 1.7, the first with CDI");
    }
    boolean v3 = version >= 3 || (version == 0 && major.filter(m -> m >= 2).isPresent());
    String section = (v3 ? "[plugins.\"" + CRI_V3 + "\"]" : "[plugins.\"" + CRI_V2 + "\"]") + " in /etc/containerd/config.toml";
    return new RuntimeConfig("containerd", installed, files, packageVersion, cdi, dirs, nri, out, section);
  }

  public static RuntimeConfig crio(JsonNode config, List<String> files, Optional<String> packageVersion,
      boolean installed, List<String> notes) {
    List<String> out = new ArrayList<>(notes);
    JsonNode crio = config.path("crio");
    List<String> dirs = dirs(crio.path("runtime").path("cdi_spec_dirs"), out, "cdi_spec_dirs");
    Optional<Boolean> nri = bool(crio.path("nri"), "enable_nri");
    return new RuntimeConfig("cri-o", installed, files, packageVersion, Optional.of(true), dirs, nri, out,
        "[crio.runtime] in a file of /etc/crio/crio.conf.d/");
  }

  public static RuntimeConfig podman(JsonNode config, List<String> files, Optional<String> packageVersion,
      boolean installed, List<String> notes) {
    List<String> out = new ArrayList<>(notes);
    List<String> dirs = dirs(config.path("engine").path("cdi_spec_dirs"), out, "cdi_spec_dirs");
    return new RuntimeConfig("podman", installed, files, packageVersion, Optional.of(true), dirs, Optional.empty(), out,
        "[engine] in /etc/containers/containers.conf");
  }

  private static Optional<Boolean> bool(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v != null && v.isBoolean() ? Optional.of(v.booleanValue()) : Optional.empty();
  }

  /** The listed directories, or the default two when the key is absent. */
  private static List<String> dirs(JsonNode node, List<String> notes, String key) {
    if (node.isMissingNode() || node.isNull()) {
      return RuntimeConfig.DEFAULT_SPEC_DIRS;
    }
    List<String> dirs = new ArrayList<>();
    if (!node.isArray()) {
      notes.add(key + " is not a list of directories");
      return dirs;
    }
    for (JsonNode d : node) {
      if (d.isTextual() && d.asText().startsWith("/") && dirs.size() < 64) {
        dirs.add(d.asText());
      }
    }
    return dirs;
  }

  static Optional<Integer> major(String version) {
    return number(version, 0);
  }

  static Optional<Integer> minor(String version) {
    return number(version, 1);
  }

  /** A dotted version's part ({@code 1.7.24~ds1-1} → 1, 7), skipping a Debian epoch ({@code 1:}). */
  private static Optional<Integer> number(String version, int part) {
    String v = version.contains(":") ? version.substring(version.indexOf(':') + 1) : version;
    String[] parts = v.split("[.~+-]");
    if (parts.length <= part || !parts[part].matches("[0-9]{1,6}")) {
      return Optional.empty();
    }
    return Optional.of(Integer.parseInt(parts[part]));
  }
}
