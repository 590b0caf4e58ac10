package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot path ({@code --version} and plain {@code discover} lines without picocli) prints what the
 * picocli command prints for the same arguments, byte for byte, with the same exit status; and it
 * leaves every line it is not sure of to picocli rather than judging it.
 */
class HotPathTest {

  @TempDir Path root;

  @BeforeEach
  void smallHost() {
    FixtureTree.at(root)
        .value("proc/sys/kernel/hostname", "fixture-node")
        .value("proc/sys/kernel/osrelease", "6.8.0-test")
        .value("sys/devices/system/cpu/online", "0-1")
        .value("sys/devices/system/cpu/possible", "0-1")
        .value("sys/devices/system/cpu/present", "0-1")
        .value("sys/devices/system/cpu/cpu0/topology/physical_package_id", 0)
        .value("sys/devices/system/cpu/cpu0/topology/core_id", 0)
        .value("sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0")
        .value("sys/devices/system/cpu/cpu1/topology/physical_package_id", 0)
        .value("sys/devices/system/cpu/cpu1/topology/core_id", 1)
        .value("sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1")
        .value("sys/devices/system/node/online", "0")
        .value("sys/devices/system/node/node0/cpulist", "0-1")
        .value("sys/devices/system/node/node0/distance", "10")
        .file("proc/meminfo", "MemTotal: 1024 kB\n");
  }

  /** The hot path's run of {@code args} with {@code env}, or null when it hands them to picocli. */
  private static Result hot(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    OptionalInt status = new HotPath(env, NodeAtlasCommand::installedSources)
        .run(args, () -> new PrintWriter(out), () -> new PrintWriter(err));
    return status.isPresent() ? new Result(status.getAsInt(), out.toString(), err.toString()) : null;
  }

  private static void assertSameAsPicocli(String... args) {
    Result hot = hot(System.getenv(), args);
    assertThat(hot).as("the hot path takes " + List.of(args)).isNotNull();
    Result picocli = NodeAtlasRun.run(args);
    assertThat(hot).as(List.of(args).toString()).isEqualTo(picocli);
  }

  @Test
  void versionIsPicoclisVersionLine() {
    assertSameAsPicocli("--version");
    assertSameAsPicocli("-V");
    assertThat(hot(Map.of(), "--version").out()).startsWith("nodeatlas ");
  }

  @Test
  void topLevelHelpIsTheWholeTreesHelp() {
    assertSameAsPicocli("--help");
    assertSameAsPicocli("-h");
    assertThat(hot(Map.of("NO_COLOR", "1"), "--help")).isEqualTo(NodeAtlasRun.run("--help"));
    assertThat(hot(Map.of("CLICOLOR", "0"), "--help")).isEqualTo(NodeAtlasRun.run("--help"));
    // Colours forced on: picocli's help with ANSI on (TopLevelHelpTest pins that text to picocli's).
    Result colour = hot(Map.of("CLICOLOR_FORCE", "1"), "--help");
    assertThat(colour.status()).isZero();
    assertThat(colour.out()).contains("\u001b[").isEqualTo(TopLevelHelp.text(true));
  }

  @Test
  void plainDiscoverLinesPrintWhatPicocliPrints() {
    String r = root.toString();
    List<String[]> lines = new ArrayList<>(List.of(
        new String[] {"discover", "--host-root", r, "--sources", "cpu-numa"},
        new String[] {"discover", "--host-root=" + r, "--sources=cpu-numa", "-o", "table"},
        new String[] {"discover", "--sources", "cpu-numa", "--format", "YAML", "--host-root", r},
        new String[] {"discover", "--sources", "cpu-numa", "--output", "table", "--host-root", r},
        new String[] {"discover", "--host-root", r, "--sysfs-root", root.resolve("sys").toString(),
            "--procfs-root", root.resolve("proc").toString(), "--dev-root", r},
        new String[] {"discover", "--host-root", r, "--sources", "all,-gpu", "--include-virtual-nics",
            "--rdma-mad-devices=false", "--reserved-cpus", "1", "--cpu-devices", "numa"},
        // Usage errors found after parsing: the same message and status 2.
        new String[] {"discover", "--host-root", r, "--sources", "nosuch"},
        new String[] {"discover", "--host-root", root.resolve("missing").toString()},
        new String[] {"discover", "--host-root", r, "--reserved-cpus", "7-9"},
        new String[] {"discover", "--host-root", r, "--cpu-devices", "bogus"},
        new String[] {"discover", "--host-root", r, "--include-virtual-nics=maybe"}));
    for (String[] line : lines) {
      assertSameAsPicocli(line);
    }
  }

  @Test
  void envTwinsAreReadLikePicoclisDefaults() {
    Result hot = hot(Map.of("NODEATLAS_HOST_ROOT", root.toString(), "NODEATLAS_SOURCES", "cpu-numa",
        "NODEATLAS_FORMAT", "table"), "discover");
    Result picocli = NodeAtlasRun.run("discover", "--host-root", root.toString(), "--sources", "cpu-numa", "-o", "table");
    assertThat(hot).isEqualTo(picocli);
    // A bad value from an env twin names the env variable, as picocli's line does.
    Result bad = hot(Map.of("NODEATLAS_INCLUDE_VIRTUAL_NICS", "maybe"), "discover", "--host-root", root.toString());
    Result flag = NodeAtlasRun.run("discover", "--host-root", root.toString(), "--include-virtual-nics=maybe");
    assertThat(bad.status()).isEqualTo(2).isEqualTo(flag.status());
    assertThat(bad.err()).isEqualTo(flag.err().replace("\n", " (from env NODEATLAS_INCLUDE_VIRTUAL_NICS)\n"));
  }

  @Test
  void aConfigFileLeavesTheLineToPicocliAndAnEnvErrorNamesTheVariable() {
    String r = root.toString();
    // The config file may set any option: only picocli's command reads it.
    assertThat(hot(Map.of("NODEATLAS_CONFIG", "/x.yaml"), "discover", "--host-root", r)).isNull();
    StringWriter out = new StringWriter();
    assertThat(new HotPath(Map.of(), NodeAtlasCommand::installedSources, () -> true)
        .run(new String[] {"discover", "--host-root", r}, () -> new PrintWriter(out), () -> new PrintWriter(out)))
        .isEmpty();
    Path missing = root.resolve("missing");
    Result env = hot(Map.of("NODEATLAS_HOST_ROOT", missing.toString()), "discover");
    assertThat(env.status()).isEqualTo(2);
    assertThat(env.err()).isEqualTo("nodeatlas: NODEATLAS_HOST_ROOT=" + missing + " (environment) is not a directory\n");
    Result sources = hot(Map.of("NODEATLAS_SOURCES", "nosuch"), "discover", "--host-root", r);
    assertThat(sources.err()).contains("unknown source 'nosuch'").endsWith("(NODEATLAS_SOURCES=nosuch (environment))\n");
  }

  @Test
  void everyLineItIsNotSureOfIsLeftToPicocli() {
    String r = root.toString();
    List<String[]> lines = List.of(
        new String[] {},
        new String[] {"--help", "discover"},
        new String[] {"-h", "-V"},
        new String[] {"help"},
        new String[] {"--version", "x"},
        new String[] {"discover", "--help"},
        new String[] {"discover", "-h"},
        new String[] {"discover", "--host-root", r, "--host-root", r},
        new String[] {"discover", "--host-root"},
        new String[] {"discover", "--sources", "-gpu"},
        new String[] {"discover", "--sources="},
        new String[] {"discover", "-ojson"},
        new String[] {"discover", "-o=json"},
        new String[] {"discover", "-o", "xml"},
        new String[] {"discover", "--bogus"},
        new String[] {"discover", "positional"},
        new String[] {"discover", "--", "x"},
        new String[] {"discover", "@args.txt"},
        new String[] {"discover", "--include-virtual-nics", "true"},
        new String[] {"cdi", "list"},
        new String[] {"discover", "--config", "x.yaml"},
        new String[] {"match"});
    for (String[] line : lines) {
      assertThat(hot(Map.of(), line)).as(List.of(line).toString()).isNull();
    }
    assertThat(hot(Map.of("NODEATLAS_SOURCES", ""), "discover")).as("empty env twin").isNull();
    assertThat(hot(Map.of("NODEATLAS_FORMAT", "xml"), "discover")).as("unknown format from env").isNull();
  }
}
