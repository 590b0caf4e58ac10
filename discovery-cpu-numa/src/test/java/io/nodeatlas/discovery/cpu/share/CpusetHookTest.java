package io.nodeatlas.discovery.cpu.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OCI hook ({@code src/main/c/nodeatlas-cpuset-hook.c}, built by this module's build into
 * {@code target/hooks/}) run as a runtime runs it: the container state on stdin, the limits as
 * arguments. A fake {@code /proc} and cgroup tree stand in for the host's (a test cannot move its own
 * cgroup); {@code .ci/e2e/podman-shares.sh} runs it under a real runtime.
 */
class CpusetHookTest {

  static final Path HOOK = Path.of("target/hooks/nodeatlas-cpuset-hook");
  static final String STATE = "{\"ociVersion\":\"1.0.2\",\"id\":\"ctr-1\",\"status\":\"created\",\"pid\":4242,"
      + "\"bundle\":\"/run/x\",\"annotations\":{\"a\":\"{\\\"pid\\\":1}\"}}";

  @TempDir Path root;
  Path proc;
  Path cgroup;

  record Run(int status, String stderr) {}

  @BeforeEach
  void tree() throws IOException {
    proc = Files.createDirectories(root.resolve("proc/4242")).getParent();
    cgroup = Files.createDirectories(root.resolve("cgroup"));
  }

  Run run(String stdin, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(HOOK.toAbsolutePath().toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try (var in = p.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    } catch (IOException closedEarly) {
      // The hook may refuse before it read everything.
    }
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  Run runV2(String stdin, String... limits) throws Exception {
    List<String> args = new ArrayList<>(List.of(limits));
    args.addAll(List.of("--cgroup-root=" + cgroup, "--proc-root=" + proc, "--cgroup-version=2"));
    return run(stdin, args.toArray(String[]::new));
  }

  Path file(Path p) throws IOException {
    Files.createDirectories(p.getParent());
    return Files.writeString(p, "");
  }

  @Test
  void cgroupV2CpusetAndHugetlbOfTheContainersCgroup() throws Exception {
    Files.writeString(proc.resolve("4242/cgroup"), "0::/kubepods.slice/pod-1/ctr-1\n");
    Path dir = cgroup.resolve("kubepods.slice/pod-1/ctr-1");
    file(dir.resolve("cpuset.cpus"));
    file(dir.resolve("cpuset.mems"));
    file(dir.resolve("hugetlb.2MB.max"));

    Run r = runV2(STATE, "--cpus=1-2,17-18", "--mems=0", "--hugetlb=2097152:16777216", "--hugetlb=1073741824:0");

    assertThat(r.stderr()).isEmpty();
    assertThat(r.status()).isZero();
    assertThat(Files.readString(dir.resolve("cpuset.cpus"))).isEqualTo("1-2,17-18");
    assertThat(Files.readString(dir.resolve("cpuset.mems"))).isEqualTo("0");
    assertThat(Files.readString(dir.resolve("hugetlb.2MB.max"))).isEqualTo("16777216");
    // No hugetlb.1GB.max in this cgroup: skipped, not created.
    assertThat(dir.resolve("hugetlb.1GB.max")).doesNotExist();
  }

  @Test
  void cgroupV2WithoutTheCpusetControllerEnablesItFromTheRootDown() throws Exception {
    Files.writeString(proc.resolve("4242/cgroup"), "0::/a/b\n");
    Files.createDirectories(cgroup.resolve("a/b"));
    file(cgroup.resolve("cgroup.subtree_control"));
    file(cgroup.resolve("a/cgroup.subtree_control"));

    Run r = runV2(STATE, "--cpus=3");

    assertThat(Files.readString(cgroup.resolve("cgroup.subtree_control"))).isEqualTo("+cpuset");
    assertThat(Files.readString(cgroup.resolve("a/cgroup.subtree_control"))).isEqualTo("+cpuset");
    // A fake tree grows no cpuset files: the hook says so rather than pretending.
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.stderr()).isEqualTo("nodeatlas-cpuset-hook: container ctr-1: cgroup /a/b has no cpuset.cpus after enabling"
        + " the cpuset controller\n");
  }

  @Test
  void cgroupV1UsesTheCpusetAndHugetlbHierarchies() throws Exception {
    Files.writeString(proc.resolve("4242/cgroup"), "12:hugetlb:/libpod_parent/libpod-1\n3:cpuset:/libpod_parent/libpod-1\n"
        + "1:name=systemd:/user.slice\n0::/\n");
    Path cpuset = cgroup.resolve("cpuset/libpod_parent/libpod-1");
    file(cpuset.resolve("cpuset.cpus"));
    file(cpuset.resolve("cpuset.mems"));
    Path hugetlb = file(cgroup.resolve("hugetlb/libpod_parent/libpod-1/hugetlb.2MB.limit_in_bytes"));

    Run r = run(STATE, "--cpus=4-5,20", "--mems=0-1", "--hugetlb=2097152:8388608", "--cgroup-root=" + cgroup,
        "--proc-root=" + proc, "--cgroup-version=1");

    assertThat(r.status()).as(r.stderr()).isZero();
    assertThat(Files.readString(cpuset.resolve("cpuset.cpus"))).isEqualTo("4-5,20");
    assertThat(Files.readString(cpuset.resolve("cpuset.mems"))).isEqualTo("0-1");
    assertThat(Files.readString(hugetlb)).isEqualTo("8388608");
  }

  @Test
  void neverFollowsALinkInTheCgroupPathOrAtTheFile() throws Exception {
    Path outside = Files.createDirectories(root.resolve("outside"));
    Path victim = Files.writeString(outside.resolve("cpuset.cpus"), "untouched");
    Files.writeString(proc.resolve("4242/cgroup"), "0::/evil/ctr\n");
    Files.createSymbolicLink(cgroup.resolve("evil"), root);
    Files.createDirectories(root.resolve("ctr"));
    Files.createSymbolicLink(root.resolve("ctr/cpuset.cpus"), victim);

    Run viaDir = runV2(STATE, "--cpus=1");
    assertThat(viaDir.status()).isEqualTo(1);
    assertThat(viaDir.stderr()).startsWith("nodeatlas-cpuset-hook: container ctr-1: cannot open cgroup /evil/ctr under ");

    Files.delete(cgroup.resolve("evil"));
    Files.createDirectories(cgroup.resolve("evil/ctr"));
    Files.createSymbolicLink(cgroup.resolve("evil/ctr/cpuset.cpus"), victim);
    Run viaFile = runV2(STATE, "--cpus=1");
    assertThat(viaFile.status()).isEqualTo(1);
    assertThat(viaFile.stderr()).contains("cannot write \"1\" to /evil/ctr/cpuset.cpus");
    assertThat(Files.readString(victim)).isEqualTo("untouched");
  }

  @Test
  void everyBadInputIsOneLineAndExitStatusOne() throws Exception {
    Files.writeString(proc.resolve("4242/cgroup"), "0::/a/../../etc\n");
    List<Run> runs = List.of(
        runV2(STATE, "--cpus=3-1"),
        runV2(STATE, "--cpus=1", "--hugetlb=3000:1"),
        runV2(STATE, "--bogus"),
        runV2("{\"id\":\"x\",\"pid\":\"12\"}", "--cpus=1"),
        runV2("{\"id\":\"x\"}", "--cpus=1"),
        runV2("{\"id\":\"x\",\"pid\":99999999}", "--cpus=1"),
        runV2("[1,2]", "--cpus=1"),
        runV2("{\"id\":\"x\",\"pid\":4242,\"nested\":" + "[".repeat(100) + "]".repeat(100) + "}", "--cpus=1"),
        runV2("{\"id\":\"x\",\"pid\":4242,\"pad\":\"" + "x".repeat((16 << 20) + 10) + "\"}", "--cpus=1"),
        runV2(STATE, "--cpus=1"));
    List<String> expected = List.of(
        "--cpus is not a kernel CPU list: 3-1",
        "--hugetlb page size 3000 is not a power of two from 4096",
        "unknown argument --bogus",
        "the state's pid is not a process id",
        "the state on stdin has no pid",
        "the state's pid 99999999 is out of range",
        "the state on stdin is not a JSON object",
        "the state on stdin is not valid JSON",
        "the state on stdin is larger than 16777216 bytes",
        "names a cgroup path with '..'");
    for (int i = 0; i < runs.size(); i++) {
      Run r = runs.get(i);
      assertThat(r.status()).as("case %d: %s", i, r.stderr()).isEqualTo(1);
      assertThat(r.stderr()).as("case %d", i).startsWith("nodeatlas-cpuset-hook: container ").endsWith("\n")
          .contains(expected.get(i));
      assertThat(r.stderr().lines().count()).isEqualTo(1);
    }
  }

  /**
   * Issue 35 item 7: CRI-O copies the pod's annotations into the state, so a state of several MiB is a
   * pod with large annotations, not an attack: it is read (up to 16 MiB).
   */
  @Test
  void aStateWithMebibytesOfAnnotationsIsRead() throws Exception {
    Files.writeString(proc.resolve("4242/cgroup"), "0::/a\n");
    file(cgroup.resolve("a/cpuset.cpus"));
    StringBuilder annotations = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      annotations.append(i == 0 ? "" : ",").append("\"example.com/a").append(i).append("\":\"").append("v".repeat(100_000))
          .append('"');
    }
    Run r = runV2("{\"ociVersion\":\"1.0.2\",\"id\":\"ctr-1\",\"status\":\"created\",\"pid\":4242,\"bundle\":\"/run/x\","
        + "\"annotations\":{" + annotations + "}}", "--cpus=5");
    assertThat(r.stderr()).isEmpty();
    assertThat(r.status()).isZero();
    assertThat(Files.readString(cgroup.resolve("a/cpuset.cpus"))).isEqualTo("5");
  }

  /** Issue 35 item 7: the state is JSON as RFC 8259 says, no more and no less. */
  @Test
  void theStateIsParsedAsStrictJson() throws Exception {
    Files.writeString(proc.resolve("4242/cgroup"), "0::/a\n");
    Path cpus = file(cgroup.resolve("a/cpuset.cpus"));
    // Escaped keys and values are the same members: p\u0069d is pid, \u0063tr-1 is ctr-1.
    Run escaped = runV2("{\"id\":\"\\u0063tr-1\",\"p\\u0069d\":4242}", "--cpus=7");
    assertThat(escaped.stderr()).isEmpty();
    assertThat(Files.readString(cpus)).isEqualTo("7");
    // Valid JSON the old reader refused: a surrogate pair, every escape, exponents, nesting.
    Run valid = runV2("{\"id\":\"ctr-1\",\"pid\":4242,\"x\":[\"\\ud83d\\ude00\\b\\f\\n\\r\\t\\/\\\\\\\"\",-0.5e+3,true,"
        + "false,null,{\"\":[]}],\"\u00e9\":\"\u20ac\"}", "--cpus=8");
    assertThat(valid.stderr()).isEmpty();
    assertThat(Files.readString(cpus)).isEqualTo("8");

    List<byte[]> bad = List.of(
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":tr\0ue}"),
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":\"\\\0\"}"),
        bytes("{\"id\":\"x\",\"pid\":4242}garbage"),
        bytes("{\"id\":\"x\",\"pid\":4242}{}"),
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":truex}"),
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":01}"),
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":1.}"),
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":+1}"),
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":NaN}"),
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":[1,]}"),
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":\"\\x\"}"),
        bytes("{\"id\":\"x\",\"pid\":4242,\"a\":\"\\u12\"}"),
        new byte[] {'{', '"', 'i', 'd', '"', ':', '"', 'x', '"', ',', '"', 'p', 'i', 'd', '"', ':', '4', '2', '4', '2', ',', '"', 'a', '"',
            ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'},
        new byte[] {'{', '"', 'i', 'd', '"', ':', '"', 'x', '"', ',', '"', 'p', 'i', 'd', '"', ':', '4', '2', '4', '2', ',', '"', 'a', '"',
            ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'});
    for (byte[] b : bad) {
      Run r = run(b, "--cpus=9", "--cgroup-root=" + cgroup, "--proc-root=" + proc, "--cgroup-version=2");
      assertThat(r.status()).as(new String(b, StandardCharsets.ISO_8859_1)).isEqualTo(1);
      assertThat(r.stderr()).as(new String(b, StandardCharsets.ISO_8859_1)).contains("the state on stdin is not valid JSON");
    }
    Run twice = runV2("{\"id\":\"ctr-1\",\"pid\":4242,\"p\\u0069d\":1}", "--cpus=9");
    assertThat(twice.stderr()).contains("the state on stdin has more than one pid");
    Run pidFraction = runV2("{\"id\":\"ctr-1\",\"pid\":4242.0}", "--cpus=9");
    assertThat(pidFraction.stderr()).contains("the state's pid is not a process id");
    assertThat(Files.readString(cpus)).isEqualTo("8");
  }

  /**
   * Issue 35 item 7: mutations of real states (bytes flipped, dropped, doubled, and the bytes that broke
   * the old reader put in), each judged by a strict reader of the JDK and Jackson: the hook calls a
   * state "not valid JSON" exactly when that reader does, and otherwise ends in one line of its own.
   */
  @Test
  void mutatedStatesAreJudgedAsAStrictReaderJudgesThem() throws Exception {
    int rounds = Integer.getInteger("nodeatlas.hook.fuzzRounds", 2000);
    java.util.Random random = new java.util.Random(35);
    List<byte[]> seeds = List.of(bytes(STATE), bytes("{\"ociVersion\":\"1.2.0\",\"id\":\"c\",\"status\":\"creating\","
        + "\"pid\":7,\"bundle\":\"/b\",\"annotations\":{\"io.kubernetes.cri-o.Labels\":\"{\\\"app\\\":\\\"\u00e9\\\"}\","
        + "\"n\":[1,-2.5e3,true,false,null]}}"), bytes("{\"p\\u0069d\":12,\"\\u0069d\":\"\\ud83d\\ude00x\"}"));
    byte[] special = {0, '\\', '"', 'u', '0', '9', 'e', '-', '.', ',', ':', '{', '}', '[', ']', ' ', (byte) 0xC0, (byte) 0xE2,
        (byte) 0x82, (byte) 0xAC, (byte) 0xFF, (byte) 0xED, 't', 'n'};
    int invalid = 0;
    for (int round = 0; round < rounds; round++) {
      byte[] b = seeds.get(random.nextInt(seeds.size())).clone();
      for (int m = 1 + random.nextInt(3); m > 0; m--) {
        b = mutate(b, random, special);
      }
      boolean valid = strictJsonObject(b);
      Run r = run(b, "--cpus=9", "--cgroup-root=" + cgroup, "--proc-root=" + root.resolve("none"), "--cgroup-version=2");
      String shown = new String(b, StandardCharsets.ISO_8859_1);
      assertThat(r.status()).as("exit status for %s: %s", shown, r.stderr()).isEqualTo(1);
      assertThat(r.stderr().lines().count()).as(shown).isEqualTo(1);
      boolean saidInvalid = r.stderr().contains("the state on stdin is not valid JSON")
          || r.stderr().contains("the state on stdin is not a JSON object");
      assertThat(saidInvalid).as("hook says \"%s\" for %s; a strict reader says %s", r.stderr().strip(), shown,
          valid ? "valid" : "invalid").isEqualTo(!valid);
      invalid += valid ? 0 : 1;
    }
    // The mutations reach both sides of the line.
    assertThat(invalid).isBetween(rounds / 10, rounds - rounds / 10);
  }

  private static byte[] mutate(byte[] b, java.util.Random random, byte[] special) {
    int at = random.nextInt(b.length + 1);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    switch (random.nextInt(5)) {
      case 0 -> { // replace a byte
        out.write(b, 0, Math.min(at, b.length));
        out.write(random.nextBoolean() ? special[random.nextInt(special.length)] : random.nextInt(256));
        if (at < b.length) {
          out.write(b, at + 1, b.length - at - 1);
        }
      }
      case 1 -> { // insert a byte
        out.write(b, 0, at);
        out.write(special[random.nextInt(special.length)]);
        out.write(b, at, b.length - at);
      }
      case 2 -> { // drop up to 3 bytes
        int n = Math.min(1 + random.nextInt(3), b.length - Math.min(at, b.length));
        out.write(b, 0, at);
        out.write(b, at + n, b.length - at - n);
      }
      case 3 -> { // double a span
        int n = Math.min(1 + random.nextInt(8), b.length - Math.min(at, b.length));
        out.write(b, 0, at + n);
        out.write(b, at, b.length - at);
      }
      default -> { // trailing bytes
        out.write(b, 0, b.length);
        out.write(special[random.nextInt(special.length)]);
      }
    }
    return out.toByteArray();
  }

  /** RFC 8259 JSON text that is an object: well-formed UTF-8 (the JDK's decoder), then Jackson's strict reader. */
  private static boolean strictJsonObject(byte[] b) {
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
          .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(b)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      return false;
    }
    try {
      com.fasterxml.jackson.databind.JsonNode n = com.fasterxml.jackson.databind.json.JsonMapper.builder()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build().readTree(text);
      return n != null && n.isObject();
    } catch (java.io.IOException e) {
      return false;
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  Run run(byte[] stdin, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(HOOK.toAbsolutePath().toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try (var in = p.getOutputStream()) {
      in.write(stdin);
    } catch (IOException closedEarly) {
      // The hook may refuse before it read everything.
    }
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }
}
