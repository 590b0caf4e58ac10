package io.nodeatlas.cli.doctor;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.nodeatlas.agent.claims.CheckpointCodec;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.PreparedClaim;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code nodeatlas doctor} on a host tree written here from the runtimes' documented formats: a healthy
 * node gives no warning and exit 0; each planted problem is named, with its fix, and nothing else is.
 * Device nodes are the machine's own {@code /dev} ({@code --dev-root /dev}): {@code /dev/null} is 1:3.
 */
class DoctorCommandTest {

  static final String CLAIM_UID = "0b5c5c1e-6a55-4a5e-9d7c-3f1d2b7c9a10";
  static final String BOOT = "6f1c3e2a-1111-4222-8333-944455556666";

  @TempDir Path root;
  HttpServer health;

  @BeforeEach
  void healthyNode() throws Exception {
    FixtureTree t = FixtureTree.at(root);
    // Four CPUs on one NUMA node: the cpu-numa source publishes a shared CPU device, which names the hook.
    t.value("sys/devices/system/cpu/online", "0-3")
        .value("sys/devices/system/cpu/possible", "0-3")
        .value("sys/devices/system/cpu/present", "0-3")
        .value("sys/devices/system/node/online", "0")
        .value("sys/devices/system/node/possible", "0")
        .value("sys/devices/system/node/node0/cpulist", "0-3")
        .value("sys/devices/system/node/node0/distance", "10")
        .file("proc/meminfo", "MemTotal: 1024 kB\n")
        .value("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory hugetlb pids")
        .value("proc/sys/kernel/random/boot_id", BOOT)
        .file("proc/1/mountinfo", "22 1 0:21 / /run rw,nosuid - tmpfs tmpfs rw\n1 0 8:1 / / rw - ext4 /dev/sda1 rw\n");
    for (int cpu = 0; cpu < 4; cpu++) {
      t.value("sys/devices/system/cpu/cpu" + cpu + "/topology/physical_package_id", 0)
          .value("sys/devices/system/cpu/cpu" + cpu + "/topology/core_id", cpu / 2)
          .value("sys/devices/system/cpu/cpu" + cpu + "/topology/thread_siblings_list", (cpu / 2 * 2) + "-" + (cpu / 2 * 2 + 1));
    }
    // containerd 1.7 (Debian's package), config version 2 with CDI on and the default directories.
    t.file("var/lib/dpkg/status", "Package: containerd\nStatus: install ok installed\nVersion: 1.7.24~ds1-1\n\n"
            + "Package: bash\nStatus: install ok installed\nVersion: 5.2.15-2\n")
        .file("etc/containerd/config.toml", """
            version = 2
            [plugins."io.containerd.grpc.v1.cri"]
              enable_cdi = true
              cdi_spec_dirs = ["/etc/cdi", "/var/run/cdi"]
            """);
    // The kubelet: its process, config and plugin watcher directory, with our registration socket.
    t.bytes("proc/4242/cmdline", "/usr/bin/kubelet\0--config=/var/lib/kubelet/config.yaml\0--v=2\0".getBytes(StandardCharsets.UTF_8))
        .file("var/lib/kubelet/config.yaml", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
            + "cpuManagerPolicy: none\nreservedSystemCPUs: \"0\"\n")
        .file("var/lib/kubelet/plugins_registry/nodeatlas.io-reg.sock", "");
    // The hook, the agent's state (one prepared claim) and that claim's spec.
    t.file("usr/local/libexec/nodeatlas/cpuset-hook", "#!/bin/sh\n");
    Files.setPosixFilePermissions(root.resolve("usr/local/libexec/nodeatlas/cpuset-hook"), PosixFilePermissions.fromString("rwxr-xr-x"));
    writeCheckpoint(BOOT);
    t.file("var/run/cdi/nodeatlas.io-claim_" + CLAIM_UID + ".json", claimSpec(CLAIM_UID, 1, 3));
    t.dir("etc/cdi");
    health = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    health.createContext("/", ex -> {
      byte[] ok = "ok".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, ok.length);
      ex.getResponseBody().write(ok);
      ex.close();
    });
    health.start();
  }

  @AfterEach
  void stop() {
    health.stop(0);
  }

  private void writeCheckpoint(String boot) throws Exception {
    Path state = root.resolve("var/lib/nodeatlas");
    Files.createDirectories(state);
    Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
    CheckpointCodec codec = new CheckpointCodec();
    PreparedClaim claim = new PreparedClaim(new ClaimRef("default", "pod-gpu", CLAIM_UID), List.of(
        new PreparedDevice(List.of("req"), "node-a", "cpu-numa0", List.of("nodeatlas.io/claim=" + CLAIM_UID + "-cpu-numa0"))));
    TreeMap<String, CheckpointCodec.Entry> claims = new TreeMap<>();
    claims.put(CLAIM_UID, codec.entry(claim));
    Files.write(state.resolve("checkpoint.json"), codec.encode(claims, Map.of(), new CheckpointCodec.Boot(boot, new TreeSet<>())));
  }

  static String claimSpec(String uid, int major, int minor) {
    return """
        {"cdiVersion": "0.6.0", "kind": "nodeatlas.io/claim", "devices": [{"name": "%s-cpu-numa0",
          "containerEdits": {"deviceNodes": [{"path": "/dev/null", "type": "c", "major": %d, "minor": %d}],
            "hooks": [{"hookName": "createRuntime", "path": "/usr/local/libexec/nodeatlas/cpuset-hook"}]}}]}
        """.formatted(uid, major, minor);
  }

  private Result doctor(String... more) {
    List<String> args = new ArrayList<>(List.of("doctor", "--host-root", root.toString(), "--dev-root", "/dev",
        "--sources", "cpu-numa", "--reserved-cpus", "0", "--http-port", String.valueOf(health.getAddress().getPort())));
    args.addAll(List.of(more));
    return run(args.toArray(String[]::new));
  }

  private static List<JsonNode> notOk(Result r) throws Exception {
    JsonNode doc = new ObjectMapper().readTree(r.out());
    List<JsonNode> out = new ArrayList<>();
    doc.get("findings").forEach(f -> {
      if (!f.get("result").asText().equals("ok")) {
        out.add(f);
      }
    });
    return out;
  }

  @Test
  void aHealthyNodeGivesNoWarningAndExitsZero() throws Exception {
    Result r = doctor("-o", "json");
    assertThat(notOk(r)).as(r.out() + r.err()).isEmpty();
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode doc = new ObjectMapper().readTree(r.out());
    List<String> checks = new ArrayList<>();
    doc.get("findings").forEach(f -> checks.add(f.get("check").asText()));
    assertThat(checks).contains("runtime.containerd", "cdi.specs", "agent.state", "agent.checkpoint",
        "kubelet.registration", "agent.health", "cpu.hook", "cpu.cgroup", "hugepages", "cpu.reserved");
  }

  @Test
  void theTableStartsWithTheVerdict() {
    Result r = doctor();
    assertThat(r.out().lines().findFirst().orElseThrow())
        .isEqualTo("nodeatlas doctor: ready (0 failed, 0 warnings, 11 ok; host root " + root + ")");
  }

  static Stream<Arguments> problems() {
    return Stream.of(
        Arguments.of("containerd 1.7 without enable_cdi", (Planter) t -> t.file("etc/containerd/config.toml",
            "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  sandbox_image = \"pause:3.10\"\n"),
            "runtime.containerd", "fail", "leaves CDI off", "set enable_cdi = true under [plugins.\"io.containerd.grpc.v1.cri\"]"),
        Arguments.of("containerd 2 reading only /etc/cdi", (Planter) t -> t
                .file("var/lib/dpkg/status", "Package: containerd.io\nStatus: install ok installed\nVersion: 2.1.4-1\n")
                .file("etc/containerd/config.toml", "version = 3\n[plugins.\"io.containerd.cri.v1.runtime\"]\n"
                    + "  cdi_spec_dirs = [\"/etc/cdi\"]\n"),
            "runtime.containerd", "fail", "not from /var/run/cdi",
            "add \"/var/run/cdi\" to cdi_spec_dirs under [plugins.\"io.containerd.cri.v1.runtime\"]"),
        Arguments.of("CRI-O whose drop-in leaves out our directory", (Planter) t -> t
                .delete("etc/containerd/config.toml").file("var/lib/dpkg/status", "")
                .file("etc/crio/crio.conf", "[crio.runtime]\ncdi_spec_dirs = [\"/etc/cdi\", \"/var/run/cdi\"]\n")
                .file("etc/crio/crio.conf.d/20-site.conf", "[crio.runtime]\ncdi_spec_dirs = [\"/opt/cdi\"]\n"),
            "runtime.cri-o", "fail", "reads CDI specs from /opt/cdi", "to cdi_spec_dirs under [crio.runtime]"),
        Arguments.of("a spec whose device node was renumbered", (Planter) t -> t
                .file("var/run/cdi/nodeatlas.io-claim_" + CLAIM_UID + ".json", claimSpec(CLAIM_UID, 1, 5)),
            "cdi.devices", "fail", "/dev/null is 1:3, the spec says 1:5", "nodeatlas cdi generate"),
        Arguments.of("a vendor's spec naming a missing device", (Planter) t -> t.file("etc/cdi/vendor.yaml",
                "cdiVersion: 0.6.0\nkind: example.com/fpga\ndevices:\n- name: f0\n  containerEdits:\n"
                    + "    deviceNodes:\n    - path: /dev/no-such-fpga0\n"),
            "cdi.devices", "fail", "device node /dev/no-such-fpga0 does not exist", "load the device's driver"),
        Arguments.of("a device defined twice", (Planter) t -> t.file("etc/cdi/copy.json", claimSpec(CLAIM_UID, 1, 3)),
            "cdi.specs", "fail", "nodeatlas.io/claim=" + CLAIM_UID + "-cpu-numa0 is defined by", "remove the stale file"),
        Arguments.of("the hook is missing", (Planter) t -> t.delete("usr/local/libexec/nodeatlas/cpuset-hook"),
            "cpu.hook", "fail", "does not exist", "systemd/install.sh"),
        Arguments.of("a claim spec without its claim", (Planter) t -> t
                .file("var/run/cdi/nodeatlas.io-claim_11111111-2222-4333-8444-555555555555.json",
                    claimSpec("11111111-2222-4333-8444-555555555555", 1, 3)),
            "agent.specs", "warn", "belonging to no prepared claim", "delete /var/run/cdi/nodeatlas.io-claim_1111"),
        Arguments.of("a prepared claim without its spec", (Planter) t -> t
                .delete("var/run/cdi/nodeatlas.io-claim_" + CLAIM_UID + ".json"),
            "agent.specs", "fail", "1 prepared claim without a CDI spec", "delete the pod, or restart the agent"),
        Arguments.of("the kubelet runs with another root", (Planter) t -> t.bytes("proc/4242/cmdline",
                "/usr/local/bin/kubelet\0--root-dir\0/data/kubelet\0--config=/var/lib/kubelet/config.yaml\0".getBytes(StandardCharsets.UTF_8)),
            "kubelet.root", "fail", "--root-dir /data/kubelet", "--kubelet-root /data/kubelet"),
        Arguments.of("not registered with the kubelet", (Planter) t -> t.delete("var/lib/kubelet/plugins_registry/nodeatlas.io-reg.sock"),
            "kubelet.registration", "warn", "has no registration socket", "start the agent"),
        Arguments.of("the kubelet reserves other CPUs", (Planter) t -> t.file("var/lib/kubelet/config.yaml",
                "kind: KubeletConfiguration\nreservedSystemCPUs: \"0-1\"\n"),
            "cpu.reserved", "warn", "reserves CPUs 0-1", "--reserved-cpus 0-1"),
        Arguments.of("the kubelet's static CPU manager", (Planter) t -> t.file("var/lib/kubelet/config.yaml",
                "kind: KubeletConfiguration\nreservedSystemCPUs: \"0\"\ncpuManagerPolicy: static\n"),
            "cpu.reserved", "warn", "policy is static", "cpuManagerPolicy: none"),
        Arguments.of("no cpuset controller", (Planter) t -> t.value("sys/fs/cgroup/cgroup.controllers", "cpu io memory pids"),
            "cpu.cgroup", "warn", "without the cpuset controller", "cgroup_disable=cpuset"));
  }

  @FunctionalInterface
  interface Planter {
    void plant(FixtureTree tree) throws Exception;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("problems")
  void eachPlantedProblemIsNamedWithItsFix(String what, Planter planter, String check, String verdict, String saw, String fix)
      throws Exception {
    planter.plant(FixtureTree.at(root));
    Result r = doctor("-o", "json");
    List<JsonNode> found = notOk(r);
    // A missing hook is also a spec whose hook is missing: both name it.
    List<String> expected = check.equals("cpu.hook") ? List.of("cdi.hooks", check) : List.of(check);
    assertThat(found).as(what + ": " + r.out() + r.err()).extracting(f -> f.get("check").asText())
        .containsExactlyInAnyOrderElementsOf(expected);
    JsonNode f = found.stream().filter(x -> x.get("check").asText().equals(check)).findFirst().orElseThrow();
    assertThat(f.get("check").asText()).isEqualTo(check);
    assertThat(f.get("result").asText()).isEqualTo(verdict);
    assertThat(f.get("saw").asText()).contains(saw);
    assertThat(f.get("fix").asText()).contains(fix);
    assertThat(r.status()).as("exit status").isEqualTo(verdict.equals("fail") ? 1 : 0);
  }

  @Test
  void aWorldWritableStateDirectoryFails() throws Exception {
    Files.setPosixFilePermissions(root.resolve("var/lib/nodeatlas"), PosixFilePermissions.fromString("rwxrwxrwx"));
    Result r = doctor("-o", "json");
    assertThat(notOk(r)).singleElement().satisfies(f -> {
      assertThat(f.get("check").asText()).isEqualTo("agent.state");
      assertThat(f.get("fix").asText()).isEqualTo("chmod 0700 /var/lib/nodeatlas");
    });
    assertThat(r.status()).isEqualTo(1);
  }

  @Test
  void afterARebootTheSpecsOnTmpfsAreGoneAndDoctorSaysWhy() throws Exception {
    writeCheckpoint("00000000-aaaa-4bbb-8ccc-dddddddddddd");
    FixtureTree.at(root).delete("var/run/cdi/nodeatlas.io-claim_" + CLAIM_UID + ".json");
    Result r = doctor("-o", "json");
    assertThat(notOk(r)).singleElement().satisfies(f -> {
      assertThat(f.get("check").asText()).isEqualTo("agent.reboot");
      assertThat(f.get("saw").asText()).contains("from an earlier boot").contains("/var/run/cdi is tmpfs, so 1 of their specs are gone");
    });
  }

  @Test
  void claimSpecsWithoutACheckpointAskForRecover() throws Exception {
    Files.delete(root.resolve("var/lib/nodeatlas/checkpoint.json"));
    Result r = doctor("-o", "json");
    assertThat(notOk(r)).singleElement().satisfies(f -> {
      assertThat(f.get("check").asText()).isEqualTo("agent.checkpoint");
      assertThat(f.get("fix").asText()).contains("--recover");
    });
    assertThat(r.status()).isEqualTo(1);
  }

  @Test
  void claimsWithDevicesMadeAtPrepareSayWhatToDoBeforeARollback() throws Exception {
    // A partition created for the claim at Prepare: its record is the placement on a device held whole.
    Path state = root.resolve("var/lib/nodeatlas");
    CheckpointCodec codec = new CheckpointCodec();
    PreparedClaim claim = new PreparedClaim(new ClaimRef("default", "pod-gpu", CLAIM_UID), List.of(
        new PreparedDevice(List.of("req"), "node-a", "cpu-numa0", List.of("nodeatlas.io/claim=" + CLAIM_UID + "-cpu-numa0"),
            "", Map.of(), new io.nodeatlas.discovery.share.Placement(1, "{\"kind\":\"example.com/made\"}"))));
    TreeMap<String, CheckpointCodec.Entry> claims = new TreeMap<>();
    claims.put(CLAIM_UID, codec.entry(claim));
    Files.write(state.resolve("checkpoint.json"), codec.encode(claims, Map.of(), new CheckpointCodec.Boot(BOOT, new TreeSet<>())));
    Result r = doctor("-o", "json");
    assertThat(notOk(r)).as(r.out()).isEmpty();
    JsonNode rollback = null;
    for (JsonNode f : new ObjectMapper().readTree(r.out()).get("findings")) {
      if (f.get("check").asText().equals("agent.rollback")) {
        rollback = f;
      }
    }
    assertThat(rollback).as(r.out()).isNotNull();
    assertThat(rollback.get("saw").asText()).contains("1 prepared claim (default/pod-gpu (" + CLAIM_UID + ")) holds devices made at Prepare")
        .contains("refuses this checkpoint as corrupt", "before rolling back to such a release, delete the pods that use these claims")
        .doesNotContain("metadata");
  }

  @Test
  void claimsWithMetadataInTheirOwnSpecSayWhatToDoBeforeARollback() throws Exception {
    Path state = root.resolve("var/lib/nodeatlas");
    CheckpointCodec codec = new CheckpointCodec();
    PreparedClaim claim = new PreparedClaim(new ClaimRef("default", "pod-gpu", CLAIM_UID), List.of(
        new PreparedDevice(List.of("req"), "node-a", "cpu-numa0", List.of("nodeatlas.io/claim=" + CLAIM_UID + "-cpu-numa0",
            "nodeatlas.io/claim=" + CLAIM_UID + "-metadata_req"), "", Map.of(), io.nodeatlas.discovery.share.Placement.NONE)));
    TreeMap<String, CheckpointCodec.Entry> claims = new TreeMap<>();
    claims.put(CLAIM_UID, codec.entry(claim));
    Files.write(state.resolve("checkpoint.json"), codec.encode(claims, Map.of(), new CheckpointCodec.Boot(BOOT, new TreeSet<>())));
    JsonNode rollback = null;
    Result r = doctor("-o", "json");
    for (JsonNode f : new ObjectMapper().readTree(r.out()).get("findings")) {
      if (f.get("check").asText().equals("agent.rollback")) {
        rollback = f;
      }
    }
    assertThat(rollback).as(r.out()).isNotNull();
    assertThat(rollback.get("saw").asText()).contains("1 prepared claim (default/pod-gpu (" + CLAIM_UID + ")) holds device metadata")
        .contains("without the metadata mounts", "delete the pods that use these claims").doesNotContain("made at Prepare");
  }

  @Test
  void anAgentThatDoesNotAnswerFails() throws Exception {
    health.stop(0);
    Result r = doctor("-o", "yaml");
    assertThat(r.out()).contains("check: \"agent.health\"").contains("result: \"fail\"").contains("no answer");
    assertThat(r.status()).isEqualTo(1);
  }

  @Test
  void aSpecLinkedOutOfTheHostRootIsNotRead() throws Exception {
    Path outside = Files.createTempFile("outside", ".json");
    try {
      Files.writeString(outside, claimSpec(CLAIM_UID, 1, 3));
      FixtureTree.at(root).symlink("etc/cdi/link.json", outside.toString());
      Result r = doctor("-o", "json");
      assertThat(notOk(r)).singleElement().satisfies(f -> {
        assertThat(f.get("check").asText()).isEqualTo("cdi.specs");
        assertThat(f.get("saw").asText()).contains("/etc/cdi/link.json points outside the host root; not read");
      });
    } finally {
      Files.delete(outside);
    }
  }

  @Test
  void badUsageExitsTwo() {
    assertThat(doctor("-o", "xml").status()).isEqualTo(2);
    assertThat(doctor("--cdi-root", "relative/dir").status()).isEqualTo(2);
  }
}
