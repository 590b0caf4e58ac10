package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: the MPS daemon's {@code /dev/shm} as planned ({@link MpsShm}), and the privileged plan (a size-limited
 * tmpfs, the daemon in a private mount namespace with it at {@code /dev/shm}) run for real inside a user and mount
 * namespace of the test's own ({@code unshare -rm}), so that the host's mounts are never touched, as root or not.
 */
class MpsShmTest {

  @TempDir Path dir;

  @Test
  void theTmpfsIsMountedOnlyWithThePrivilegeAndASize() {
    assertThat(new MpsShm(1L << 30, true, true).tmpfs()).isTrue();
    assertThat(new MpsShm(0, true, true).tmpfs()).isFalse();
    assertThat(new MpsShm(1L << 30, false, true).tmpfs()).isFalse();
    assertThat(new MpsShm(0, true, true).describe(dir)).contains("plain directory", "--gpu-mps-shm-size is 0");
    assertThat(new MpsShm(1L << 30, false, true).describe(dir)).contains("plain directory", "lacks CAP_SYS_ADMIN");
    assertThat(new MpsShm(1L << 30, true, true).describe(dir)).isEqualTo("a tmpfs of 1024 MiB at " + dir);
    assertThat(new MpsShm(1L << 30, true, false).tmpfs()).as("a mount that would not reach the runtime").isFalse();
    assertThat(new MpsShm(1L << 30, true, false).describe(dir)).contains("plain directory", "not shared with the host");
  }

  @Test
  void aTmpfsIsMountedOnlyWhereItReachesTheHost() {
    String host = "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
        + "30 22 8:2 / /var/lib rw shared:5 - ext4 /dev/sda2 rw\n";
    assertThat(MpsShm.shared(host, Path.of("/var/lib/nodeatlas/families"))).as("a host whose / is shared (systemd)")
        .isTrue();
    String unit = "40 39 8:1 / / ro,relatime master:1 - ext4 /dev/sda1 rw\n"
        + "41 40 8:2 /nodeatlas /var/lib/nodeatlas rw,relatime master:5 - ext4 /dev/sda2 rw\n";
    assertThat(MpsShm.shared(unit, Path.of("/var/lib/nodeatlas/families"))).as("a sandboxed unit's slave mounts")
        .isFalse();
    String pod = "50 49 0:50 / / rw master:9 - overlay overlay rw\n"
        + "51 50 8:2 /nodeatlas /var/lib/nodeatlas rw shared:5 master:5 - ext4 /dev/sda2 rw\n";
    assertThat(MpsShm.shared(pod, Path.of("/var/lib/nodeatlas/families"))).as("a Bidirectional volume").isTrue();
    assertThat(MpsShm.shared(pod, Path.of("/var/lib/other"))).as("outside the volume").isFalse();
    assertThat(MpsShm.shared("garbage\n", Path.of("/x"))).isFalse();
  }

  @Test
  void sizesCapabilitiesAndMountPointsAreRead() {
    assertThat(MpsShm.bytes("0")).isZero();
    assertThat(MpsShm.bytes("2Gi")).isEqualTo(2L << 30);
    assertThatThrownBy(() -> MpsShm.bytes("12k")).hasMessageContaining("between 1Mi and 1Pi");
    assertThatThrownBy(() -> MpsShm.bytes("lots")).hasMessageContaining("such as 1Gi");
    assertThat(MpsShm.defaultBytes("MemTotal:       16318420 kB\nMemFree: 1 kB\n")).isEqualTo(16318420L * 1024 / 2);
    assertThat(MpsShm.defaultBytes("garbage")).isEqualTo(MpsShm.FALLBACK_BYTES);
    assertThat(MpsShm.privileged("Name:\tjava\nCapEff:\t000001ffffffffff\n")).isTrue();
    assertThat(MpsShm.privileged("CapEff:\t0000000000000000\n")).isFalse();
    assertThat(MpsShm.privileged("CapEff:\t0000000000200000\n")).as("bit 21 alone").isTrue();
    assertThat(MpsShm.privileged("CapEff:\tzz\n")).isFalse();
    String mountinfo = "36 35 98:0 / /mnt/with\\040space rw - ext3 /dev/root rw\n"
        + "40 22 0:44 / /var/lib/nodeatlas/families/mps/GPU-1/shm rw,nosuid - tmpfs nodeatlas-mps-shm rw,size=1024k\n";
    assertThat(MpsShm.mountPoints(mountinfo)).contains("/mnt/with space");
    assertThat(MpsShm.mounted(mountinfo, Path.of("/var/lib/nodeatlas/families/mps/GPU-1/shm"))).isTrue();
    assertThat(MpsShm.mounted(mountinfo, Path.of("/var/lib/nodeatlas/families/mps/GPU-2/shm"))).isFalse();
  }

  @Test
  void theDaemonRunsInAPrivateNamespaceWithItsDirectoryAtDevShm() {
    Path shm = dir.resolve("shm");
    List<String> privileged = new MpsShm(8L << 20, true, true).launchCommand(shm, List.of("ctl", "-d"), Map.of("A", "b"));
    assertThat(privileged).startsWith("unshare", "--mount", "--propagation", "private", "--", "sh", "-c")
        .endsWith(shm.toString(), "env", "A=b", "ctl", "-d");
    assertThat(new MpsShm(0, false, true).launchCommand(shm, List.of("ctl", "-d"), Map.of()))
        .as("without CAP_SYS_ADMIN: in a user namespace where the agent's user is root")
        .startsWith("unshare", "--map-root-user", "--mount").endsWith(shm.toString(), "ctl", "-d");
    assertThat(new MpsShm(8L << 20, true, true).mountCommand(shm)).containsExactly("mount", "-t", "tmpfs", "-o",
        "rw,nosuid,nodev,noexec,relatime,size=8388608", "nodeatlas-mps-shm", shm.toString());
  }

  /**
   * The privileged plan's commands as {@link GpuSharing} runs them (mount, start, quit, unmount), inside
   * {@code unshare -rm}: the daemon's marker lands in the size-limited tmpfs, not in the directory below it.
   */
  @Test
  void thePrivilegedPlanRunsInANamespaceOfTheTestsOwn() throws Exception {
    Assumptions.assumeTrue(run(List.of("unshare", "-rm", "true")) == 0,
        "user namespaces are not available here (unshare -rm true failed): the privileged plan cannot be run "
            + "without touching the host's mounts");
    Path daemonDir = Files.createDirectories(dir.resolve("mps/GPU-1"));
    Path pipe = Files.createDirectories(daemonDir.resolve("pipe"));
    Path log = Files.createDirectories(daemonDir.resolve("log"));
    Path shm = Files.createDirectories(MpsShm.dir(daemonDir));
    Path control = Files.copy(Path.of("src", "test", "tools", "fake-nvidia-cuda-mps-control"), dir.resolve("control"),
        StandardCopyOption.COPY_ATTRIBUTES);
    Path out = dir.resolve("seen");
    MpsShm plan = new MpsShm(8L << 20, true, true);
    String script = String.join("\n", "set -eu",
        "export CUDA_MPS_PIPE_DIRECTORY=" + q(pipe.toString()) + " CUDA_MPS_LOG_DIRECTORY=" + q(log.toString())
            + " CUDA_VISIBLE_DEVICES=GPU-1",
        line(plan.mountCommand(shm)),
        line(plan.launchCommand(shm, List.of(control.toString(), "-d"), Map.of())),
        "grep -F ' " + shm + " ' /proc/self/mountinfo > " + q(out + ".mount"),
        "cat " + q(shm + "/fake-mps-daemon") + " > " + q(out.toString()),
        "echo quit | " + q(control.toString()),
        line(MpsShm.unmountCommand(shm)), "");
    assertThat(run(List.of("unshare", "-rm", "sh", "-c", script))).isZero();
    assertThat(Files.readString(out).strip()).as("the daemon's marker in its /dev/shm").endsWith(" GPU-1");
    assertThat(Files.readString(Path.of(out + ".mount"))).contains(" - tmpfs nodeatlas-mps-shm ", "size=8192k");
    assertThat(shm).as("the marker was in the tmpfs, gone with it; the directory below stays empty").isEmptyDirectory();
  }

  private static String line(List<String> command) {
    List<String> quoted = new ArrayList<>();
    command.forEach(a -> quoted.add(q(a)));
    return String.join(" ", quoted);
  }

  private static String q(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  private static int run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] text = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    if (p.exitValue() != 0) {
      System.err.println(String.join(" ", command) + ": " + new String(text, StandardCharsets.UTF_8));
    }
    return p.exitValue();
  }
}
