package io.nodeatlas.cli;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static io.nodeatlas.cli.testing.NodeAtlasRun.runProcess;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.cli.testing.EchoSource;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.host.SourceSetting;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The settings of whatever sources are installed become flags, env twins and help lines of the
 * commands that read the host. Proven with {@link EchoSource}, a source only these tests know, so
 * nothing here depends on what the real sources declare.
 */
class SourceSettingsTest {

  static final DiscoverySources ECHO = DiscoverySources.of(List.of(new EchoSource()));

  @TempDir Path root;

  private Device echoDevice(Result r) {
    assertThat(r.status()).as(r.err()).isZero();
    NodeReport report = new NodeReportCodec().fromJson(r.out());
    return report.devices().stream().filter(d -> d.name().equals("echo-0")).findFirst().orElseThrow();
  }

  private static AttributeValue attr(Device d, String name) {
    return d.attribute(Names.ours(name)).orElseThrow(() -> new AssertionError(d + " has no " + name));
  }

  @Test
  void everyCommandThatReadsTheHostShowsTheSettingsWithEnvAndDefault() {
    for (List<String> command : List.of(List.of("discover"), List.of("cdi", "generate"), List.of("match"), List.of("run"))) {
      String[] args = java.util.stream.Stream.concat(command.stream(), java.util.stream.Stream.of("--help"))
          .toArray(String[]::new);
      Result r = run(ECHO, args);
      assertThat(r.status()).as(command + r.err()).isZero();
      String help = r.out().replaceAll("\\s+", " ");
      assertThat(help).as(command.toString())
          .contains("--echo-text, --echo-words=TEXT What the echo device says (default: hello; env "
              + "NODEATLAS_TEST_ECHO_TEXT; source echo).")
          .contains("--echo-loud[=true|false] Whether it shouts (default: false; env NODEATLAS_TEST_ECHO_LOUD; source echo).")
          .contains("--echo-count=N How often it says it (default: 1; env NODEATLAS_TEST_ECHO_COUNT; source echo).")
          // No default declared: none shown; a declared % stays literal.
          .contains("--echo-dir=PATH Where it listens, 100% of the time (env NODEATLAS_TEST_ECHO_DIR; source echo).")
          // --sources lists what is installed, here only echo.
          .contains("Sources to run: all, or a comma list of echo;")
          .doesNotContain("cpu-numa").doesNotContain("nvml");
    }
    Result list = run(ECHO, "cdi", "list", "--help");
    assertThat(list.status()).isZero();
    assertThat(list.out()).as("cdi list does not read the host").doesNotContain("--echo-text").doesNotContain("--sources");
  }

  @Test
  void declaredDefaultsApplyWhenNothingIsGiven() {
    Device echo = echoDevice(run(ECHO, "discover", "--host-root", root.toString()));
    assertThat(attr(echo, "text")).isEqualTo(AttributeValue.string("hello"));
    assertThat(attr(echo, "loud")).isEqualTo(AttributeValue.of(false));
    assertThat(attr(echo, "count")).isEqualTo(AttributeValue.of(1));
    assertThat(attr(echo, "dir")).isEqualTo(AttributeValue.string("-"));
  }

  @Test
  void flagsAndAliasesReachTheSourceUnderItsKey() {
    Device echo = echoDevice(run(ECHO, "discover", "--host-root", root.toString(), "--echo-words", "hi there",
        "--echo-loud", "--echo-count", "3", "--echo-dir", "/srv/echo"));
    assertThat(attr(echo, "text")).isEqualTo(AttributeValue.string("hi there"));
    assertThat(attr(echo, "loud")).isEqualTo(AttributeValue.of(true));
    assertThat(attr(echo, "count")).isEqualTo(AttributeValue.of(3));
    assertThat(attr(echo, "dir")).isEqualTo(AttributeValue.string("/srv/echo"));

    Device quiet = echoDevice(run(ECHO, "discover", "--host-root", root.toString(), "--echo-loud=false", "--echo-text=x"));
    assertThat(attr(quiet, "loud")).isEqualTo(AttributeValue.of(false));
    assertThat(attr(quiet, "text")).isEqualTo(AttributeValue.string("x"));
  }

  @Test
  void aValueTheSettingRefusesIsBadUsageNamingTheFlag() {
    Result count = run(ECHO, "discover", "--host-root", root.toString(), "--echo-count", "many");
    assertThat(count.status()).isEqualTo(2);
    assertThat(count.err()).isEqualTo("nodeatlas: --echo-count must be a whole number, got \"many\"\n");
    assertThat(count.out()).isEmpty();

    Result loud = run(ECHO, "discover", "--host-root", root.toString(), "--echo-loud=very");
    assertThat(loud.status()).isEqualTo(2);
    assertThat(loud.err()).contains("--echo-loud must be true or false, got \"very\"");
  }

  @Test
  void aSettingWhoseFlagACommandAlreadyHasIsRefusedNamingTheSource() {
    DiscoverySource clash = new DiscoverySource() {
      @Override
      public String name() {
        return "clash";
      }

      @Override
      public List<SourceSetting> settings() {
        return List.of(SourceSetting.bool("clash", "format", "--host-root", "NODEATLAS_TEST_CLASH", false, "Clashes."));
      }

      @Override
      public DiscoveryResult discover(HostContext host) {
        return DiscoveryResult.empty();
      }
    };
    assertThatThrownBy(() -> NodeAtlasCommand.commandLine(DiscoverySources.of(List.of(clash))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("source clash declares setting clash.format with flag --host-root");
  }

  @Test
  void theEnvTwinIsTheDefaultAndTheFlagBeatsIt() throws Exception {
    // picocli reads env twins from the real environment: a process of its own, with the echo source
    // installed through a services file on an extra class path entry.
    Path extra = root.resolve("extra-cp");
    FixtureTree.at(extra).value("META-INF/services/io.nodeatlas.discovery.spi.DiscoverySource", EchoSource.class.getName());
    Map<String, String> env = Map.of("NODEATLAS_TEST_ECHO_TEXT", "from env", "NODEATLAS_TEST_ECHO_LOUD", "true");

    Device fromEnv = echoDevice(runProcess(env, extra, "discover", "--host-root", root.toString(), "--sources", "echo"));
    assertThat(attr(fromEnv, "text")).isEqualTo(AttributeValue.string("from env"));
    assertThat(attr(fromEnv, "loud")).isEqualTo(AttributeValue.of(true));

    Device fromFlag = echoDevice(runProcess(env, extra, "discover", "--host-root", root.toString(), "--sources", "echo",
        "--echo-text", "from flag", "--echo-loud=false"));
    assertThat(attr(fromFlag, "text")).isEqualTo(AttributeValue.string("from flag"));
    assertThat(attr(fromFlag, "loud")).isEqualTo(AttributeValue.of(false));

    Result bad = runProcess(Map.of("NODEATLAS_TEST_ECHO_COUNT", "lots"), extra, "discover", "--host-root", root.toString(),
        "--sources", "echo");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains(
        "nodeatlas: --echo-count must be a whole number, got \"lots\" (from env NODEATLAS_TEST_ECHO_COUNT)");
  }

  @Test
  void minusNameAloneMeansAllButThatSource() {
    // With the sources this build installs: "-gpu" is every one of them but gpu.
    TreeSet<String> allButGpu = new TreeSet<>(NodeAtlasCommand.installedSources().names());
    assertThat(allButGpu.remove("gpu")).as("gpu is installed").isTrue();
    FixtureTree.at(root).dir("sys").dir("proc").dir("dev");
    Result r = run("discover", "--host-root", root.toString(), "--sources", "-gpu");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(new NodeReportCodec().fromJson(r.out()).sources().keySet()).containsExactlyElementsOf(allButGpu);
  }
}
