package io.nodeatlas.cdi;

import io.nodeatlas.cdi.spec.CdiContainerEdits;
import io.nodeatlas.cdi.spec.CdiDevice;
import io.nodeatlas.cdi.spec.CdiNames;
import io.nodeatlas.cdi.spec.CdiParseException;
import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.CdiSpecCodec;
import io.nodeatlas.cdi.spec.CdiVersion;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.files.BoundedText;
import io.nodeatlas.discovery.model.Names;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Checks CDI spec files the way the reference library does when a runtime loads them
 * (CDI spec v1.1.0, with the library's error messages), but reports every problem instead of the first.
 *
 * <p>Stable public API (used by the agent):
 * <ul>
 *   <li>{@link #validate(CdiSpec, String)}: the content rules for one spec (version, names, annotations,
 *       edits, devices);</li>
 *   <li>{@link #validateFile(Path)}: reads, parses and validates one file;</li>
 *   <li>{@link #validateDirectory(Path)}: every {@code *.json}/{@code *.yaml} file of a directory (not
 *       recursive, as runtimes scan) plus conflicts between them;</li>
 *   <li>{@link #scan(List)}: loads CDI directories in priority order (later wins, like
 *       {@code /etc/cdi} then {@code /var/run/cdi}) into the devices a runtime could resolve;</li>
 *   <li>{@link #conflicts(Path, Map)}: which devices of the given would-be files other files of a
 *       directory already define.</li>
 * </ul>
 * An empty list means valid. Instances are immutable and thread-safe.
 */
public final class CdiValidator {

  private static final Set<String> HOOK_NAMES =
      Set.of("prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop");
  private static final Set<String> NODE_TYPES = Set.of("b", "c", "u", "p");
  /** k8s TotalAnnotationSizeLimitB, applied by internal/validation. */
  private static final int ANNOTATIONS_MAX_BYTES = 256 * 1024;
  private static final Pattern QUALIFIED_NAME_PART = Pattern.compile("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$");
  /** Spec files larger than this are refused rather than read (a runtime would choke on them too). */
  public static final long MAX_FILE_BYTES = 16L << 20;
  /**
   * Problems reported per spec; the rest are counted in one last problem. A hostile file within the
   * parser's bounds could otherwise make hundreds of thousands of messages.
   */
  public static final int MAX_PROBLEMS_PER_SPEC = 1_000;

  private final CdiSpecCodec codec;

  public CdiValidator() {
    this(new CdiSpecCodec());
  }

  public CdiValidator(CdiSpecCodec codec) {
    this.codec = codec;
  }

  // ---- one spec --------------------------------------------------------------------------------

  /** Every content problem of {@code spec}; {@code file} is only used to label the problems. */
  public List<CdiProblem> validate(CdiSpec spec, String file) {
    Problems out = new Problems(file);
    Optional<CdiVersion> declared = CdiVersion.parse(spec.cdiVersion());
    if (declared.isEmpty()) {
      out.add(new CdiProblem(file, null, CdiRule.VERSION, "invalid version " + CdiNames.quote(spec.cdiVersion())));
    } else {
      CdiVersion.Requirement needed = CdiVersion.requirement(spec);
      if (declared.get().isOlderThan(needed.version())) {
        out.add(new CdiProblem(file, null, CdiRule.MINIMUM_VERSION,
            "the spec version must be at least v" + needed.version() + " (" + needed.reason() + ")"));
      }
    }
    String vendor = spec.vendor();
    String deviceClass = spec.deviceClass();
    CdiNames.checkVendor(vendor).ifPresent(m -> out.add(new CdiProblem(file, null, CdiRule.VENDOR_NAME, m)));
    if (!vendor.isEmpty()) {
      // A kind without "vendor/class" shape is one problem (reported on the vendor), not two.
      CdiNames.checkClass(deviceClass).ifPresent(m -> out.add(new CdiProblem(file, null, CdiRule.CLASS_NAME, m)));
    }
    annotations(spec.kind(), spec.annotations(), file, null, out);
    edits(spec.containerEdits(), file, null, out);

    Set<String> seen = new HashSet<>();
    for (CdiDevice d : spec.devices()) {
      String name = d.name();
      if (!seen.add(name)) {
        out.add(new CdiProblem(file, name, CdiRule.DUPLICATE_DEVICE, "invalid spec, multiple device " + CdiNames.quote(name)));
        continue;
      }
      CdiNames.checkDeviceName(name).ifPresent(m -> out.add(new CdiProblem(file, name, CdiRule.DEVICE_NAME, m)));
      annotations(spec.kind() + "=" + name, d.annotations(), file, name, out);
      if (d.containerEdits().isEmpty()) {
        out.add(new CdiProblem(file, name, CdiRule.EMPTY_DEVICE_EDITS, "invalid device, empty device edits"));
      }
      edits(d.containerEdits(), file, name, out);
    }
    if (spec.devices().isEmpty()) {
      out.add(new CdiProblem(file, null, CdiRule.NO_DEVICES, "invalid spec, no devices"));
    }
    return out.done();
  }

  /** The problems of one spec, keeping the first {@link #MAX_PROBLEMS_PER_SPEC} and counting the rest. */
  private static final class Problems extends ArrayList<CdiProblem> {
    private static final long serialVersionUID = 1L;
    private final String file;
    private long dropped;

    Problems(String file) {
      this.file = file;
    }

    @Override
    public boolean add(CdiProblem p) {
      if (size() < MAX_PROBLEMS_PER_SPEC) {
        return super.add(p);
      }
      dropped++;
      return false;
    }

    List<CdiProblem> done() {
      List<CdiProblem> out = new ArrayList<>(this);
      if (dropped > 0) {
        out.add(new CdiProblem(file, null, CdiRule.LIMIT, dropped + " more problems not listed (at most "
            + MAX_PROBLEMS_PER_SPEC + " are listed per spec)"));
      }
      return out;
    }
  }

  private static void edits(CdiContainerEdits e, String file, String device, List<CdiProblem> out) {
    for (int i = 0; i < e.env().size(); i++) {
      String v = e.env().get(i);
      if (v.indexOf('=') <= 0) {
        out.add(new CdiProblem(file, device, CdiRule.ENV,
            "invalid container edits: invalid environment variable " + CdiNames.quote(v)));
      } else {
        envCharacters("containerEdits.env[" + i + "]", v, file, device, out);
      }
    }
    for (int i = 0; i < e.deviceNodes().size(); i++) {
      CdiContainerEdits.DeviceNode n = e.deviceNodes().get(i);
      if (n.path().isEmpty()) {
        out.add(new CdiProblem(file, device, CdiRule.DEVICE_NODE, "invalid (empty) device path"));
        continue;
      }
      String field = "containerEdits.deviceNodes[" + i + "]";
      // OCI runtime spec (config-linux.md, devices): path is the "full path to device inside container".
      containerPath(field + ".path", n.path(), true, file, device, out);
      if (n.hostPath() != null && !n.hostPath().isEmpty()) {
        // The runtime stats hostPath on the host when the container is created (CDI spec v1.1.0, deviceNodes).
        containerPath(field + ".hostPath", n.hostPath(), true, file, device, out);
      }
      if (n.type() != null && !NODE_TYPES.contains(n.type())) {
        out.add(new CdiProblem(file, device, CdiRule.DEVICE_NODE,
            "device " + CdiNames.quote(n.path()) + ": invalid type " + CdiNames.quote(n.type())));
      }
      // v1.1.0 accepts only r, w, m; "none" exists on the library's main branch only and every released
      // runtime refuses it, so it is refused here too.
      if (n.permissions() != null && !n.permissions().chars().allMatch(c -> c == 'r' || c == 'w' || c == 'm')) {
        out.add(new CdiProblem(file, device, CdiRule.DEVICE_NODE,
            "device " + CdiNames.quote(n.path()) + ": invalid permissions " + CdiNames.quote(n.permissions())));
      }
    }
    for (int i = 0; i < e.hooks().size(); i++) {
      CdiContainerEdits.Hook h = e.hooks().get(i);
      String field = "containerEdits.hooks[" + i + "]";
      if (!HOOK_NAMES.contains(h.hookName())) {
        out.add(new CdiProblem(file, device, CdiRule.HOOK, "invalid hook name " + CdiNames.quote(h.hookName())));
      } else if (h.path().isEmpty()) {
        out.add(new CdiProblem(file, device, CdiRule.HOOK, "invalid hook " + CdiNames.quote(h.hookName()) + " with empty path"));
      } else {
        // OCI runtime spec (config.md, POSIX-platform hooks): the hook path "MUST be absolute".
        containerPath(field + ".path", h.path(), false, file, device, out);
      }
      for (int j = 0; j < h.env().size(); j++) {
        String v = h.env().get(j);
        if (v.indexOf('=') <= 0) {
          out.add(new CdiProblem(file, device, CdiRule.ENV, "invalid hook " + CdiNames.quote(h.hookName())
              + ": invalid environment variable " + CdiNames.quote(v)));
        } else {
          envCharacters(field + ".env[" + j + "]", v, file, device, out);
        }
      }
    }
    for (int i = 0; i < e.mounts().size(); i++) {
      CdiContainerEdits.Mount m = e.mounts().get(i);
      String field = "containerEdits.mounts[" + i + "]";
      if (m.hostPath().isEmpty()) {
        out.add(new CdiProblem(file, device, CdiRule.MOUNT, "invalid mount, empty host path"));
      } else if (m.containerPath().isEmpty()) {
        out.add(new CdiProblem(file, device, CdiRule.MOUNT, "invalid mount, empty container path"));
      } else {
        // hostPath may be a file system's source name ("tmpfs", "nodev") rather than a path: NUL only.
        if (m.hostPath().indexOf('\0') >= 0) {
          out.add(pathProblem(file, device, field + ".hostPath", m.hostPath(), "contains a NUL byte"));
        }
        // OCI runtime spec (config.md, mounts): destination "SHOULD be an absolute path"; relative ones
        // are deprecated and read relative to "/", so they are refused here.
        containerPath(field + ".containerPath", m.containerPath(), true, file, device, out);
      }
    }
    if (e.intelRdt() != null && e.intelRdt().closID() != null) {
      String c = e.intelRdt().closID();
      if (!c.equals("/") && (c.length() >= 4096 || c.equals(".") || c.equals("..") || c.contains("/") || c.contains("\n"))) {
        out.add(new CdiProblem(file, device, CdiRule.INTEL_RDT, "invalid ClosID"));
      }
    }
    Map<String, String> hostSeen = new HashMap<>();
    Map<String, String> nameSeen = new HashMap<>();
    for (CdiContainerEdits.NetDevice n : e.netDevices()) {
      if (n.hostInterfaceName().isEmpty()) {
        out.add(new CdiProblem(file, device, CdiRule.NET_DEVICE, "invalid linux net device, empty HostInterfaceName"));
        continue;
      }
      if (n.name().isEmpty()) {
        out.add(new CdiProblem(file, device, CdiRule.NET_DEVICE, "invalid linux net device, empty Name"));
        continue;
      }
      String other = hostSeen.putIfAbsent(n.hostInterfaceName(), n.name());
      if (other != null) {
        out.add(new CdiProblem(file, device, CdiRule.NET_DEVICE, "invalid linux net device, duplicate HostInterfaceName "
            + CdiNames.quote(n.hostInterfaceName()) + " with names " + CdiNames.quote(n.name()) + " and " + CdiNames.quote(other)));
        continue;
      }
      other = nameSeen.putIfAbsent(n.name(), n.hostInterfaceName());
      if (other != null) {
        out.add(new CdiProblem(file, device, CdiRule.NET_DEVICE, "invalid linux net device, duplicate Name "
            + CdiNames.quote(n.name()) + " with HostInterfaceName " + CdiNames.quote(n.hostInterfaceName()) + " and " + CdiNames.quote(other)));
      }
    }
  }

  /**
   * A path handed to the kernel: no NUL byte (execve(2) and open(2) take C strings, so the path would be
   * cut short), absolute, and, where {@code noDotDot}, without {@code ..} segments (a device or mount path
   * that climbs out of where it names is either a mistake or an attempt to reach another file).
   */
  private static void containerPath(String field, String path, boolean noDotDot, String file, String device,
      List<CdiProblem> out) {
    if (path.indexOf('\0') >= 0) {
      out.add(pathProblem(file, device, field, path, "contains a NUL byte"));
    } else if (!path.startsWith("/")) {
      out.add(pathProblem(file, device, field, path, "is not an absolute path"));
    } else if (noDotDot && (path.equals("/..") || path.contains("/../") || path.endsWith("/.."))) {
      out.add(pathProblem(file, device, field, path, "has a \"..\" segment"));
    }
  }

  private static CdiProblem pathProblem(String file, String device, String field, String path, String why) {
    return new CdiProblem(file, device, CdiRule.PATH, field + " " + CdiNames.quote(path) + " " + why);
  }

  /**
   * {@code KEY=VALUE} reaches execve(2) as a C string, and a runtime writes it into the OCI config and
   * logs: a NUL or any other control character in the key, and any control character but tab in the
   * value, is refused (POSIX XBD 8.1: names are portable characters; CDI spec v1.1.0 env is "KEY=VALUE").
   */
  private static void envCharacters(String field, String entry, String file, String device, List<CdiProblem> out) {
    int eq = entry.indexOf('=');
    for (int i = 0; i < entry.length(); i++) {
      char c = entry.charAt(i);
      boolean control = c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f);
      if (control && (i < eq || c != '\t')) {
        out.add(new CdiProblem(file, device, CdiRule.ENV, field + " " + CdiNames.quote(entry) + ": "
            + (i < eq ? "the name" : "the value") + " has the control character "
            + String.format("U+%04X", (int) c) + " at character " + (i + 1)));
        return;
      }
    }
  }

  /**
   * The rule internal/validation intends (k8s ObjectMeta annotations): each key a qualified name, checked
   * lower-cased, and at most 256 KiB of keys and values. Released libraries skip it by accident;
   * we apply it so that our files pass a fixed library too.
   */
  private static void annotations(String owner, SortedMap<String, String> annotations, String file, String device,
      List<CdiProblem> out) {
    long size = 0;
    for (Map.Entry<String, String> a : annotations.entrySet()) {
      size += a.getKey().getBytes(StandardCharsets.UTF_8).length + a.getValue().getBytes(StandardCharsets.UTF_8).length;
      qualifiedNameProblem(a.getKey().toLowerCase(Locale.ROOT)).ifPresent(m -> out.add(new CdiProblem(file, device,
          CdiRule.ANNOTATIONS, owner + ".annotations." + a.getKey() + " is invalid: " + m)));
    }
    if (size > ANNOTATIONS_MAX_BYTES) {
      out.add(new CdiProblem(file, device, CdiRule.ANNOTATIONS, owner + ".annotations is too long: annotations size "
          + size + " is larger than limit " + ANNOTATIONS_MAX_BYTES));
    }
  }

  private static Optional<String> qualifiedNameProblem(String key) {
    String[] parts = key.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      name = parts[1];
      if (prefix.isEmpty()) {
        return Optional.of("prefix part must be non-empty");
      }
      if (!Names.isDnsSubdomain(prefix)) {
        return Optional.of("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            + "characters, '-' or '.', and must start and end with an alphanumeric character");
      }
    } else {
      return Optional.of("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
          + "and end with an alphanumeric character with an optional DNS subdomain prefix and '/'");
    }
    if (name.isEmpty()) {
      return Optional.of("name part must be non-empty");
    }
    if (name.length() > 63) {
      return Optional.of("name part must be no more than 63 characters");
    }
    if (!QUALIFIED_NAME_PART.matcher(name).matches()) {
      return Optional.of("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
          + "end with an alphanumeric character");
    }
    return Optional.empty();
  }

  // ---- files and directories -------------------------------------------------------------------

  /** A file read and parsed, or the reason it could not be: exactly one of {@code spec} and {@code problem} is set. */
  public record LoadedFile(Path path, CdiSpec spec, CdiProblem problem) {}

  /** Reads and parses one file; never throws for bad content or an unreadable file. */
  public LoadedFile load(Path file) {
    String label = file.toString();
    try {
      if (!Files.isRegularFile(file)) {
        return new LoadedFile(file, null, new CdiProblem(label, null, CdiRule.PARSE, "not a regular file"));
      }
      String text;
      try {
        // At most MAX_FILE_BYTES, counted while reading; strict UTF-8 with the offset of a bad byte.
        text = BoundedText.read(file, MAX_FILE_BYTES);
      } catch (BoundedText.TextException e) {
        return new LoadedFile(file, null, new CdiProblem(label, null,
            e.getMessage().startsWith("not UTF-8") ? CdiRule.PARSE : CdiRule.LIMIT, e.getMessage()));
      }
      return new LoadedFile(file, codec.read(text), null);
    } catch (CdiParseException e) {
      CdiRule rule = e.getMessage().contains("(the limit") || e.getMessage().contains("than the limit")
          ? CdiRule.LIMIT : CdiRule.PARSE;
      return new LoadedFile(file, null, new CdiProblem(label, null, rule, e.getMessage()));
    } catch (IOException | RuntimeException e) {
      return new LoadedFile(file, null, new CdiProblem(label, null, CdiRule.PARSE, "cannot read: " + e));
    }
  }

  /** Parse and content problems of one file, whatever its name. */
  public List<CdiProblem> validateFile(Path file) {
    LoadedFile loaded = load(file);
    return loaded.problem() != null ? List.of(loaded.problem()) : validate(loaded.spec(), file.toString());
  }

  /** The files of a directory a runtime scans: regular files ending exactly in .json or .yaml, sorted by name. */
  public static List<Path> specFiles(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        if (SpecFormat.ofFileName(name).isPresent() && Files.isRegularFile(p)) {
          out.add(p);
        }
      }
    }
    out.sort(null);
    return out;
  }

  /** Every problem of every spec file in {@code dir}, plus conflicts between its valid files. */
  public List<CdiProblem> validateDirectory(Path dir) throws IOException {
    return scan(List.of(dir)).problems();
  }

  /**
   * What a runtime would make of these CDI directories, given in increasing priority: the devices it
   * could resolve (qualified name → defining file) and the problems it would log. Invalid files are
   * skipped whole; a device defined twice in one directory is dropped (both definitions); a later
   * directory overrides an earlier one.
   */
  public record Scan(SortedMap<String, Path> devices, List<CdiProblem> problems, Map<Path, CdiSpec> validSpecs) {}

  public Scan scan(List<Path> dirs) throws IOException {
    List<CdiProblem> problems = new ArrayList<>();
    Map<Path, CdiSpec> valid = new LinkedHashMap<>();
    SortedMap<String, Path> devices = new TreeMap<>();
    for (Path dir : dirs) {
      Map<Path, CdiSpec> inDir = new LinkedHashMap<>();
      for (Path file : specFiles(dir)) {
        LoadedFile loaded = load(file);
        if (loaded.problem() != null) {
          problems.add(loaded.problem());
          continue;
        }
        List<CdiProblem> content = validate(loaded.spec(), file.toString());
        if (content.isEmpty()) {
          inDir.put(file, loaded.spec());
        } else {
          problems.addAll(content);
        }
      }
      Map<String, List<Path>> definers = definers(inDir);
      for (Map.Entry<String, List<Path>> e : definers.entrySet()) {
        if (e.getValue().size() > 1) {
          problems.add(conflict(e.getKey(), e.getValue()));
          devices.remove(e.getKey());
        } else {
          devices.put(e.getKey(), e.getValue().get(0));
        }
      }
      valid.putAll(inDir);
    }
    return new Scan(devices, problems, valid);
  }

  /**
   * The devices of {@code candidates} (file name → spec) that other valid spec files of {@code dir}
   * already define, plus duplicates among the candidates. Files whose names are candidates are ignored
   * (they are about to be replaced), and so are the names in {@code ignored} (about to be removed).
   */
  public List<CdiProblem> conflicts(Path dir, Map<String, CdiSpec> candidates, Set<String> ignored) throws IOException {
    return conflicts(dir, candidates, ignored, new SpecFileIndex());
  }

  /**
   * {@link #conflicts(Path, Map, Set)} reading the other files through {@code index}, which re-reads
   * only the files that changed since its last scan (used by {@link CdiSpecWriter}).
   */
  List<CdiProblem> conflicts(Path dir, Map<String, CdiSpec> candidates, Set<String> ignored, SpecFileIndex index)
      throws IOException {
    // Only names the candidates define can conflict, so collect those first and look up the others' names in it.
    // A hash map: qualified names share long prefixes (vendor/class=<claim UID>-), which makes every
    // comparison of a sorted map walk them; the conflicts found are sorted below.
    Map<String, List<Path>> definers = new HashMap<>();
    candidates.forEach((name, spec) -> {
      Set<String> once = new HashSet<>();
      Path file = dir.resolve(name);
      for (CdiDevice d : spec.devices()) {
        String qualified = spec.qualifiedName(d.name());
        if (once.add(qualified)) {
          definers.computeIfAbsent(qualified, k -> new ArrayList<>()).add(file);
        }
      }
    });
    Set<String> skip = new HashSet<>(ignored);
    skip.addAll(candidates.keySet());
    Map<String, List<Path>> others = index.definers(dir, skip, definers.keySet(), file -> {
      LoadedFile loaded = load(file);
      // A runtime ignores an invalid file entirely, so its devices cannot conflict.
      return loaded.spec() != null && validate(loaded.spec(), file.getFileName().toString()).isEmpty()
          ? Optional.of(loaded.spec()) : Optional.empty();
    });
    others.forEach((qualified, files) -> definers.get(qualified).addAll(files));
    SortedMap<String, List<Path>> conflicting = new TreeMap<>();
    definers.forEach((qualified, files) -> {
      if (files.size() > 1) {
        conflicting.put(qualified, files);
      }
    });
    List<CdiProblem> out = new ArrayList<>();
    conflicting.forEach((qualified, files) -> out.add(conflict(qualified, files)));
    return out;
  }

  /** Same as {@link #conflicts(Path, Map, Set)} with nothing ignored. */
  public List<CdiProblem> conflicts(Path dir, Map<String, CdiSpec> candidates) throws IOException {
    return conflicts(dir, candidates, Set.of());
  }

  private static Map<String, List<Path>> definers(Map<Path, CdiSpec> specs) {
    Map<String, List<Path>> out = new TreeMap<>();
    specs.forEach((file, spec) -> {
      Set<String> once = new HashSet<>();
      for (CdiDevice d : spec.devices()) {
        String qualified = spec.qualifiedName(d.name());
        if (once.add(qualified)) {
          out.computeIfAbsent(qualified, k -> new ArrayList<>()).add(file);
        }
      }
    });
    return out;
  }

  private static CdiProblem conflict(String qualified, List<Path> files) {
    List<Path> sorted = files.stream().sorted().toList();
    StringBuilder names = new StringBuilder();
    for (Path f : sorted) {
      names.append(names.length() == 0 ? "" : ", ").append(CdiNames.quote(f.toString()));
    }
    String device = qualified.substring(qualified.indexOf('=') + 1);
    return new CdiProblem(sorted.get(0).toString(), device, CdiRule.CONFLICT,
        "conflicting device " + CdiNames.quote(qualified) + " (specs " + names + ")");
  }
}
