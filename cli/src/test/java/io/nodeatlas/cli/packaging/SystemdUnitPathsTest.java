package io.nodeatlas.cli.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.run.RunCommand;
import io.nodeatlas.cli.testing.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * systemd/nodeatlas.service creates every directory `nodeatlas run` writes by default at each start:
 * after a reboot /run is empty, and on a node whose kubelet has not run yet its directories do not
 * exist, while ProtectSystem=strict keeps the agent from creating them (ReadWritePaths= skips a
 * missing "-" path). .ci/e2e/systemd-unit.sh boots the unit; this reads it.
 */
class SystemdUnitPathsTest {

  static final Pattern DEFAULT = Pattern.compile("default: ([^;)]+)[;)]");

  final List<String> unit = Files.readAllLines(Repo.root().resolve("systemd/nodeatlas.service"));

  SystemdUnitPathsTest() throws IOException {}

  /** The value shown as the default in the help of `run`'s flag. */
  static String defaultOf(String flag) {
    CommandLine run = NodeAtlasCommand.configure(new CommandLine(new RunCommand()), NodeAtlasCommand.installedSources());
    OptionSpec o = run.getCommandSpec().findOption(flag);
    Matcher m = DEFAULT.matcher(String.join(" ", o.description()));
    assertThat(m.find()).as(flag + " shows a default").isTrue();
    return m.group(1).strip();
  }

  private List<String> values(String key) {
    List<String> out = new ArrayList<>();
    unit.stream().filter(l -> l.startsWith(key + "=")).forEach(l -> out.addAll(Arrays.asList(
        l.substring(key.length() + 1).trim().split("\\s+"))));
    return out;
  }

  /** Directories the unit makes: RuntimeDirectory=, StateDirectory=, and mkdir -p in ExecStartPre=+. */
  private List<Path> created() {
    List<Path> out = new ArrayList<>();
    values("RuntimeDirectory").forEach(d -> out.add(Path.of("/run", d)));
    values("StateDirectory").forEach(d -> out.add(Path.of("/var/lib", d)));
    for (String l : unit) {
      if (l.startsWith("ExecStartPre=+") && l.contains("mkdir -p ")) {
        String args = l.substring(l.indexOf("mkdir -p ") + "mkdir -p ".length()).replaceAll("['\"]", "");
        Arrays.stream(args.trim().split("\\s+")).filter(a -> a.startsWith("/")).forEach(a -> out.add(Path.of(a)));
      }
    }
    return out;
  }

  /** /var/run is /run (a link on every systemd distribution). */
  private static Path canonical(String path) {
    Path p = Path.of(path).normalize();
    return p.startsWith("/var/run") ? Path.of("/run").resolve(Path.of("/var/run").relativize(p)) : p;
  }

  @Test
  void theUnitCreatesEveryDirectoryTheAgentWritesByDefault() {
    KubeletPaths kubelet = new KubeletPaths(Path.of(defaultOf("--kubelet-root")), defaultOf("--driver-name"));
    List<Path> written = List.of(canonical(defaultOf("--cdi-root")), canonical(defaultOf("--state-dir")),
        kubelet.registrationSocket().getParent(), kubelet.pluginDir());

    assertThat(created()).as("directories nodeatlas.service creates").containsAll(written);
  }

  @Test
  void theCdiDirectoryOutlivesTheService() {
    // Other tools' specs (nvidia-ctk's) live in /run/cdi too: stopping the agent must not remove it.
    assertThat(values("RuntimeDirectory")).contains("cdi");
    assertThat(values("RuntimeDirectoryPreserve")).containsExactly("yes");
  }

  @Test
  void kubeletDirectoriesGetTheKubeletsMode() {
    // The kubelet makes plugins and plugins_registry 0750 (setupDataDirs); the unit makes them the same way.
    assertThat(unit).filteredOn(l -> l.startsWith("ExecStartPre=+") && l.contains("mkdir"))
        .singleElement().satisfies(l -> assertThat(l).contains("umask 0027"));
  }
}
