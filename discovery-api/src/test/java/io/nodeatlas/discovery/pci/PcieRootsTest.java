package io.nodeatlas.discovery.pci;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcieRootsTest {

  @TempDir Path root;

  @Test
  void rootIsTheHostBridgeAboveTheFunctionEvenThroughSwitches() {
    // GPU0 of the synthetic node (the synthetic HGX-like node), three switch levels below pci0000:15.
    FixtureTree.at(root).symlink("sys/bus/pci/devices/0000:18:00.0",
        "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0");
    assertThat(PcieRoots.of(HostFs.of(root), "0000:18:00.0")).contains("pci0000:15");
  }

  @Test
  void danglingLinksStillResolveLexically() {
    FixtureTree.at(root).symlink("sys/bus/pci/devices/0030:01:00.0", "../../../devices/pci0030:00/0030:00:00.0/0030:01:00.0");
    assertThat(PcieRoots.of(HostFs.of(root), "0030:01:00.0")).contains("pci0030:00");
  }

  @Test
  void noRootForMissingEntriesOrVirtualDevices() {
    FixtureTree.at(root).symlink("sys/bus/pci/devices/0000:00:04.0", "../../../devices/virtual/net/x")
        .symlink("sys/bus/pci/devices/0000:00:05.0", "/somewhere/else");
    HostFs fs = HostFs.of(root);
    assertThat(PcieRoots.of(fs, "0000:00:04.0")).isEmpty();
    assertThat(PcieRoots.of(fs, "0000:00:05.0")).isEmpty();
    assertThat(PcieRoots.of(fs, "0000:99:00.0")).isEmpty();
    assertThat(PcieRoots.ofSysfsPath(Path.of("devices/pci0000:00"))).isEmpty();
  }
}
