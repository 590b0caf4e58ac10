package io.nodeatlas.cdi.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the container runtimes' configuration files from a host, in the order each runtime merges
 * them, and the installed versions from the Debian package database; {@link RuntimeConfigParser} turns
 * them into settings. Every file goes through {@link HostFs}: bounded, and never followed out of the
 * host root. A file that cannot be read or parsed becomes a note on its runtime.
 */
public final class RuntimeConfigReader {

  /** At most this many drop-in or imported files per runtime. */
  static final int MAX_DROP_INS = 64;

  private static final TomlMapper TOML = new TomlMapper();

  private final HostFs fs;

  public RuntimeConfigReader(HostFs fs) {
    this.fs = fs;
  }

  /** containerd, CRI-O and podman, each whether or not it is installed. */
  public List<RuntimeConfig> read() {
    Map<String, String> packages = installedPackages();
    return List.of(containerd(packages), crio(packages), podman(packages));
  }

  private RuntimeConfig containerd(Map<String, String> packages) {
    List<String> notes = new ArrayList<>();
    List<String> files = new ArrayList<>();
    ObjectNode merged = JsonNodeFactory.instance.objectNode();
    String main = "/etc/containerd/config.toml";
    Optional<JsonNode> config = parse(main, notes);
    if (config.isPresent()) {
      files.add(main);
      merge(merged, config.get());
      JsonNode imports = config.get().path("imports");
      for (JsonNode imp : imports) {
        for (String file : expand(imp.asText(""))) {
          if (files.size() > MAX_DROP_INS) {
            break;
          }
          parse(file, notes).ifPresent(tree -> {
            files.add(file);
            merge(merged, tree);
          });
        }
      }
    }
    Optional<String> version = Optional.ofNullable(packages.getOrDefault("containerd", packages.get("containerd.io")));
    boolean installed = version.isPresent()
        || anyExists(main, "/usr/bin/containerd", "/usr/local/bin/containerd", "/usr/sbin/containerd");
    if (installed && config.isEmpty()) {
      notes.add("no " + main + ": containerd runs with its built-in defaults");
    }
    return RuntimeConfigParser.containerd(merged, files, version, installed, notes);
  }

  private RuntimeConfig crio(Map<String, String> packages) {
    List<String> notes = new ArrayList<>();
    List<String> candidates = new ArrayList<>();
    candidates.add("/etc/crio/crio.conf");
    candidates.addAll(dropIns("/etc/crio/crio.conf.d", ".conf"));
    List<String> files = new ArrayList<>();
    ObjectNode merged = mergeAll(candidates, files, notes);
    Optional<String> version = Optional.ofNullable(packages.getOrDefault("cri-o", packages.get("crio")));
    boolean installed = version.isPresent() || !files.isEmpty()
        || anyExists("/etc/crio/crio.conf", "/usr/bin/crio", "/usr/local/bin/crio");
    return RuntimeConfigParser.crio(merged, files, version, installed, notes);
  }

  private RuntimeConfig podman(Map<String, String> packages) {
    List<String> notes = new ArrayList<>();
    List<String> candidates = new ArrayList<>();
    candidates.add("/usr/share/containers/containers.conf");
    candidates.add("/etc/containers/containers.conf");
    candidates.addAll(dropIns("/etc/containers/containers.conf.d", ".conf"));
    List<String> files = new ArrayList<>();
    ObjectNode merged = mergeAll(candidates, files, notes);
    Optional<String> version = Optional.ofNullable(packages.get("podman"));
    boolean installed = version.isPresent() || anyExists("/usr/bin/podman", "/usr/local/bin/podman");
    return RuntimeConfigParser.podman(merged, files, version, installed, notes);
  }

  private ObjectNode mergeAll(List<String> candidates, List<String> files, List<String> notes) {
    ObjectNode merged = JsonNodeFactory.instance.objectNode();
    for (String file : candidates) {
      parse(file, notes).ifPresent(tree -> {
        files.add(file);
        merge(merged, tree);
      });
    }
    return merged;
  }

  /** A host file's TOML; empty when it does not exist or cannot be parsed (with a note). */
  private Optional<JsonNode> parse(String hostPath, List<String> notes) {
    try {
      Optional<String> text = fs.readString(fs.fromHostPath(hostPath));
      if (text.isEmpty()) {
        return Optional.empty();
      }
      JsonNode tree = TOML.readTree(text.get());
      return tree != null && tree.isObject() ? Optional.of(tree) : Optional.empty();
    } catch (Exception e) {
      notes.add("cannot read " + hostPath + ": " + Excerpt.scrub(firstLine(e.getMessage())));
      return Optional.empty();
    }
  }

  /** The {@code *SUFFIX} files of a host directory, sorted by name (the runtimes' drop-in order). */
  private List<String> dropIns(String hostDir, String suffix) {
    List<String> out = new ArrayList<>();
    for (String name : fs.listNames(fs.fromHostPath(hostDir))) {
      if (name.endsWith(suffix) && !name.startsWith(".") && out.size() < MAX_DROP_INS) {
        out.add(hostDir + "/" + name);
      }
    }
    return out;
  }

  /** containerd's {@code imports}: a path, or a glob in its last part ({@code /etc/containerd/conf.d/*.toml}). */
  private List<String> expand(String pattern) {
    if (!pattern.startsWith("/")) {
      return List.of();
    }
    int slash = pattern.lastIndexOf('/');
    String dir = slash == 0 ? "/" : pattern.substring(0, slash);
    String glob = pattern.substring(slash + 1);
    if (!glob.contains("*") && !glob.contains("?") && !glob.contains("[")) {
      return List.of(pattern);
    }
    java.nio.file.PathMatcher matcher = java.nio.file.FileSystems.getDefault().getPathMatcher("glob:" + glob);
    List<String> out = new ArrayList<>();
    for (String name : fs.listNames(fs.fromHostPath(dir))) {
      if (matcher.matches(Path.of(name)) && out.size() < MAX_DROP_INS) {
        out.add((dir.equals("/") ? "" : dir) + "/" + name);
      }
    }
    return out;
  }

  private boolean anyExists(String... hostPaths) {
    for (String p : hostPaths) {
      if (fs.exists(fs.fromHostPath(p))) {
        return true;
      }
    }
    return false;
  }

  /** Package name to version of what dpkg says is installed; empty without a Debian package database. */
  Map<String, String> installedPackages() {
    Map<String, String> out = new HashMap<>();
    Optional<String> status;
    try {
      status = fs.readString(fs.fromHostPath("/var/lib/dpkg/status"));
    } catch (RuntimeException e) {
      return out;
    }
    status.ifPresent(text -> out.putAll(DpkgStatus.installed(text, List.of("containerd", "containerd.io", "cri-o",
        "crio", "podman"))));
    return out;
  }

  /** Later files win: objects merge key by key, anything else is replaced (the runtimes' drop-in rule). */
  static void merge(ObjectNode into, JsonNode from) {
    for (Iterator<Map.Entry<String, JsonNode>> it = from.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode existing = into.get(e.getKey());
      if (existing instanceof ObjectNode target && e.getValue().isObject()) {
        merge(target, e.getValue());
      } else {
        into.set(e.getKey(), e.getValue().deepCopy());
      }
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
