package io.nodeatlas.cli.run;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.topology.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings the agent refuses come back as bad usage naming the flag, before anything starts. */
class RunCommandTest {

  @TempDir Path dir;

  private Result runWith(String... more) throws Exception {
    Path saved = Files.writeString(dir.resolve("node.json"), new NodeReportCodec().toJson(new NodeReport(
        NodeReport.SCHEMA_VERSION, new HostInfo("n", "k", "/"), Topology.EMPTY, List.of(), List.of(), Map.of())));
    Path config = Files.writeString(dir.resolve("config.yaml"), "");
    List<String> args = new java.util.ArrayList<>(List.of("run", "--standalone", "--config", config.toString(),
        "--replay-report", saved.toString(), "--state-dir", dir.resolve("state").toString(),
        "--cdi-root", dir.resolve("cdi").toString()));
    args.addAll(List.of(more));
    return run(args.toArray(String[]::new));
  }

  @Test
  void settingsTheAgentRefusesAreBadUsageNamingTheFlagAndItsEnvTwin() throws Exception {
    Result resync = runWith("--resync-interval", "0s");
    assertThat(resync.status()).isEqualTo(2);
    assertThat(resync.err()).isEqualTo("nodeatlas: --resync-interval (env NODEATLAS_RESYNC_INTERVAL): must be positive\n");

    Result driver = runWith("--driver-name", "Not_A_Name");
    assertThat(driver.status()).isEqualTo(2);
    assertThat(driver.err()).isEqualTo("nodeatlas: --driver-name (env NODEATLAS_DRIVER_NAME): \"Not_A_Name\" is not a "
        + "DNS subdomain of at most 63 characters\n");

    // The hook path goes into CDI specs, where a runtime runs it on the host: it must be absolute.
    Result hook = runWith("--hook-path", "hooks/cpuset-hook");
    assertThat(hook.status()).isEqualTo(2);
    assertThat(hook.err()).isEqualTo("nodeatlas: --hook-path (env NODEATLAS_HOOK_PATH): \"hooks/cpuset-hook\" is not an absolute path\n");
    // The pod UID names socket files: a path in it is refused before anything is bound (also by its old name).
    for (String flag : List.of("--rolling-update-uid", "--pod-uid")) {
      Result podUid = runWith(flag, "../../etc/x");
      assertThat(podUid.status()).isEqualTo(2);
      assertThat(podUid.err()).startsWith("nodeatlas: --rolling-update-uid (env NODEATLAS_ROLLING_UPDATE_UID): pod UID "
          + "\"../../etc/x\" is not a UID");
    }
    Result lockWait = runWith("--lock-wait", "soon");
    assertThat(lockWait.status()).isEqualTo(2);
    assertThat(lockWait.err()).contains("--lock-wait", "not a duration");
    Result journal = runWith("--checkpoint-journal=maybe");
    assertThat(journal.status()).isEqualTo(2);
    assertThat(journal.err()).contains("--checkpoint-journal", "maybe");
    assertThat(dir.resolve("state")).as("nothing started").doesNotExist();
  }

  @Test
  void anInvalidPortIsBadUsageAtParseTime() throws Exception {
    for (String[] bad : List.of(new String[] {"--http-port", "99999"}, new String[] {"--http-port", "-1"},
        new String[] {"--http-port", "80a"}, new String[] {"--healthcheck-port", "-2"},
        new String[] {"--healthcheck-port", "65536"})) {
      Result r = runWith(bad);
      assertThat(r.status()).as(String.join(" ", bad)).isEqualTo(2);
      assertThat(r.err()).as(String.join(" ", bad)).contains(bad[0], bad[1], "is not a port");
    }
    assertThat(dir.resolve("state")).as("nothing started").doesNotExist();
  }

  @Test
  void aTakenPortIsNamedWithItsFlag() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      Result r = runWith("--http-port", Integer.toString(port));
      assertThat(r.status()).isEqualTo(1);
      assertThat(r.err()).endsWith("nodeatlas: --http-port " + port + ": address already in use\n");
    }
  }

  @Test
  void theHttpAddressIsLoopbackUnlessGiven() {
    assertThat(RunCommand.HTTP_ADDRESS.name()).isEqualTo("--http-address");
    assertThat(RunCommand.HTTP_ADDRESS.env()).isEqualTo("NODEATLAS_HTTP_ADDRESS");
    assertThat(RunCommand.HTTP_ADDRESS.defaultValue()).isEqualTo("127.0.0.1");
  }
}
