package io.nodeatlas.discovery.accel;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Arbitrary bytes in any file the source parses cost at most warnings: discovery never throws, the
 * three GPUs of {@link AccelNode} are still published (a vendor id turned into another vendor's
 * {@code nvidia} driver is impossible: the driver is a link), and whatever is published is valid and
 * catalogued (the {@link Device} constructor checks names and limits).
 */
class DiscoveryFuzzTest {

  private static final List<String> PARSED_FILES = List.of(
      AccelNode.AMD_GPU + "/drm/card1/dev", AccelNode.AMD_GPU + "/drm/renderD129/dev",
      AccelNode.AMD_GPU + "/vendor", AccelNode.AMD_GPU + "/device", AccelNode.AMD_GPU + "/class",
      AccelNode.AMD_GPU + "/numa_node", AccelNode.AMD_GPU + "/current_link_speed",
      AccelNode.AMD_GPU + "/product_name", AccelNode.AMD_GPU + "/product_number", AccelNode.AMD_GPU + "/serial_number",
      AccelNode.AMD_GPU + "/unique_id", AccelNode.AMD_GPU + "/vbios_version", AccelNode.AMD_GPU + "/mem_info_vram_total",
      AccelNode.AMD_GPU + "/mem_info_vis_vram_total", "sys/devices/virtual/kfd/kfd/dev",
      AccelNode.INTEL_XE + "/tile0/physical_vram_size_bytes", AccelNode.INTEL_XE + "/tile1/physical_vram_size_bytes",
      AccelNode.INTEL_IGPU + "/drm/card0/dev", AccelNode.INTEL_IGPU + "/subsystem_device", AccelNode.PCI_IDS);

  private static Path fuzzRoot;

  @FuzzTest
  void anyBytesInAnyFileCostAtMostWarnings(FuzzedDataProvider data) throws IOException {
    if (fuzzRoot == null) {
      fuzzRoot = Files.createTempDirectory("accel-fuzz");
      AccelNode.write(fuzzRoot);
    }
    Path path = fuzzRoot.resolve(PARSED_FILES.get(data.consumeInt(0, PARSED_FILES.size() - 1)));
    byte[] original = Files.readAllBytes(path);
    try {
      Files.write(path, data.consumeRemainingAsBytes());
      DiscoveryResult r = new AccelSource().discover(HostContext.of(HostFs.of(fuzzRoot)));
      assertThat(r.devices()).extracting(Device::name)
          .containsExactly("accel-0000-00-02-0", "accel-0000-03-00-0", "accel-0000-41-00-0");
      assertThat(AttributeCatalogue.undocumented(new AccelSource().catalogue(), r.devices())).isEmpty();
      assertThat(r.warnings()).hasSizeLessThanOrEqualTo(2);
    } finally {
      Files.write(path, original);
    }
  }
}
