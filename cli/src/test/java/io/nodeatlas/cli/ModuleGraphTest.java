package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.Repo;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.host.SourceSetting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The module graph as the README draws it, checked from the POMs and sources themselves: the command
 * line (picocli) lives only in {@code cli}; the libraries (the discovery API, the sources, cdi-writer,
 * claim-match, the agent) never depend on it; and neither {@code cli} nor {@code agent} names a
 * discovery source's classes or settings, so a source can be added or removed by touching only its
 * own module and {@code cli}'s dependency list.
 */
class ModuleGraphTest {

  static final Path ROOT = Repo.root();

  /** The one module that may hold command-line code. */
  static final String CLI = "cli";

  /** Every other module is a library: the discovery API and sources, and what the commands use. */
  static boolean isLibrary(String module) {
    return module.startsWith("discovery-") || Set.of("cdi-writer", "claim-match", "agent").contains(module);
  }

  record Dependency(String groupId, String artifactId) {
    boolean isCommandLine() {
      return groupId.equals("info.picocli") || (groupId.equals("io.nodeatlas") && artifactId.equals(CLI));
    }
  }

  static List<String> modules() throws Exception {
    List<String> out = new ArrayList<>();
    NodeList nodes = pom(ROOT.resolve("pom.xml")).getElementsByTagName("module");
    for (int i = 0; i < nodes.getLength(); i++) {
      out.add(nodes.item(i).getTextContent().trim());
    }
    return out;
  }

  static Element pom(Path file) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    f.setExpandEntityReferences(false);
    return f.newDocumentBuilder().parse(file.toFile()).getDocumentElement();
  }

  /** The dependencies a POM puts on its class path: those of the project and of its profiles, not managed versions or plugins'. */
  static List<Dependency> dependencies(Path pomFile) throws Exception {
    List<Dependency> out = new ArrayList<>();
    NodeList all = pom(pomFile).getElementsByTagName("dependency");
    for (int i = 0; i < all.getLength(); i++) {
      Element d = (Element) all.item(i);
      Node list = d.getParentNode();
      Node owner = list == null ? null : list.getParentNode();
      if (owner != null && (owner.getNodeName().equals("project") || owner.getNodeName().equals("profile"))) {
        out.add(new Dependency(child(d, "groupId"), child(d, "artifactId")));
      }
    }
    return out;
  }

  private static String child(Element e, String name) {
    NodeList l = e.getElementsByTagName(name);
    return l.getLength() == 0 ? "" : l.item(0).getTextContent().trim();
  }

  @Test
  void everyModuleIsEitherTheCommandLineOrALibrary() throws Exception {
    List<String> modules = modules();
    assertThat(modules).contains(CLI, "discovery-api", "agent", "cdi-writer", "claim-match");
    assertThat(modules).filteredOn(m -> !m.equals(CLI) && !isLibrary(m))
        .as("modules this test does not classify: say in ModuleGraphTest whether each is a library").isEmpty();
  }

  @Test
  void noLibraryDependsOnPicocliOrTheCommandLine() throws Exception {
    List<String> problems = new ArrayList<>();
    for (Dependency d : dependencies(ROOT.resolve("pom.xml"))) {
      if (d.isCommandLine()) {
        problems.add("pom.xml gives every module " + d);
      }
    }
    for (String module : modules()) {
      if (!isLibrary(module)) {
        continue;
      }
      for (Dependency d : dependencies(ROOT.resolve(module).resolve("pom.xml"))) {
        if (d.isCommandLine()) {
          problems.add(module + "/pom.xml depends on " + d.groupId() + ":" + d.artifactId());
        }
      }
    }
    assertThat(problems).as("the command line belongs in the cli module only").isEmpty();
    assertThat(dependencies(ROOT.resolve(CLI).resolve("pom.xml"))).as("the check can see picocli where it is")
        .contains(new Dependency("info.picocli", "picocli"));
  }

  /** What the agent and the command line must not name. */
  record Rules(Set<String> apiPackages, Set<String> sourcePackages, Set<String> settingLiterals) {

    private static final Pattern DISCOVERY_PACKAGE = Pattern.compile("\\bio\\.nodeatlas\\.discovery\\.([a-z][a-z0-9_]*)");

    static Rules fromInstalled(Path discoveryApiSources, List<DiscoverySource> installed) throws IOException {
      Set<String> api = new TreeSet<>();
      try (Stream<Path> dirs = Files.list(discoveryApiSources.resolve("io/nodeatlas/discovery"))) {
        dirs.filter(Files::isDirectory).forEach(d -> api.add(d.getFileName().toString()));
      }
      Set<String> packages = new TreeSet<>();
      Set<String> literals = new TreeSet<>();
      for (DiscoverySource s : installed) {
        packages.add(s.getClass().getPackageName());
        for (SourceSetting setting : s.settings()) {
          literals.add(setting.key());
          literals.add(setting.flag());
          literals.addAll(setting.aliases());
          literals.add(setting.env());
        }
      }
      return new Rules(api, packages, literals);
    }

    /** One line per reference to a source's package or a source setting's key, flag or env name. */
    List<String> violations(String file, String text) {
      List<String> out = new ArrayList<>();
      String[] lines = text.split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        String line = lines[i];
        String where = file + ":" + (i + 1) + ": ";
        Matcher m = DISCOVERY_PACKAGE.matcher(line);
        while (m.find()) {
          if (!apiPackages.contains(m.group(1))) {
            out.add(where + "names io.nodeatlas.discovery." + m.group(1) + ", which is not discovery-api");
          }
        }
        for (String pkg : sourcePackages) {
          if (Pattern.compile("\\b" + Pattern.quote(pkg) + "\\b").matcher(line).find()) {
            out.add(where + "names source package " + pkg);
          }
        }
        for (String literal : settingLiterals) {
          if (Pattern.compile("(?<![A-Za-z0-9_.-])" + Pattern.quote(literal) + "(?![A-Za-z0-9_-])").matcher(line).find()) {
            out.add(where + "names source setting " + literal);
          }
        }
      }
      return out;
    }
  }

  static Rules installedRules() throws IOException {
    List<DiscoverySource> installed = DiscoverySources.load(ModuleGraphTest.class.getClassLoader()).all();
    assertThat(installed).as("the cli module's tests see the installed sources").isNotEmpty();
    return Rules.fromInstalled(ROOT.resolve("discovery-api/src/main/java"), installed);
  }

  @Test
  void theAgentAndTheCommandLineNameNoSourceClassOrSetting() throws IOException {
    Rules rules = installedRules();
    List<String> problems = new ArrayList<>();
    for (String module : List.of("agent", CLI)) {
      Path main = ROOT.resolve(module).resolve("src/main");
      try (Stream<Path> files = Files.walk(main)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
          problems.addAll(rules.violations(ROOT.relativize(f).toString(), Files.readString(f)));
        }
      }
    }
    assertThat(problems).as("sources are found through ServiceLoader and own their settings "
        + "(DiscoverySource.settings()); the command line registers them generically").isEmpty();
  }

  /**
   * What names a device family: its source name, its device types, the attributes and capacities of
   * its catalogue, and the environment variables its sources put into containers (every
   * {@code NODEATLAS_*} text in a family module's main sources).
   */
  record FamilyNames(Set<String> quoted, Set<String> localNames, Set<String> environment) {

    static FamilyNames fromInstalled(List<DiscoverySource> installed) throws Exception {
      Set<String> quoted = new TreeSet<>();
      Set<String> local = new TreeSet<>();
      for (DiscoverySource s : installed) {
        quoted.add(s.name());
        for (io.nodeatlas.discovery.model.AttributeDoc d : s.catalogue()) {
          quoted.add(d.deviceType());
          quoted.add(d.name());
          if (d.name().startsWith(io.nodeatlas.discovery.model.Names.DOMAIN + "/")) {
            local.add(d.name().substring(io.nodeatlas.discovery.model.Names.DOMAIN.length() + 1));
          }
        }
      }
      Set<String> env = new TreeSet<>();
      Pattern literal = Pattern.compile("\"(NODEATLAS_[A-Z0-9_]+)");
      for (String module : modules()) {
        if (!module.startsWith("discovery-") || module.equals("discovery-api")) {
          continue;
        }
        try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main"))) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
            Matcher m = literal.matcher(Files.readString(f));
            while (m.find()) {
              env.add(m.group(1));
            }
          }
        }
      }
      return new FamilyNames(quoted, local, env);
    }

    List<String> violations(String file, String text) {
      List<String> out = new ArrayList<>();
      String[] lines = text.split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        String line = lines[i];
        String where = file + ":" + (i + 1) + ": ";
        for (String q : quoted) {
          if (line.contains("\"" + q + "\"")) {
            out.add(where + "names family name \"" + q + "\"");
          }
        }
        for (String l : localNames) {
          if (line.contains("Names.ours(\"" + l + "\")")) {
            out.add(where + "names family attribute " + l);
          }
        }
        for (String e : environment) {
          if (line.contains(e)) {
            out.add(where + "names family environment variable " + e);
          }
        }
      }
      return out;
    }
  }

  @Test
  void theAgentNamesNoDeviceFamilyItsAttributesOrItsEnvironment() throws Exception {
    FamilyNames names = FamilyNames.fromInstalled(DiscoverySources.load(ModuleGraphTest.class.getClassLoader()).all());
    assertThat(names.quoted()).as("the scan sees the installed families").contains("cpu-numa", "cpu", "nodeatlas.io/cpu");
    assertThat(names.environment()).as("the scan sees the families' environment").contains("NODEATLAS_CPUS");
    assertThat(names.violations("X.java", String.join("\n", "String t = \"cpu\";", "var c = Names.ours(\"cpu\");",
        "e.env(\"NODEATLAS_CPUS=\" + x);", "String ok = \"cpus\";"))).hasSize(4);
    List<String> problems = new ArrayList<>();
    Path main = ROOT.resolve("agent/src/main");
    try (Stream<Path> files = Files.walk(main)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        problems.addAll(names.violations(ROOT.relativize(f).toString(), Files.readString(f)));
      }
    }
    assertThat(problems).as("a device family owns its claim-time placement and container edits "
        + "(DiscoverySource.sharePlacer()); the agent knows shares, locks and the checkpoint, never a family").isEmpty();
  }

  @Test
  void theScanFindsWhatItLooksFor() throws IOException {
    Rules rules = installedRules();
    // Whatever the installed sources declare is looked for: take one of their own settings.
    SourceSetting some = DiscoverySources.load(ModuleGraphTest.class.getClassLoader()).settings().stream()
        .findFirst().orElse(SourceSetting.bool("x", "y", "--x-y", "X_Y", false, "d"));
    Rules withSome = new Rules(rules.apiPackages(), Set.of(),
        new TreeSet<>(List.of(some.key(), some.flag(), some.env())));
    String source = String.join("\n",
        "import io.nodeatlas.discovery.engine.DiscoverySources;",
        "import io.nodeatlas.discovery.gpu.NvmlLoader;",
        "class X { String f = \"" + some.flag() + "\"; String k = \"" + some.key() + "\"; String e = \"" + some.env() + "\"; }",
        "class Y { String ok = \"" + some.flag() + "-not\"; }");

    assertThat(withSome.violations("X.java", source)).containsExactlyInAnyOrder(
        "X.java:2: names io.nodeatlas.discovery.gpu, which is not discovery-api",
        "X.java:3: names source setting " + some.flag(),
        "X.java:3: names source setting " + some.key(),
        "X.java:3: names source setting " + some.env());
    for (String pkg : rules.sourcePackages()) {
      assertThat(rules.violations("Z.java", "import " + pkg + ".Anything;")).as(pkg)
          .anySatisfy(v -> assertThat(v).contains(pkg));
    }
  }
}
