package io.nodeatlas.cli.match;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.match.NodeFixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command end to end over a saved discover document; exit statuses as the agent maps them. */
class MatchCommandTest {

  @TempDir Path dir;
  Path discovered;
  Path classes;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  @BeforeEach
  void writeNode() throws Exception {
    NodeReport report = new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo("hgx-01", "6.8.0", "/"), Topology.EMPTY,
        NodeFixtures.hgxNode(), List.of(), Map.of());
    discovered = Files.writeString(dir.resolve("node.json"), new NodeReportCodec().toJson(report));
    classes = Files.writeString(dir.resolve("classes.yaml"), NodeFixtures.DEVICE_CLASSES);
  }

  private int run(String... args) {
    CommandLine cl = NodeAtlasCommand.configure(new CommandLine(new MatchCommand()), NodeAtlasCommand.installedSources());
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    // Same mapping as the agent's NodeAtlasCommand: usage errors are exit 2 with their message.
    cl.setExecutionExceptionHandler((ex, c, p) -> {
      c.getErr().println("nodeatlas match: " + ex.getMessage());
      return ex instanceof UsageException ? 2 : 1;
    });
    return cl.execute(args);
  }

  private Path claim(String yaml) throws Exception {
    return Files.writeString(dir.resolve("claim.yaml"), yaml);
  }

  @Test
  void satisfiableClaimExitsZero() throws Exception {
    Path claim = claim("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: two}
        spec: {devices: {requests: [{name: gpus, exactly: {deviceClassName: gpu.nodeatlas.io, count: 2}}]}}
        """);
    assertThat(run("-f", classes.toString(), claim.toString(), "--discovered", discovered.toString())).isZero();
    assertThat(out.toString()).contains("ResourceClaim two: satisfiable on this node")
        .contains("allocation gpus -> gpu-0, gpu-1");
  }

  @Test
  void unsatisfiableClaimExitsOneAndJsonSaysWhy() throws Exception {
    Path claim = claim("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: many}
        spec: {devices: {requests: [{name: gpus, exactly: {deviceClassName: gpu.nodeatlas.io, count: 12}}]}}
        """);
    assertThat(run("-f", classes.toString(), "-f", claim.toString(), "--discovered", discovered.toString(), "-o", "json"))
        .isEqualTo(1);
    assertThat(out.toString()).contains("\"satisfiable\" : false")
        .contains("\"reason\" : \"request gpus needs 12 devices, this node has 8 matching devices\"");
  }

  @Test
  void invalidSelectorExitsTwoWithPosition() throws Exception {
    Path claim = claim("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: bad}
        spec: {devices: {requests: [{name: gpus, exactly: {deviceClassName: gpu.nodeatlas.io,
          selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].type =! "gpu"'}}]}}]}}
        """);
    assertThat(run("-f", classes.toString(), claim.toString(), "--discovered", discovered.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("selector #1 is invalid: compilation failed: line 1, column");
  }

  @Test
  void brokenDiscoverDocumentAndUnknownKindExitTwo() throws Exception {
    Path broken = Files.writeString(dir.resolve("broken.json"), "{\"schemaVersion\": \"v0\"}");
    assertThat(run("-f", classes.toString(), "--discovered", broken.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("unsupported schemaVersion");
    Path deployment = claim("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n");
    assertThat(run("-f", deployment.toString(), "--discovered", discovered.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("kind \"Deployment\" is not supported");
    Path pod = claim("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
    assertThat(run("-f", pod.toString(), "--discovered", discovered.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("Pod p asks for no devices");
  }

  @Test
  void discoversNowFromTheHostRootWithoutSavedDocument() throws Exception {
    // Only cpu-numa, which finds no CPUs in an empty sysfs: the node has no devices.
    Path claim = claim("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: one}
        spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nodeatlas.io}}]}}
        """);
    Files.createDirectories(dir.resolve("host/sys"));
    assertThat(run("-f", classes.toString(), claim.toString(), "--host-root", dir.resolve("host").toString(),
        "--sources", "cpu-numa")).isEqualTo(1);
    assertThat(out.toString()).contains("DeviceClass gpu.nodeatlas.io: 0 devices");
  }

  @Test
  void aMisspeltAttributeNameGetsADidYouMean() throws Exception {
    Path claim = claim("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: typo}
        spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nodeatlas.io,
          selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].prodcutName == "H100"'}}]}}]}}
        """);
    assertThat(run("-f", classes.toString(), claim.toString(), "--discovered", discovered.toString())).isEqualTo(1);
    assertThat(out.toString()).contains("key 'prodcutName' is not present in map.; device.attributes[\"nodeatlas.io\"] "
        + "name: did you mean \"productName\"?");
    // Guarded by `in`, the selector is false rather than an error; the hint stands under it.
    Path guarded = claim("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: typo}
        spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nodeatlas.io,
          selectors: [{cel: {expression: '"prodcutName" in device.attributes["nodeatlas.io"]'}}]}}]}}
        """);
    out.getBuffer().setLength(0);
    assertThat(run("-f", classes.toString(), guarded.toString(), "--discovered", discovered.toString())).isEqualTo(1);
    assertThat(out.toString()).contains("hint: device.attributes[\"nodeatlas.io\"] name: did you mean \"productName\"?");
  }

  @Test
  void explainTakesNothingOrAll() throws Exception {
    Path claim = claim("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: two}
        spec: {devices: {requests: [{name: gpus, exactly: {deviceClassName: gpu.nodeatlas.io, count: 2}}]}}
        """);
    assertThat(run("-f", classes.toString(), claim.toString(), "--discovered", discovered.toString(), "--explain=some"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--explain takes no value or \"all\", not \"some\"");
  }
}
