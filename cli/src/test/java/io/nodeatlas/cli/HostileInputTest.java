package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.match.NodeFixtures;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code match} and {@code cdi validate} fed what an attacker would feed them (issue 16), each in its own
 * JVM with the launcher's heap and stack ({@code -Xmx128m -Xss256k}, see {@code ./nodeatlas}): every
 * input is refused within the heap with the bound or rule it broke, never with a JVM error. Inputs are
 * generated here, not committed.
 */
class HostileInputTest {

  /** The launcher's memory flags. */
  private static final List<String> LAUNCHER_JVM = List.of("-Xmx128m", "-Xss256k", "-XX:+UseSerialGC",
      "--enable-native-access=ALL-UNNAMED");

  @TempDir Path dir;
  Path node;
  Path classes;

  @BeforeEach
  void writeNode() throws IOException {
    NodeReport report = new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo("hgx-01", "6.8.0", "/"), Topology.EMPTY,
        NodeFixtures.hgxNode(), List.of(), Map.of());
    node = Files.writeString(dir.resolve("node.json"), new NodeReportCodec().toJson(report));
    classes = Files.writeString(dir.resolve("classes.yaml"), NodeFixtures.DEVICE_CLASSES);
  }

  private static Result nodeatlas(String... args) throws Exception {
    return NodeAtlasRun.runProcess(LAUNCHER_JVM, Map.of(), null, args);
  }

  /** No JVM error text, no stack trace: the JVM stayed within its heap and stack. */
  private static void assertNoJvmError(Result r) {
    assertThat(r.err() + r.out()).doesNotContain("OutOfMemoryError").doesNotContain("StackOverflowError")
        .doesNotContain("\tat ").doesNotContain("Exception in thread");
  }

  /** Exit 2 and exactly one line on stderr. */
  private static String assertBadInput(Result r) {
    assertNoJvmError(r);
    assertThat(r.status()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    return r.err().strip();
  }

  // ---- cdi validate ------------------------------------------------------------------------------

  @Test
  void cdiSpecWith200000DevicesIsRefusedAtTheDeviceBound() throws Exception {
    Path spec = dir.resolve("many.json");
    try (BufferedWriter w = Files.newBufferedWriter(spec)) {
      w.write("{\"cdiVersion\":\"0.5.0\",\"kind\":\"example.com/x\",\"devices\":[");
      for (int i = 0; i < 200_000; i++) {
        w.write((i == 0 ? "" : ",") + "{\"name\":\"d" + i + "\",\"containerEdits\":{\"env\":[\"A=1\"]}}");
      }
      w.write("]}");
    }
    assertThat(Files.size(spec)).isBetween(8L << 20, 16L << 20);
    Result r = nodeatlas("cdi", "validate", spec.toString());
    assertNoJvmError(r);
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains(spec + ": failed to unmarshal CDI Spec: line 1, column ")
        .contains("devices: more than 8192 devices (the limit per spec) [rule limit]");
    assertThat(r.err().strip()).isEqualTo("nodeatlas: 1 problem(s) in 1 file(s)");
  }

  @Test
  void cdiSpecWith500000AnnotationsIsRefusedAtTheAnnotationBound() throws Exception {
    Path spec = dir.resolve("annotations.json");
    try (BufferedWriter w = Files.newBufferedWriter(spec)) {
      w.write("{\"cdiVersion\":\"0.6.0\",\"kind\":\"example.com/x\",\"annotations\":{");
      for (int i = 0; i < 500_000; i++) {
        w.write((i == 0 ? "" : ",") + "\"k" + i + "\":\"\"");
      }
      w.write("},\"devices\":[{\"name\":\"a\",\"containerEdits\":{\"env\":[\"A=1\"]}}]}");
    }
    Result r = nodeatlas("cdi", "validate", spec.toString());
    assertNoJvmError(r);
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains("annotations: more than 4096 annotations (the limit per spec or device) [rule limit]");
  }

  @Test
  void cdiSpecOverTheSizeCapIsRefusedUnread() throws Exception {
    Path spec = dir.resolve("huge.json");
    writeFiller(spec, "{\"cdiVersion\":\"0.3.0\",\"kind\":\"example.com/x\",\"devices\":[],\"x\":\"", (17L << 20), "\"}");
    Result r = nodeatlas("cdi", "validate", spec.toString());
    assertNoJvmError(r);
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains(spec + ": larger than the limit of 16777216 bytes (16 MiB) [rule limit]");
  }

  @Test
  void oddBytesInPathsAndEnvAreEachReportedWithDeviceFieldAndRule() throws Exception {
    Path spec = Files.writeString(dir.resolve("odd.json"), """
        {"cdiVersion": "0.5.0", "kind": "example.com/x", "devices": [{"name": "a", "containerEdits": {
          "env": ["A\\u001b[31m=1", "B=x\\u0007y"],
          "deviceNodes": [{"path": "/dev/nul\\u0000l"}, {"path": "/dev/../etc/shadow"}, {"path": "dev/x"},
                          {"path": "/dev/y", "hostPath": "/dev/../../etc/passwd"}],
          "hooks": [{"hookName": "createContainer", "path": "bin/hook"}],
          "mounts": [{"hostPath": "/a", "containerPath": "/x/../../y"}]}}]}
        """);
    Result r = nodeatlas("cdi", "validate", spec.toString());
    assertNoJvmError(r);
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out().lines()).containsExactly(
        spec + ": device \"a\": containerEdits.env[0] \"A\\x1b[31m=1\": the name has the control character U+001B at character 2 [rule env]",
        spec + ": device \"a\": containerEdits.env[1] \"B=x\\x07y\": the value has the control character U+0007 at character 4 [rule env]",
        spec + ": device \"a\": containerEdits.deviceNodes[0].path \"/dev/nul\\x00l\" contains a NUL byte [rule path]",
        spec + ": device \"a\": containerEdits.deviceNodes[1].path \"/dev/../etc/shadow\" has a \"..\" segment [rule path]",
        spec + ": device \"a\": containerEdits.deviceNodes[2].path \"dev/x\" is not an absolute path [rule path]",
        spec + ": device \"a\": containerEdits.deviceNodes[3].hostPath \"/dev/../../etc/passwd\" has a \"..\" segment [rule path]",
        spec + ": device \"a\": containerEdits.hooks[0].path \"bin/hook\" is not an absolute path [rule path]",
        spec + ": device \"a\": containerEdits.mounts[0].containerPath \"/x/../../y\" has a \"..\" segment [rule path]");
    assertThat(r.err().strip()).isEqualTo("nodeatlas: 8 problem(s) in 1 file(s)");
  }

  @Test
  void invalidUtf8IsReportedWithItsByteOffset() throws Exception {
    byte[] head = "{\"cdiVersion\": \"0.3.0\", \"kind\": \"example.com/x\", \"devices\": [{\"name\": \"a".getBytes(StandardCharsets.UTF_8);
    byte[] tail = "\", \"containerEdits\": {\"env\": [\"A=1\"]}}]}".getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[head.length + 2 + tail.length];
    System.arraycopy(head, 0, all, 0, head.length);
    all[head.length] = (byte) 0xC3; // a lead byte followed by an ASCII byte: malformed
    all[head.length + 1] = 'x';
    System.arraycopy(tail, 0, all, head.length + 2, tail.length);
    Path spec = Files.write(dir.resolve("latin.json"), all);
    Result r = nodeatlas("cdi", "validate", spec.toString());
    assertNoJvmError(r);
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out().strip()).isEqualTo(spec + ": not UTF-8: invalid byte sequence at byte offset " + head.length
        + " (0xc3) [rule parse]");
  }

  // ---- match -f ----------------------------------------------------------------------------------

  @Test
  void a62MiBYamlFileIsRefusedAtTheSizeCap() throws Exception {
    Path big = dir.resolve("big.yaml");
    String doc = "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec: {}\n";
    writeFiller(big, "", 62L << 20, "", doc);
    String err = assertBadInput(nodeatlas("match", "-f", big.toString(), "--discovered", node.toString()));
    assertThat(err).isEqualTo("nodeatlas: " + big + ": larger than the limit of 8388608 bytes (8 MiB)");
  }

  @Test
  void a62MiBJsonFileIsRefusedAtTheSizeCap() throws Exception {
    Path big = dir.resolve("big.json");
    writeFiller(big, "{\"items\":[", 62L << 20, "1]}", "1,");
    String err = assertBadInput(nodeatlas("match", "-f", big.toString(), "--discovered", node.toString()));
    assertThat(err).isEqualTo("nodeatlas: " + big + ": larger than the limit of 8388608 bytes (8 MiB)");
  }

  @Test
  void tooManyDocumentsUnderTheSizeCapAreRefusedWithTheirLine() throws Exception {
    Path many = dir.resolve("many.yaml");
    writeFiller(many, "", 7L << 20, "", "---\n{}\n");
    String err = assertBadInput(nodeatlas("match", "-f", many.toString(), "--discovered", node.toString()));
    assertThat(err).isEqualTo("nodeatlas: " + many + ": line 2002, column 1: more than 1000 documents (the limit per file)");
  }

  @Test
  void deeplyNestedSelectorsAreCompileErrorsWithExitTwo() throws Exception {
    for (String expression : List.of("(".repeat(4000) + "true" + ")".repeat(4000),
        "1" + " + 1".repeat(2400) + " > 0",
        "[".repeat(3000) + "]".repeat(3000) + " == []")) {
      assertThat(expression.length()).isLessThanOrEqualTo(10 * 1024);
      Path claim = Files.writeString(dir.resolve("deep.yaml"), """
          apiVersion: resource.k8s.io/v1
          kind: DeviceClass
          metadata: {name: deep}
          spec:
            selectors:
            - cel: {expression: '%s'}
          """.formatted(expression));
      String err = assertBadInput(nodeatlas("match", "-f", claim.toString(), "--discovered", node.toString()));
      assertThat(err).startsWith("nodeatlas: " + claim + "#1 DeviceClass deep: selector #1 is invalid: compilation "
          + "failed: line 1, column ").contains(": expression nested deeper than the limit of 100 levels");
    }
  }

  @Test
  void aLookAlikeDomainGetsADidYouMeanNamingTheCodePoint() throws Exception {
    Path claim = Files.writeString(dir.resolve("claim.yaml"), """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: spoof}
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.nodeatlas.io
                selectors:
                - cel: {expression: 'device.attributes["node\u0430tlas.io"].type == "gpu"'}
        """);
    Result r = nodeatlas("match", "-f", classes.toString(), "-f", claim.toString(), "--discovered", node.toString(),
        "--explain");
    assertNoJvmError(r);
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains("did you mean \"nodeatlas.io\"? \"node\u0430tlas.io\" has U+0430 CYRILLIC SMALL "
        + "LETTER A at character 5");
  }

  @Test
  void aSavedNodeUnderItsCapIsReadWithinTheHeapAndOneOverIsRefusedUnread() throws Exception {
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    var tree = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(node.toFile());
    var warnings = tree.putArray("warnings");
    for (int i = 0; i < 190_000; i++) {
      warnings.addObject().put("message", "warning " + i + " padding padding padding padding").put("source", "gpu");
    }
    Path big = dir.resolve("big-node.json");
    mapper.writeValue(big.toFile(), tree);
    assertThat(Files.size(big)).isBetween(12L << 20, SavedReport.MAX_BYTES);
    Result r = nodeatlas("match", "-f", classes.toString(), "--discovered", big.toString());
    assertNoJvmError(r);
    assertThat(r.status()).as(r.err()).isZero();

    for (int i = 0; i < 100_000; i++) {
      warnings.addObject().put("message", "warning " + i + " padding padding padding padding").put("source", "gpu");
    }
    mapper.writeValue(big.toFile(), tree);
    String err = assertBadInput(nodeatlas("match", "-f", classes.toString(), "--discovered", big.toString()));
    assertThat(err).isEqualTo("nodeatlas: --discovered " + big + ": larger than 16 MiB; not a saved discover document");
  }

  @picocli.CommandLine.Command(name = "boom")
  static final class Boom implements java.util.concurrent.Callable<Integer> {
    @picocli.CommandLine.Parameters String what;

    @Override
    public Integer call() {
      throw what.equals("heap") ? new OutOfMemoryError("Java heap space") : new StackOverflowError();
    }
  }

  @Test
  void aJvmErrorThatEscapesACommandIsOneLineAndExitOne() {
    for (String what : List.of("heap", "stack")) {
      picocli.CommandLine cl = NodeAtlasCommand.configure(new picocli.CommandLine(new Boom()),
          NodeAtlasCommand.installedSources());
      java.io.StringWriter err = new java.io.StringWriter();
      cl.setErr(new java.io.PrintWriter(err));
      assertThat(cl.execute(what)).isEqualTo(1);
      assertThat(err.toString().strip()).isEqualTo(what.equals("heap")
          ? "nodeatlas: internal failure: out of memory (Java heap space)"
          : "nodeatlas: internal failure: stack overflow");
    }
  }

  /** {@code head}, then {@code unit} repeated until the file has about {@code size} bytes, then {@code tail}. */
  private static void writeFiller(Path file, String head, long size, String tail) throws IOException {
    writeFiller(file, head, size, tail, "x".repeat(1024));
  }

  private static void writeFiller(Path file, String head, long size, String tail, String unit) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      w.write(head);
      for (long n = head.length(); n < size; n += unit.length()) {
        w.write(unit);
      }
      w.write(tail);
    }
  }
}
