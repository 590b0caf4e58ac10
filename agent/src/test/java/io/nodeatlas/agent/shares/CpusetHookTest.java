package io.nodeatlas.agent.shares;

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
 * The OCI hook ({@code hooks/nodeatlas-cpuset-hook.c}, built by this module's build into
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
        runV2("{\"id\":\"x\",\"pid\":4242,\"pad\":\"" + "x".repeat(70_000) + "\"}", "--cpus=1"),
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
        "the state on stdin is larger than 65536 bytes",
        "names a cgroup path with '..'");
    for (int i = 0; i < runs.size(); i++) {
      Run r = runs.get(i);
      assertThat(r.status()).as("case %d: %s", i, r.stderr()).isEqualTo(1);
      assertThat(r.stderr()).as("case %d", i).startsWith("nodeatlas-cpuset-hook: container ").endsWith("\n")
          .contains(expected.get(i));
      assertThat(r.stderr().lines().count()).isEqualTo(1);
    }
  }
}
