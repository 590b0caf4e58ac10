package io.nodeatlas.cli.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.topology.Topology;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CdiCommandTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = CdiCommand.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  private static Path discovered(Path dir) throws Exception {
    Device rdma = Device.builder("rdma-mlx5-0", "nic-rdma").attribute(Device.TYPE, "rdma")
        .containerEdits(ContainerEdits.builder()
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/infiniband/uverbs0", 231, 192).withPermissions("rw"))
            .build()).build();
    Device cpu = Device.builder("cpu-0", "cpu-numa").attribute(Device.TYPE, "cpu")
        .containerEdits(ContainerEdits.builder()
            .deviceNode(new ContainerEdits.DeviceNode("/dev/cpu/0/msr", "/dev/zero", null, null, null, null, null, null, null))
            .build()).build();
    NodeReport report = new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo("n", "k", "/"), Topology.EMPTY,
        List.of(rdma, cpu), List.of(), Map.of("nic-rdma", SourceStatus.OK));
    Path file = dir.resolve("discovered.json");
    Files.writeString(file, new NodeReportCodec().toJson(report));
    return file;
  }

  @Test
  void generateWritesListListsAndValidateAccepts(@TempDir Path tmp) throws Exception {
    Path cdi = tmp.resolve("cdi");
    assertThat(run("generate", "--discovered", discovered(tmp).toString(), "--output-dir", cdi.toString())).isZero();
    assertThat(out.toString()).isEqualTo(
        "wrote " + cdi.resolve("nodeatlas.io-cpu.json") + " (nodeatlas.io/cpu, cdiVersion 0.5.0, 2 devices)\n"
            + "wrote " + cdi.resolve("nodeatlas.io-rdma.json") + " (nodeatlas.io/rdma, cdiVersion 0.3.0, 2 devices)\n");
    out.getBuffer().setLength(0);
    assertThat(run("generate", "--discovered", discovered(tmp).toString(), "--output-dir", cdi.toString())).isZero();
    assertThat(out.toString()).startsWith("unchanged ");
    out.getBuffer().setLength(0);
    assertThat(run("list", "--spec-dir", cdi.toString())).isZero();
    // Both classes are exclusive devices with device nodes, so each also has its "all" device.
    assertThat(out.toString()).isEqualTo(
        "nodeatlas.io/cpu=all\nnodeatlas.io/cpu=cpu-0\nnodeatlas.io/rdma=all\nnodeatlas.io/rdma=rdma-mlx5-0\n");
    out.getBuffer().setLength(0);
    assertThat(run("validate", cdi.toString())).isZero();
    assertThat(out.toString()).contains("ok " + cdi.resolve("nodeatlas.io-rdma.json"));
  }

  @Test
  void dryRunSaysWhatTheRealRunWouldDoUnchangedIncluded(@TempDir Path tmp) throws Exception {
    Path cdi = tmp.resolve("cdi");
    String input = discovered(tmp).toString();
    assertThat(run("generate", "--discovered", input, "--output-dir", cdi.toString())).isZero();
    out.getBuffer().setLength(0);
    // Nothing to change: the dry run says so, in the real run's words, and prints no spec.
    assertThat(run("generate", "--dry-run", "--discovered", input, "--output-dir", cdi.toString())).isZero();
    String dry = out.toString();
    out.getBuffer().setLength(0);
    assertThat(run("generate", "--discovered", input, "--output-dir", cdi.toString())).isZero();
    assertThat(dry).isEqualTo(out.toString()).startsWith("unchanged " + cdi.resolve("nodeatlas.io-cpu.json"));
    out.getBuffer().setLength(0);
    // One file edited by hand: that one would be written again, the other is unchanged.
    Files.writeString(cdi.resolve("nodeatlas.io-rdma.json"), Files.readString(cdi.resolve("nodeatlas.io-rdma.json")) + " ");
    assertThat(run("generate", "--dry-run", "--discovered", input, "--output-dir", cdi.toString())).isZero();
    assertThat(out.toString()).startsWith("unchanged " + cdi.resolve("nodeatlas.io-cpu.json") + " (")
        .contains("\nwould write " + cdi.resolve("nodeatlas.io-rdma.json") + " (nodeatlas.io/rdma, cdiVersion 0.3.0, 2 devices)\n{");
  }

  @Test
  void aDirectoryThatCannotBeWrittenIsNamedWithoutJavaOrTemporaryNames(@TempDir Path tmp) throws Exception {
    Path notADir = tmp.resolve("cdi");
    Files.writeString(notADir, "a file where the CDI directory should be");
    assertThat(run("generate", "--discovered", discovered(tmp).toString(), "--output-dir", notADir.toString())).isEqualTo(1);
    assertThat(err.toString()).startsWith("nodeatlas: cannot write CDI specs to " + notADir + ": ")
        .doesNotContain("java.").doesNotContain("Exception").doesNotContain(".tmp");
  }

  @Test
  void dryRunPrintsAndWritesNothing(@TempDir Path tmp) throws Exception {
    Path cdi = tmp.resolve("cdi");
    assertThat(run("generate", "--dry-run", "--format", "yaml", "--discovered", discovered(tmp).toString(),
        "--output-dir", cdi.toString())).isZero();
    assertThat(out.toString()).contains("would write " + cdi.resolve("nodeatlas.io-rdma.yaml"))
        .contains("kind: \"nodeatlas.io/rdma\"");
    assertThat(cdi).doesNotExist();
  }

  @Test
  void dryRunReportsTheProblemsARealRunReports(@TempDir Path tmp) throws Exception {
    Path cdi = Files.createDirectories(tmp.resolve("cdi"));
    // Another vendor's file already defines one of our qualified names: runtimes would drop the device.
    Files.writeString(cdi.resolve("other.json"), "{\"cdiVersion\":\"0.3.0\",\"kind\":\"nodeatlas.io/rdma\","
        + "\"devices\":[{\"name\":\"rdma-mlx5-0\",\"containerEdits\":{\"env\":[\"A=1\"]}}]}");
    String input = discovered(tmp).toString();

    assertThat(run("generate", "--dry-run", "--discovered", input, "--output-dir", cdi.toString())).isEqualTo(1);
    String dryRun = err.toString();
    err.getBuffer().setLength(0);
    assertThat(run("generate", "--discovered", input, "--output-dir", cdi.toString())).isEqualTo(1);

    assertThat(dryRun).contains("conflicting device \"nodeatlas.io/rdma=rdma-mlx5-0\"").contains("[rule conflict]")
        .isEqualTo(err.toString());
    assertThat(out.toString()).doesNotContain("would write").doesNotContain("wrote");
    try (var files = Files.list(cdi)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("other.json");
    }
  }

  @Test
  void aVersionBelowTheContentsMinimumIsAUsageError(@TempDir Path tmp) throws Exception {
    assertThat(run("generate", "--cdi-version", "0.4.0", "--discovered", discovered(tmp).toString(),
        "--output-dir", tmp.resolve("cdi").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("nodeatlas: cdiVersion 0.4.0 is too old for nodeatlas.io/cpu: its content needs "
        + "0.5.0 (device all: hostPath of device node /dev/cpu/0/msr)");
    assertThat(run("generate", "--cdi-version", "0.9", "--discovered", discovered(tmp).toString())).isEqualTo(2);
  }

  @Test
  void validateListsEveryProblemAndExitsOne(@TempDir Path tmp) throws Exception {
    Path bad = tmp.resolve("bad.json");
    Files.writeString(bad, "{\"cdiVersion\":\"0.3.0\",\"kind\":\"v.com/c\",\"devices\":[{\"name\":\"d\",\"containerEdits\":"
        + "{\"env\":[\"X\"],\"hooks\":[{\"hookName\":\"preStart\",\"path\":\"/x\"}]}}]}");
    assertThat(run("validate", bad.toString())).isEqualTo(1);
    assertThat(out.toString()).isEqualTo(
        bad + ": device \"d\": invalid container edits: invalid environment variable \"X\" [rule env]\n"
            + bad + ": device \"d\": invalid hook name \"preStart\" [rule hook]\n");
    assertThat(err.toString()).contains("2 problem(s) in 1 file(s)");
    assertThat(run("validate", tmp.resolve("missing").toString())).isEqualTo(2);
  }
}
