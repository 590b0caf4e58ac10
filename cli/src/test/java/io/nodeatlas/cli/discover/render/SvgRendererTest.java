package io.nodeatlas.cli.discover.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.discover.render.SvgCheck.TextItem;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/** {@code discover -o svg} read back as XML: what it draws where, and that nothing collides or escapes. */
class SvgRendererTest {

  static String svg(NodeReport report) {
    return new SvgRenderer(false).render(report);
  }

  /** The texts of the boxes that enclose {@code e}, innermost first (each box's first line: its title). */
  static List<String> enclosingTitles(Element e) {
    List<String> out = new ArrayList<>();
    for (Element r = SvgCheck.boxOf(e); r != null; r = SvgCheck.boxOf(r)) {
      Node n = r.getNextSibling();
      while (n != null && !(n instanceof Element t && t.getLocalName().equals("text"))) {
        n = n.getNextSibling();
      }
      out.add(n == null ? "" : SvgCheck.visibleText((Element) n));
    }
    return out;
  }

  static TextItem text(Document doc, String startsWith) {
    return SvgCheck.texts(doc).stream().filter(t -> t.text().startsWith(startsWith)).findFirst()
        .orElseThrow(() -> new AssertionError("no text starts with \"" + startsWith + "\""));
  }

  @Test
  void theTwoSocketNodeIsWellFormedSelfContainedAndNothingOverlaps() throws Exception {
    String out = svg(RenderFixtures.twoSocketNode());
    Document doc = SvgCheck.parse(out);
    Element root = doc.getDocumentElement();
    assertThat(root.getLocalName()).isEqualTo("svg");
    assertThat(root.getNamespaceURI()).isEqualTo(SvgCheck.SVG_NS);
    assertThat(root.getAttribute("viewBox")).isEqualTo("0 0 " + root.getAttribute("width") + " " + root.getAttribute("height"));
    // Self-contained: no script, image, foreign content, style sheet or link to anything outside.
    for (String name : List.of("script", "image", "foreignObject", "style", "a", "use")) {
      assertThat(SvgCheck.elements(doc, name)).as(name).isEmpty();
    }
    assertThat(out).doesNotContain("href").doesNotContain("url(").doesNotContain("@import");
    assertThat(SvgCheck.layoutProblems(doc)).isEmpty();
    // The page's own rectangle holds every other.
    SvgCheck.Area page = SvgCheck.rect(SvgCheck.elements(doc, "rect").get(0));
    assertThat(page.w()).isEqualTo(SvgCheck.num(root, "width"));
    assertThat(page.h()).isEqualTo(SvgCheck.num(root, "height"));
  }

  @Test
  void gpusAndNicsArePlacedUnderTheirSwitchHostBridgeAndNumaNode() throws Exception {
    Document doc = SvgCheck.parse(svg(RenderFixtures.twoSocketNode()));
    for (int g = 0; g < 8; g++) {
      int sw = g / 2;
      String switchAddress = RenderFixtures.bdf(RenderFixtures.BUSES[sw] + 1, 0, 0);
      TextItem name = text(doc, "gpu-" + g);
      assertThat(enclosingTitles(name.element())).as("gpu-" + g)
          .startsWith("gpu-" + g, "PCIe switch " + switchAddress, RenderFixtures.hostBridge(RenderFixtures.BUSES[sw]) + " · host bridge");
      TextItem numa = text(doc, "NUMA " + (g / 4) + " · package " + (g / 4));
      // Under its NUMA node: in the same column, below the node's box.
      assertThat(name.area().x()).isGreaterThanOrEqualTo(numa.box().x());
      assertThat(name.area().x() + name.area().w()).isLessThanOrEqualTo(numa.box().x() + numa.box().w() + 1e-9);
      assertThat(name.area().y()).isGreaterThan(numa.box().y() + numa.box().h());
    }
    for (int n = 0; n < 4; n++) {
      String switchAddress = RenderFixtures.bdf(RenderFixtures.BUSES[n] + 1, 0, 0);
      assertThat(enclosingTitles(text(doc, "rdma-mlx5-" + n).element())).element(1).isEqualTo("PCIe switch " + switchAddress);
    }
    // A card says what the device is: type and product, memory and link, address.
    List<String> gpu0 = SvgCheck.texts(doc).stream().filter(t -> t.box() != null && t.box().equals(text(doc, "gpu-0").box()))
        .map(TextItem::text).toList();
    assertThat(gpu0).containsExactly("gpu-0", "gpu · NVIDIA H100 80GB HBM3", "79.6Gi · x16 32.0 GT/s", "0000:18:00.0");
    // The chipset's host bridge leads to nothing published and is not drawn.
    assertThat(SvgCheck.texts(doc)).noneSatisfy(t -> assertThat(t.text()).startsWith("pci0000:00"));
  }

  @Test
  void numaBoxesHoldCoresMemoryAndHugepagesAndTheMemoryOnlyNodeStandsBesideItsInitiator() throws Exception {
    Document doc = SvgCheck.parse(svg(RenderFixtures.twoSocketNode()));
    TextItem numa0 = text(doc, "NUMA 0 · package 0");
    List<String> lines = SvgCheck.texts(doc).stream().filter(t -> t.box() != null && t.box().equals(numa0.box()))
        .map(TextItem::text).toList();
    assertThat(lines).contains("cpus 0-31,64-95", "memory 512Gi (480Gi free)", "hugepages 2Mi: 1024 pages, 1000 free",
        "32 cores: 32 × 2 threads");
    // One cell per core, inside the node's box, named by its CPUs.
    List<TextItem> cells = SvgCheck.texts(doc).stream().filter(t -> t.text().matches("\\d+,\\d+")).toList();
    assertThat(cells).hasSize(64);
    assertThat(cells).filteredOn(t -> t.box().inside(numa0.box())).hasSize(32)
        .anySatisfy(t -> assertThat(t.text()).isEqualTo("0,64")).anySatisfy(t -> assertThat(t.text()).isEqualTo("31,95"));
    TextItem cxl = text(doc, "NUMA 2 · memory only");
    List<String> cxlLines = SvgCheck.texts(doc).stream().filter(t -> t.box() != null && t.box().equals(cxl.box()))
        .map(TextItem::text).toList();
    assertThat(cxlLines).contains("memory 64Gi (64Gi free)", "memory tier 4", "initiators: node 0", "local to cpus 0-31,64-95");
    assertThat(cxl.box().x()).isEqualTo(numa0.box().x());
  }

  @Test
  void devicesWithoutAPciPlaceAndWarningsAreListed() throws Exception {
    Document doc = SvgCheck.parse(svg(RenderFixtures.noPciTree()));
    assertThat(SvgCheck.layoutProblems(doc)).isEmpty();
    TextItem list0 = text(doc, "devices without a PCI place · NUMA 0");
    List<String> lines = SvgCheck.texts(doc).stream().filter(t -> t.box() != null && t.box().equals(list0.box()))
        .map(TextItem::text).toList();
    assertThat(lines).contains("cpu-numa0 · cpu · 64 CPUs")
        .anySatisfy(l -> assertThat(l).startsWith("gpu-0 · gpu · NVIDIA H100 80GB HBM3 · 79.6Gi"));
    assertThat(text(doc, "no PCI tree in this report")).isNotNull();
    assertThat(text(doc, "2 warnings, 1 source not OK")).isNotNull();
    assertThat(text(doc, "source accel: unavailable: no AMD or Intel GPU")).isNotNull();
  }

  @Test
  void hostileTextIsEscapedCutAndKeptWholeInATitle() throws Exception {
    String out = svg(RenderFixtures.hostile());
    // No raw control character reaches the document; markup in host text is text, not markup.
    assertThat(out.chars().filter(c -> c < 0x20 && c != '\n')).isEmpty();
    assertThat(out).doesNotContain("<script").doesNotContain("<b>");
    Document doc = SvgCheck.parse(out);
    assertThat(SvgCheck.elements(doc, "script")).isEmpty();
    assertThat(SvgCheck.layoutProblems(doc)).isEmpty();
    assertThat(text(doc, "nodeatlas topology · host<&\">\\x1b[2J")).isNotNull();
    TextItem product = text(doc, "gpu · <b>&\"x'\\x1b[31m");
    // Cut to the card, with the whole text in its <title>.
    assertThat(product.text()).endsWith("…");
    assertThat(product.title()).isEqualTo("gpu · <b>&\"x'\\x1b[31mred\\nline\\u202e\\x00");
    assertThat(text(doc, "gpu: </text><script>alert(1)</script>\\x1b]0;title\\x07 & \"quoted\"")).isNotNull();
    TextItem longWarning = text(doc, "nic-rdma: xxx");
    assertThat(longWarning.text()).endsWith("…");
    assertThat(longWarning.title()).startsWith("nic-rdma: xxx").hasSizeLessThan(600);
    // Attributes hold only our own values.
    for (Element e : SvgCheck.elements(doc, "text")) {
      NamedNodeMap attributes = e.getAttributes();
      for (int i = 0; i < attributes.getLength(); i++) {
        assertThat(attributes.item(i).getNodeName()).isIn("x", "y", "font-weight");
      }
    }
    // A function whose NUMA node is unknown gets the column of its own.
    assertThat(enclosingTitles(text(doc, "gpu-hostile").element())).contains("pci<ffff>:&\"00\\x1b · host bridge");
  }

  @Test
  void theLayoutCheckSeesOverlapsAndEscapes() throws Exception {
    Document broken = SvgCheck.parse("<svg xmlns=\"http://www.w3.org/2000/svg\"><g class=\"box\">"
        + "<rect x=\"0\" y=\"0\" width=\"400\" height=\"100\"/><text x=\"10\" y=\"20\">first</text>"
        + "<text x=\"14\" y=\"24\">second</text><g class=\"box\"><rect x=\"350\" y=\"50\" width=\"90\" height=\"20\"/>"
        + "<text x=\"352\" y=\"64\">far too wide</text></g></g></svg>");
    assertThat(SvgCheck.layoutProblems(broken))
        .anySatisfy(p -> assertThat(p).startsWith("\"first\" overlaps \"second\""))
        .anySatisfy(p -> assertThat(p).startsWith("text \"far too wide\"").contains("outside its box"))
        .anySatisfy(p -> assertThat(p).startsWith("box ").contains("outside its box"));
  }

  @Test
  void anEmptyReportIsAnEmptyButValidPicture() throws Exception {
    Document doc = SvgCheck.parse(svg(RenderFixtures.empty()));
    assertThat(SvgCheck.layoutProblems(doc)).isEmpty();
    assertThat(SvgCheck.texts(doc).stream().map(TextItem::text))
        .containsExactly("nodeatlas topology · -", "no PCI tree in this report", "nothing else was discovered");
  }

  @Test
  void wholePciDrawsFunctionsThatLeadToNothing() throws Exception {
    Document doc = SvgCheck.parse(new SvgRenderer(true).render(RenderFixtures.twoSocketNode()));
    assertThat(SvgCheck.layoutProblems(doc)).isEmpty();
    assertThat(enclosingTitles(text(doc, "0000:01:00.0").element())).contains("pci0000:00 · host bridge");
    assertThat(text(doc, "144d:a80a class 010802")).isNotNull();
  }

  @Test
  void theSameReportGivesTheSameBytesAlsoWhenSaved() {
    NodeReport report = RenderFixtures.twoSocketNode();
    NodeReportCodec codec = new NodeReportCodec();
    assertThat(svg(codec.fromJson(codec.toJson(report))).lines()).containsExactlyElementsOf(
        svg(RenderFixtures.withoutReasons(report)).lines().toList());
    assertThat(svg(RenderFixtures.twoSocketNode())).isEqualTo(svg(report));
    assertThat(Optional.of(svg(report))).get().asString().startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ");
  }
}
