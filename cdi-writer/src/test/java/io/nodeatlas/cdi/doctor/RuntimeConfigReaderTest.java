package io.nodeatlas.cdi.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtimes' CDI settings as each runtime reads its files: containerd's config versions 1–3 and its
 * {@code imports}, CRI-O's drop-ins in name order, podman's containers.conf, and the defaults that
 * depend on the installed version (Debian's package database).
 */
class RuntimeConfigReaderTest {

  @TempDir Path root;

  private RuntimeConfig runtime(String name) {
    return new RuntimeConfigReader(HostFs.of(root)).read().stream().filter(r -> r.runtime().equals(name)).findFirst().orElseThrow();
  }

  private FixtureTree tree() {
    return FixtureTree.at(root);
  }

  private void dpkg(String pkg, String version) {
    tree().file("var/lib/dpkg/status", "Package: " + pkg + "\nStatus: install ok installed\nVersion: " + version + "\n\n");
  }

  @Test
  void nothingInstalledIsNothingInstalled() {
    assertThat(new RuntimeConfigReader(HostFs.of(root)).read()).noneMatch(RuntimeConfig::installed);
  }

  @Test
  void containerd17LeavesCdiOffUnlessEnabled() {
    dpkg("containerd", "1.7.24~ds1-1");
    tree().file("etc/containerd/config.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  sandbox_image = \"x\"\n");
    RuntimeConfig rc = runtime("containerd");
    assertThat(rc.cdiEnabled()).contains(false);
    assertThat(rc.specDirs()).containsExactly("/etc/cdi", "/var/run/cdi");
    assertThat(rc.nri()).contains(false);
    assertThat(rc.section()).isEqualTo("[plugins.\"io.containerd.grpc.v1.cri\"] in /etc/containerd/config.toml");

    tree().file("etc/containerd/config.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  enable_cdi = true\n"
        + "  cdi_spec_dirs = [\"/run/cdi\"]\n[plugins.\"io.containerd.nri.v1.nri\"]\n  disable = false\n");
    rc = runtime("containerd");
    assertThat(rc.cdiEnabled()).contains(true);
    assertThat(rc.specDirs()).containsExactly("/run/cdi");
    assertThat(rc.nri()).contains(true);
  }

  @Test
  void containerd2TurnsCdiOnByDefaultInItsVersion3Layout() {
    dpkg("containerd.io", "2.1.4-1");
    tree().file("etc/containerd/config.toml", "version = 3\n[plugins.\"io.containerd.cri.v1.runtime\"]\n"
        + "  cdi_spec_dirs = [\"/etc/cdi\", \"/var/run/cdi\"]\n");
    RuntimeConfig rc = runtime("containerd");
    assertThat(rc.cdiEnabled()).contains(true);
    assertThat(rc.nri()).contains(true);
    assertThat(rc.version()).contains("2.1.4-1");
    assertThat(rc.section()).startsWith("[plugins.\"io.containerd.cri.v1.runtime\"]");
  }

  @Test
  void containerdWithoutAFileRunsItsVersionsDefaults() {
    tree().file("usr/bin/containerd", "");
    RuntimeConfig unknown = runtime("containerd");
    assertThat(unknown.installed()).isTrue();
    assertThat(unknown.cdiEnabled()).as("1.7 and 2.x differ, and the version is unknown").isEmpty();
    dpkg("containerd", "2.0.0-1");
    assertThat(runtime("containerd").cdiEnabled()).contains(true);
    dpkg("containerd", "1.7.2-1");
    assertThat(runtime("containerd").cdiEnabled()).contains(false);
  }

  @Test
  void oldContainerdHasNoCdiWhateverItsFileSays() {
    dpkg("containerd", "1.6.20~ds1-1");
    tree().file("etc/containerd/config.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  enable_cdi = true\n");
    RuntimeConfig rc = runtime("containerd");
    assertThat(rc.cdiEnabled()).contains(false);
    assertThat(rc.notes()).anyMatch(n -> n.contains("older than 1.7"));
    tree().file("etc/containerd/config.toml", "[plugins.cri]\n  sandbox_image = \"x\"\n");
    dpkg("containerd", "1.4.13-1");
    assertThat(runtime("containerd").notes()).anyMatch(n -> n.contains("has no CDI"));
  }

  @Test
  void containerdImportsAreMergedLaterWins() {
    tree().file("etc/containerd/config.toml", "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n"
            + "[plugins.\"io.containerd.grpc.v1.cri\"]\n  enable_cdi = false\n")
        .file("etc/containerd/conf.d/50-cdi.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  enable_cdi = true\n")
        .file("etc/containerd/conf.d/README", "not toml");
    RuntimeConfig rc = runtime("containerd");
    assertThat(rc.files()).containsExactly("/etc/containerd/config.toml", "/etc/containerd/conf.d/50-cdi.toml");
    assertThat(rc.cdiEnabled()).contains(true);
  }

  @Test
  void crioDropInsOverrideInNameOrder() {
    tree().file("etc/crio/crio.conf", "[crio.runtime]\ncdi_spec_dirs = [\"/etc/cdi\"]\n")
        .file("etc/crio/crio.conf.d/10-a.conf", "[crio.runtime]\ncdi_spec_dirs = [\"/a\"]\n")
        .file("etc/crio/crio.conf.d/20-b.conf", "[crio.runtime]\ncdi_spec_dirs = [\"/b\", \"/var/run/cdi\"]\n[crio.nri]\nenable_nri = true\n");
    RuntimeConfig rc = runtime("cri-o");
    assertThat(rc.installed()).isTrue();
    assertThat(rc.specDirs()).containsExactly("/b", "/var/run/cdi");
    assertThat(rc.nri()).contains(true);
  }

  @Test
  void podmanReadsContainersConf() {
    tree().file("usr/bin/podman", "")
        .file("usr/share/containers/containers.conf", "[engine]\ncdi_spec_dirs = [\"/etc/cdi\"]\n")
        .file("etc/containers/containers.conf.d/99-local.conf", "[engine]\ncdi_spec_dirs = [\"/etc/cdi\", \"/srv/cdi\"]\n");
    RuntimeConfig rc = runtime("podman");
    assertThat(rc.specDirs()).containsExactly("/etc/cdi", "/srv/cdi");
    assertThat(RuntimeCdiCheck.findings(rc, "/var/run/cdi")).singleElement()
        .satisfies(f -> assertThat(f.fix()).contains("[engine] in /etc/containers/containers.conf"));
  }

  @Test
  void aBrokenFileIsANoteNotAnException() {
    tree().file("etc/containerd/config.toml", "version = = 2\n[[[");
    RuntimeConfig rc = runtime("containerd");
    assertThat(rc.installed()).isTrue();
    assertThat(rc.notes()).anyMatch(n -> n.startsWith("cannot read /etc/containerd/config.toml"));
    assertThat(RuntimeCdiCheck.findings(rc, "/var/run/cdi")).anyMatch(f -> f.saw().contains("cannot read"));
  }

  @Test
  void varRunIsRun() {
    assertThat(RuntimeCdiCheck.reads(List.of("/run/cdi/"), "/var/run/cdi")).isTrue();
    assertThat(RuntimeCdiCheck.reads(List.of("/etc/cdi"), "/var/run/cdi")).isFalse();
    assertThat(RuntimeConfigParser.major("1:2.1.4-1")).contains(2);
    assertThat(RuntimeConfigParser.minor("1.7.24~ds1-1")).contains(7);
    assertThat(RuntimeConfigParser.major("x")).isEqualTo(Optional.empty());
  }
}
