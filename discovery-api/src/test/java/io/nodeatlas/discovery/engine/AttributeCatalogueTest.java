package io.nodeatlas.discovery.engine;

import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import java.util.List;
import org.junit.jupiter.api.Test;

class AttributeCatalogueTest {

  private static final List<AttributeDoc> DOCS = List.of(
      AttributeDoc.attribute("gpu", Device.TYPE, "string", "", "gpu", "The device type."),
      AttributeDoc.attribute("gpu", Names.ours("productName"), "string", "", "NVIDIA A100-SXM4-40GB", "NVML's product name | raw."),
      AttributeDoc.capacity("gpu", Names.ours("memory"), "bytes", "40Gi", "Framebuffer memory."));

  private static final DiscoverySource SOURCE = new DiscoverySource() {
    @Override
    public String name() {
      return "gpu";
    }

    @Override
    public List<AttributeDoc> catalogue() {
      return DOCS;
    }

    @Override
    public DiscoveryResult discover(io.nodeatlas.discovery.host.HostContext host) {
      return DiscoveryResult.empty();
    }
  };

  @Test
  void rendersOneTablePerSourceAndTypeWithEscapedCells() {
    String md = AttributeCatalogue.render(List.of(SOURCE));
    assertThat(md).contains("## `gpu` devices (source `gpu`)")
        .contains("| `nodeatlas.io/productName` | attribute | string |  | `NVIDIA A100-SXM4-40GB` | NVML's product name \\| raw. |")
        .contains("| `nodeatlas.io/memory` | capacity | quantity | bytes | `40Gi` | Framebuffer memory. |");
    assertThat(md.indexOf("productName")).isLessThan(md.indexOf("nodeatlas.io/memory"));
  }

  @Test
  void publishedNamesMissingFromTheCatalogueAreListed() {
    Device ok = Device.builder("gpu-0", "gpu").attribute(Device.TYPE, "gpu").attribute(Names.ours("productName"), "A100")
        .capacity(Names.ours("memory"), 1).build();
    Device odd = Device.builder("gpu-1", "gpu").attribute(Device.TYPE, "gpu").attribute(Names.ours("productName"), 7)
        .attribute(Names.ours("brand"), "tesla").build();
    assertThat(AttributeCatalogue.undocumented(DOCS, List.of(ok))).isEmpty();
    assertThat(AttributeCatalogue.undocumented(DOCS, List.of(odd))).containsExactly(
        "gpu-1: nodeatlas.io/brand (string) is not in the catalogue of type gpu",
        "gpu-1: nodeatlas.io/productName is published as int but catalogued as string");
  }

  @Test
  void onlyCapacitiesAreQuantities() {
    assertThatThrownBy(() -> AttributeDoc.attribute("gpu", Names.ours("x"), "quantity", "", "", ""))
        .hasMessageContaining("only capacities, are quantities");
  }
}
