package io.nodeatlas.discovery.doctor;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.HostFs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads {@link KubeletFacts} from a host: the first process whose program is {@code kubelet}, its
 * {@code --root-dir} and {@code --config} flags, that configuration file and the device manager's
 * checkpoint. Every file is read bounded through {@link HostFs}, so nothing outside the host root is
 * followed; what cannot be read becomes a problem, not an exception.
 */
public final class KubeletFactsReader {

  /** At most this many {@code /proc} entries are looked at. */
  static final int MAX_PROCESSES = 65_536;

  private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build());
  private static final ObjectMapper JSON = new ObjectMapper(new com.fasterxml.jackson.core.JsonFactoryBuilder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build());

  private KubeletFactsReader() {}

  /**
   * The kubelet of {@code fs}; {@code layoutRoot} is where the device manager's checkpoint is looked
   * for when no kubelet process shows its own root.
   */
  public static KubeletFacts read(HostFs fs, String layoutRoot) {
    List<String> problems = new ArrayList<>();
    Optional<String> process = Optional.empty();
    CommandLine cmd = null;
    int seen = 0;
    for (String pid : fs.listNames(fs.procfsRoot())) {
      if (!pid.chars().allMatch(Character::isDigit) || ++seen > MAX_PROCESSES) {
        continue;
      }
      Optional<byte[]> bytes;
      try {
        bytes = fs.readBytes(fs.proc(pid + "/cmdline"));
      } catch (RuntimeException e) {
        continue; // a process that ended or that we may not read
      }
      if (bytes.isEmpty()) {
        continue;
      }
      CommandLine parsed = CommandLine.parse(bytes.get());
      if (parsed.isKubelet()) {
        process = Optional.of("pid " + pid);
        cmd = parsed;
        break;
      }
    }
    Optional<String> rootDir = Optional.empty();
    Optional<String> configFile = Optional.empty();
    Optional<String> reserved = Optional.empty();
    Optional<String> policy = Optional.empty();
    if (cmd != null) {
      rootDir = Optional.of(cmd.flag("root-dir").orElse(KubeletFacts.DEFAULT_ROOT));
      configFile = cmd.flag("config");
      reserved = cmd.flag("reserved-cpus");
      policy = cmd.flag("cpu-manager-policy");
      if (configFile.isPresent()) {
        Optional<JsonNode> config = readTree(fs, configFile.get(), YAML, problems, "the kubelet's config file");
        if (config.isPresent()) {
          if (reserved.isEmpty()) {
            reserved = text(config.get(), "reservedSystemCPUs");
          }
          if (policy.isEmpty()) {
            policy = text(config.get(), "cpuManagerPolicy");
          }
        }
      }
    }
    String root = rootDir.orElse(layoutRoot);
    TreeMap<String, Integer> plugins = new TreeMap<>();
    String checkpoint = root + "/device-plugins/kubelet_internal_checkpoint";
    if (fs.exists(fs.fromHostPath(checkpoint))) {
      readTree(fs, checkpoint, JSON, problems, "the device manager's checkpoint").ifPresent(tree -> {
        JsonNode registered = tree.path("Data").path("RegisteredDevices");
        for (Iterator<Map.Entry<String, JsonNode>> it = registered.fields(); it.hasNext() && plugins.size() < 1024; ) {
          Map.Entry<String, JsonNode> e = it.next();
          plugins.put(Excerpt.scrub(e.getKey()), e.getValue().isArray() ? e.getValue().size() : 0);
        }
      });
    }
    return new KubeletFacts(process, rootDir, configFile, reserved, policy, plugins, problems);
  }

  private static Optional<JsonNode> readTree(HostFs fs, String hostPath, ObjectMapper mapper, List<String> problems,
      String what) {
    try {
      Optional<String> text = fs.readString(fs.fromHostPath(hostPath));
      if (text.isEmpty()) {
        problems.add(what + " " + hostPath + " does not exist");
        return Optional.empty();
      }
      JsonNode tree = mapper.readTree(text.get());
      return tree == null || !tree.isObject() ? Optional.empty() : Optional.of(tree);
    } catch (Exception e) {
      problems.add(what + " " + hostPath + " cannot be read: " + Excerpt.scrub(firstLine(e.getMessage())));
      return Optional.empty();
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  private static Optional<String> text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v != null && v.isValueNode() && !v.asText().isBlank() ? Optional.of(v.asText().trim()) : Optional.empty();
  }

  /** A process's argument vector from {@code /proc/<pid>/cmdline} (NUL-separated). */
  record CommandLine(List<String> args) {

    static CommandLine parse(byte[] raw) {
      List<String> args = new ArrayList<>();
      int start = 0;
      for (int i = 0; i <= raw.length && args.size() < 4096; i++) {
        if (i == raw.length || raw[i] == 0) {
          if (i > start) {
            args.add(new String(raw, start, i - start, StandardCharsets.UTF_8));
          }
          start = i + 1;
        }
      }
      return new CommandLine(args);
    }

    boolean isKubelet() {
      if (args.isEmpty()) {
        return false;
      }
      String program = args.get(0);
      String base = program.substring(program.lastIndexOf('/') + 1);
      return base.equals("kubelet");
    }

    /** {@code --name=value} or {@code --name value}; the last one wins, as Go's flag package does. */
    Optional<String> flag(String name) {
      Optional<String> value = Optional.empty();
      for (int i = 1; i < args.size(); i++) {
        String a = args.get(i);
        if (a.equals("--" + name) && i + 1 < args.size()) {
          value = Optional.of(args.get(++i));
        } else if (a.startsWith("--" + name + "=")) {
          value = Optional.of(a.substring(name.length() + 3));
        }
      }
      return value.map(String::trim).filter(v -> !v.isEmpty());
    }
  }

  /** For tests: the flags of a command line given as bytes. */
  static Optional<String> flagOf(byte[] cmdline, String name) {
    return CommandLine.parse(cmdline).flag(name);
  }
}
