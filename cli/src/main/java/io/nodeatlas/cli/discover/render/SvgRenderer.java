package io.nodeatlas.cli.discover.render;

import io.nodeatlas.cli.discover.render.NodeView.CacheGroup;
import io.nodeatlas.cli.discover.render.NodeView.Place;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.PciTree.PciNode;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * {@code discover -o svg}: one self-contained SVG (no fonts, scripts, styles or images from elsewhere).
 * One column per NUMA node with CPUs: the node's box (CPUs, memory, hugepage pools, a cell per core),
 * the memory-only nodes whose initiators it holds, then its PCI host bridges with their switches and the
 * functions that carry published devices (a card each: names, type and product, key facts, address), then
 * its devices without a PCI place. Functions whose NUMA node is unknown get a column of their own;
 * warnings close the picture.
 *
 * <p>Layout is plain arithmetic over a monospace estimate ({@link #COLUMN_WIDTH} per column, above the
 * 0.602 em advance of DejaVu Sans Mono and its metric twins), so the same report always gives the same
 * bytes. Every label is cut to fit its box; a cut label carries the whole text in a {@code <title>}.
 */
final class SvgRenderer {

  static final int FONT_SIZE = 12;
  /** The width estimate of one text column at {@link #FONT_SIZE}: 0.62 em, a little over a real monospace advance. */
  static final double COLUMN_WIDTH = 0.62 * FONT_SIZE;
  static final int LINE_HEIGHT = 16;
  /** Where the baseline sits below the top of a line: room for the ascent above and the descent below. */
  static final int BASELINE = 12;
  static final int PAD = 8;
  static final int GAP = 10;
  /** Text columns of a device card, of a NUMA box, and of the page-wide header and warning lines. */
  static final int CARD_CHARS = 30;
  static final int BOX_CHARS = 46;
  static final int WIDE_CHARS = 110;
  static final int CARDS_PER_ROW = 3;
  static final int CORES_PER_ROW = 8;
  /** More cores than this are summed up, not drawn one by one. */
  static final int MAX_CORE_CELLS = 256;
  static final int MAX_LISTED_DEVICES = 16;
  static final int MAX_LISTED_WARNINGS = 12;
  static final String FONT_FAMILY = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace";

  private final boolean wholePci;

  SvgRenderer(boolean wholePci) {
    this.wholePci = wholePci;
  }

  /** Pixels {@code columns} text columns take. */
  static int textWidth(int columns) {
    return (int) Math.ceil(columns * COLUMN_WIDTH);
  }

  // ---------------------------------------------------------------- layout boxes

  /** A line of text: what is shown (already cut) and, when cut, the whole text. */
  record Label(String shown, String full, boolean bold) {}

  /** Colours of a box. */
  record Paint(String fill, String stroke, boolean dashed) {}

  static final Paint PAGE = new Paint("#ffffff", "#c8c8c8", false);
  static final Paint NUMA = new Paint("#eaf1fb", "#4a6fa5", false);
  static final Paint MEMORY_ONLY = new Paint("#f3e8fa", "#8e5bb5", false);
  static final Paint CORE = new Paint("#ffffff", "#9db4d6", false);
  static final Paint HOST_BRIDGE = new Paint("#f4f4f4", "#8a8a8a", false);
  static final Paint SWITCH = new Paint("#fff4e0", "#c98a1b", false);
  static final Paint GPU = new Paint("#e6f4e8", "#2e7d32", false);
  static final Paint NETWORK = new Paint("#e4f0fb", "#1f6fb2", false);
  static final Paint OTHER = new Paint("#fafafa", "#8a8a8a", false);
  static final Paint UNPUBLISHED = new Paint("#ffffff", "#b0b0b0", true);
  static final Paint WARNINGS = new Paint("#fff4e5", "#d9822b", false);

  /**
   * A box: lines of text at its top, then its children in rows of at most {@code perRow}. A box without
   * paint is only an arrangement (no rectangle, no text, no padding).
   */
  static final class Box {
    final Paint paint;
    final int chars;
    final int minChars;
    final int pad;
    final int perRow;
    final List<Label> labels = new ArrayList<>();
    final List<Box> children = new ArrayList<>();
    int x;
    int y;
    int w;
    int h;

    Box(Paint paint, int chars, int minChars, int pad, int perRow) {
      this.paint = paint;
      this.chars = chars;
      this.minChars = minChars;
      this.pad = paint == null ? 0 : pad;
      this.perRow = Math.max(1, perRow);
    }

    static Box arrangement(int perRow) {
      return new Box(null, 0, 0, 0, perRow);
    }

    /** Adds a line, cut to the box's width; empty text adds nothing. */
    Box line(String text, boolean bold) {
      if (text != null && !text.isEmpty()) {
        String shown = Text.cut(text, chars);
        labels.add(new Label(shown, shown.equals(text) ? null : text, bold));
      }
      return this;
    }

    Box line(String text) {
      return line(text, false);
    }

    Box add(Box child) {
      children.add(child);
      return child;
    }

    void measure() {
      int textColumns = minChars;
      for (Label l : labels) {
        textColumns = Math.max(textColumns, Text.width(l.shown()));
      }
      int contentW = textColumns == 0 ? 0 : textWidth(textColumns);
      int contentH = labels.size() * LINE_HEIGHT;
      List<List<Box>> rows = rows();
      if (!rows.isEmpty() && !labels.isEmpty()) {
        contentH += GAP / 2;
      }
      for (int r = 0; r < rows.size(); r++) {
        int rowW = 0;
        int rowH = 0;
        for (Box c : rows.get(r)) {
          c.measure();
          rowW += (rowW == 0 ? 0 : GAP) + c.w;
          rowH = Math.max(rowH, c.h);
        }
        if (perRow > 1) {
          // Boxes side by side end on one line (cards of one switch, cores of one node).
          for (Box c : rows.get(r)) {
            c.h = rowH;
          }
        }
        contentW = Math.max(contentW, rowW);
        contentH += (r == 0 ? 0 : GAP) + rowH;
      }
      w = contentW + 2 * pad;
      h = contentH + 2 * pad;
      if (perRow == 1) {
        // Boxes one above the other share the widest one's width, and their lines may use it.
        for (Box c : children) {
          c.widen(contentW);
        }
      }
    }

    /** Makes a measured box {@code width} wide (never narrower), its lines cut again to the new width. */
    void widen(int width) {
      if (paint == null || width <= w) {
        return;
      }
      w = width;
      int columns = (int) Math.floor((w - 2 * pad) / COLUMN_WIDTH);
      for (int i = 0; i < labels.size(); i++) {
        Label l = labels.get(i);
        String text = l.full() == null ? l.shown() : l.full();
        String shown = Text.cut(text, Math.max(columns, Text.width(l.shown())));
        labels.set(i, new Label(shown, shown.equals(text) ? null : text, l.bold()));
      }
      if (perRow == 1) {
        for (Box c : children) {
          c.widen(w - 2 * pad);
        }
      }
    }

    void place(int px, int py) {
      x = px;
      y = py;
      int cy = py + pad + labels.size() * LINE_HEIGHT + (labels.isEmpty() || children.isEmpty() ? 0 : GAP / 2);
      for (List<Box> row : rows()) {
        int cx = px + pad;
        int rowH = 0;
        for (Box c : row) {
          c.place(cx, cy);
          cx += c.w + GAP;
          rowH = Math.max(rowH, c.h);
        }
        cy += rowH + GAP;
      }
    }

    private List<List<Box>> rows() {
      List<List<Box>> rows = new ArrayList<>();
      for (int i = 0; i < children.size(); i += perRow) {
        rows.add(children.subList(i, Math.min(children.size(), i + perRow)));
      }
      return rows;
    }

    void emit(StringBuilder out, String indent) {
      if (paint == null) {
        out.append(indent).append("<g>\n");
      } else {
        out.append(indent).append("<g class=\"box\">\n");
        out.append(indent).append(" <rect x=\"").append(x).append("\" y=\"").append(y).append("\" width=\"").append(w)
            .append("\" height=\"").append(h).append("\" rx=\"4\" fill=\"").append(paint.fill())
            .append("\" stroke=\"").append(paint.stroke()).append('"')
            .append(paint.dashed() ? " stroke-dasharray=\"4 3\"" : "").append("/>\n");
        for (int i = 0; i < labels.size(); i++) {
          Label l = labels.get(i);
          out.append(indent).append(" <text x=\"").append(x + pad).append("\" y=\"")
              .append(y + pad + i * LINE_HEIGHT + BASELINE).append('"')
              .append(l.bold() ? " font-weight=\"bold\"" : "").append('>');
          if (l.full() != null) {
            out.append("<title>").append(xml(l.full())).append("</title>");
          }
          out.append(xml(l.shown())).append("</text>\n");
        }
      }
      for (Box c : children) {
        c.emit(out, indent + " ");
      }
      out.append(indent).append("</g>\n");
    }
  }

  /** XML character data and attribute text: the five markup characters as entities. */
  static String xml(String text) {
    StringBuilder out = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&apos;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  // ---------------------------------------------------------------- the picture

  String render(NodeReport report) {
    NodeView view = new NodeView(report, wholePci);
    Box page = new Box(PAGE, WIDE_CHARS, 0, 12, 1);
    page.line("nodeatlas topology · " + view.hostname(), true);
    String kernel = view.kernel();
    page.line((kernel.isEmpty() ? "" : "kernel " + kernel + " · ") + view.machineSummary());
    for (HugepageSize h : view.topology.hugepages()) {
      page.line("hugepages " + Text.bytes(h.pageSizeBytes()) + ": " + Text.count(h.total(), "page") + ", " + h.free()
          + " free" + (h.mounts().isEmpty() ? "" : " · mounted at "
              + h.mounts().stream().map(m -> Text.clean(m, 48)).collect(Collectors.joining(", "))));
    }
    PciTree pci = view.pci();
    int hidden = view.hiddenInTree();
    page.line(pci.isEmpty() ? "no PCI tree in this report"
        : "PCI: " + Text.count(pci.hostBridges().size(), "host bridge")
            + (hidden > 0 ? " · " + Text.count(hidden, "PCI node") + " leading to no published device not drawn (--whole-pci draws them)" : ""));

    Map<String, Box> columns = columns(view);
    if (!columns.isEmpty()) {
      Box row = page.add(Box.arrangement(columns.size()));
      columns.values().forEach(row::add);
    } else {
      page.line("nothing else was discovered");
    }
    trouble(view).ifPresent(page::add);

    page.measure();
    page.place(0, 0);
    StringBuilder out = new StringBuilder();
    out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(page.w).append("\" height=\"").append(page.h)
        .append("\" viewBox=\"0 0 ").append(page.w).append(' ').append(page.h).append("\" font-family=\"")
        .append(FONT_FAMILY).append("\" font-size=\"").append(FONT_SIZE).append("\" fill=\"#1a1a1a\">\n");
    out.append(" <title>").append(xml("nodeatlas topology of " + view.hostname())).append("</title>\n");
    page.emit(out, " ");
    out.append("</svg>\n");
    return out.toString();
  }

  /** The columns, left to right: by NUMA node (else package, else the machine), then "no NUMA node". */
  private Map<String, Box> columns(NodeView view) {
    Map<String, Box> columns = new LinkedHashMap<>();
    Map<Integer, Box> byNuma = new TreeMap<>();
    Map<Integer, CpuSet> cpusByNuma = new TreeMap<>();
    Place machine = view.machine();
    List<Place> numaPlaces = new ArrayList<>();
    List<Place> memoryPlaces = new ArrayList<>();
    collect(machine, numaPlaces, memoryPlaces);

    for (Place p : numaPlaces) {
      Box column = Box.arrangement(1);
      column.add(numaBox(view, p, packageOf(machine, p)));
      columns.put("numa" + p.id, column);
      byNuma.put(p.id, column);
      cpusByNuma.put(p.id, p.cpus);
    }
    if (numaPlaces.isEmpty()) {
      List<Place> packages = machine.children.stream().filter(p -> p.kind == Place.Kind.PACKAGE).toList();
      for (Place p : packages) {
        columns.computeIfAbsent("package" + p.id, k -> Box.arrangement(1)).add(cpuBox(view, "package " + p.id, p));
      }
      if (packages.isEmpty() && (!machine.cpus.isEmpty() || !machine.cores.isEmpty())) {
        columns.computeIfAbsent("machine", k -> Box.arrangement(1)).add(cpuBox(view, "CPUs", machine));
      }
    }
    for (Place m : memoryPlaces) {
      NumaNodeInfo n = m.numa;
      Box target = n.initiatorNodes().stream().map(byNuma::get).filter(java.util.Objects::nonNull).findFirst()
          .or(() -> cpusByNuma.entrySet().stream()
              .filter(e -> !n.initiatorCpus().isEmpty() && e.getValue().containsAll(n.initiatorCpus()))
              .map(e -> byNuma.get(e.getKey())).findFirst())
          .orElseGet(() -> columns.computeIfAbsent("memory" + n.id(), k -> Box.arrangement(1)));
      target.add(memoryBox(m));
    }
    for (PciNode hb : view.shown(view.pci().hostBridges())) {
      Integer numa = NodeView.numaOf(hb);
      Box column = numa != null && byNuma.containsKey(numa) ? byNuma.get(numa) : noNuma(columns);
      column.add(hostBridge(view, hb, numa));
    }
    view.unplacedByNuma().forEach((numa, devices) -> {
      Box column = numa != null && byNuma.containsKey(numa) ? byNuma.get(numa) : noNuma(columns);
      column.add(deviceList(numa, devices));
    });
    return columns;
  }

  private static Box noNuma(Map<String, Box> columns) {
    return columns.computeIfAbsent("nonuma", k -> {
      Box c = Box.arrangement(1);
      c.add(new Box(OTHER, BOX_CHARS, 0, PAD, 1)).line("no NUMA node", true)
          .line("PCI functions and devices without NUMA locality");
      return c;
    });
  }

  private static void collect(Place p, List<Place> numa, List<Place> memory) {
    for (Place c : p.children) {
      if (c.kind == Place.Kind.NUMA) {
        numa.add(c);
      } else if (c.kind == Place.Kind.MEMORY_NODE) {
        memory.add(c);
      }
      collect(c, numa, memory);
    }
    numa.sort(java.util.Comparator.comparingInt(x -> x.id));
    memory.sort(java.util.Comparator.comparingInt(x -> x.id));
  }

  private static Optional<Place> packageOf(Place machine, Place numa) {
    return machine.children.stream().filter(p -> p.kind == Place.Kind.PACKAGE && p.children.contains(numa)).findFirst();
  }

  private static Box numaBox(NodeView view, Place p, Optional<Place> pkg) {
    Box box = new Box(NUMA, BOX_CHARS, 0, PAD, 1);
    box.line("NUMA " + p.id + pkg.map(k -> " · package " + k.id).orElse(""), true);
    box.line("cpus " + p.cpus);
    box.line(NodeView.memory(p.numa));
    for (HugepagePool pool : p.numa.hugepages()) {
      box.line("hugepages " + Text.bytes(pool.pageSizeBytes()) + ": " + Text.count(pool.total(), "page") + ", "
          + pool.free() + " free");
    }
    cores(box, p);
    return box;
  }

  private static Box cpuBox(NodeView view, String title, Place p) {
    Box box = new Box(NUMA, BOX_CHARS, 0, PAD, 1);
    box.line(title, true);
    box.line("cpus " + p.cpus);
    cores(box, p);
    return box;
  }

  /** The core summary and caches as lines, then a cell per core (its CPUs) while they are few enough to read. */
  private static void cores(Box box, Place p) {
    if (p.cores.isEmpty()) {
      return;
    }
    String types = NodeView.coreTypes(p.cores);
    box.line(Text.count(p.cores.size(), "core") + ": " + NodeView.coreSummary(p.cores) + (types.isEmpty() ? "" : " (" + types + ")"));
    List<CacheGroup> caches = NodeView.cacheGroups(p.caches);
    if (!caches.isEmpty()) {
      box.line("caches " + caches.stream().map(CacheGroup::summary).collect(Collectors.joining(", ")));
    }
    if (p.cores.size() > MAX_CORE_CELLS) {
      return;
    }
    List<String> labels = p.cores.stream().map(CoreInfo::cpus).map(c -> Text.cut(c.toString(), 11)).toList();
    int widest = labels.stream().mapToInt(Text::width).max().orElse(1);
    Box grid = box.add(Box.arrangement(CORES_PER_ROW));
    for (String l : labels) {
      grid.add(new Box(CORE, widest, widest, 3, 1)).line(l);
    }
  }

  private static Box memoryBox(Place m) {
    NumaNodeInfo n = m.numa;
    Box box = new Box(MEMORY_ONLY, BOX_CHARS, 0, PAD, 1);
    box.line("NUMA " + n.id() + " · memory only", true);
    box.line(NodeView.memory(n));
    if (n.memoryTier() != null) {
      box.line("memory tier " + n.memoryTier());
    }
    if (!n.initiatorNodes().isEmpty()) {
      box.line("initiators: node " + n.initiatorNodes().stream().map(String::valueOf).collect(Collectors.joining(",")));
    }
    if (!n.initiatorCpus().isEmpty()) {
      box.line("local to cpus " + n.initiatorCpus());
    }
    for (HugepagePool pool : n.hugepages()) {
      box.line("hugepages " + Text.bytes(pool.pageSizeBytes()) + ": " + Text.count(pool.total(), "page") + ", "
          + pool.free() + " free");
    }
    return box;
  }

  private Box hostBridge(NodeView view, PciNode hb, Integer numa) {
    Box box = new Box(HOST_BRIDGE, BOX_CHARS, 0, PAD, 1);
    box.line(NodeView.address(hb) + " · host bridge", true);
    box.line(numa == null ? "NUMA node unknown" : "NUMA " + numa);
    fill(view, box, hb);
    return box;
  }

  /** Switches below {@code node} as boxes, the functions below it (not behind a deeper switch) as cards. */
  private void fill(NodeView view, Box box, PciNode node) {
    List<Box> cards = new ArrayList<>();
    gather(view, box, node, cards);
    if (!cards.isEmpty()) {
      Box flow = box.add(Box.arrangement(CARDS_PER_ROW));
      cards.forEach(flow::add);
    }
  }

  private void gather(NodeView view, Box box, PciNode node, List<Box> cards) {
    for (PciNode child : view.shown(node.children())) {
      if (child.kind() == PciTree.Kind.SWITCH_UPSTREAM && child.devices().isEmpty()) {
        Box sw = box.add(new Box(SWITCH, BOX_CHARS, 0, PAD, 1));
        sw.line("PCIe switch " + NodeView.address(child), true);
        long devices = countDevices(child);
        sw.line(devices == 0 ? "no published device below" : Text.count(devices, "device") + " share pcieSwitch");
        fill(view, sw, child);
      } else if (child.kind() == PciTree.Kind.ENDPOINT || !child.devices().isEmpty()) {
        cards.add(card(view, child));
        gather(view, box, child, cards);
      } else {
        gather(view, box, child, cards);
      }
    }
  }

  private static long countDevices(PciNode n) {
    long[] count = {0};
    n.forEach(x -> count[0] += x.devices().size());
    return count[0];
  }

  /** A function's card: device names, type and product, key facts, PCI address. */
  private static Box card(NodeView view, PciNode n) {
    List<Device> devices = n.devices().stream().map(view::device).flatMap(Optional::stream).toList();
    Paint paint = n.devices().isEmpty() ? UNPUBLISHED : paint(devices);
    Box card = new Box(paint, CARD_CHARS, CARD_CHARS, PAD, 1);
    if (n.devices().isEmpty()) {
      card.line(NodeView.address(n), true);
      card.line(NodeView.ids(n));
      card.line("nothing published");
      return card;
    }
    card.line(n.devices().stream().map(NodeView::name).collect(Collectors.joining(", ")), true);
    List<String> details = devices.isEmpty() ? List.of() : NodeView.details(devices.get(0));
    String types = devices.stream().map(NodeView::type).distinct().collect(Collectors.joining("+"));
    card.line((types.isEmpty() ? "?" : types) + (details.isEmpty() ? "" : " · " + details.get(0)));
    // The other facts, packed into at most two lines of the card's width.
    StringBuilder line = new StringBuilder();
    int lines = 0;
    for (String d : details.subList(Math.min(1, details.size()), details.size())) {
      if (line.length() > 0 && Text.width(line + " · " + d) > CARD_CHARS && lines < 1) {
        card.line(line.toString());
        lines++;
        line.setLength(0);
      }
      line.append(line.length() == 0 ? "" : " · ").append(d);
    }
    card.line(line.toString());
    card.line(NodeView.address(n));
    return card;
  }

  private static Paint paint(List<Device> devices) {
    String type = devices.isEmpty() ? "" : devices.get(0).type().orElse("");
    return switch (type) {
      case "gpu", "mig" -> GPU;
      case "nic", "rdma", "vf" -> NETWORK;
      default -> OTHER;
    };
  }

  private static Box deviceList(Integer numa, List<Device> devices) {
    Box box = new Box(OTHER, BOX_CHARS, 0, PAD, 1);
    box.line("devices without a PCI place" + (numa == null ? "" : " · NUMA " + numa), true);
    for (Device d : devices.subList(0, Math.min(devices.size(), MAX_LISTED_DEVICES))) {
      List<String> parts = new ArrayList<>(List.of(NodeView.name(d.name()), NodeView.type(d)));
      parts.addAll(NodeView.details(d));
      box.line(String.join(" · ", parts));
    }
    if (devices.size() > MAX_LISTED_DEVICES) {
      box.line("… " + (devices.size() - MAX_LISTED_DEVICES) + " more (discover -o tree lists them all)");
    }
    return box;
  }

  private static Optional<Box> trouble(NodeView view) {
    List<String[]> warnings = view.warnings();
    List<String[]> sources = view.troubledSources();
    if (warnings.isEmpty() && sources.isEmpty()) {
      return Optional.empty();
    }
    Box box = new Box(WARNINGS, WIDE_CHARS, 0, PAD, 1);
    box.line(Text.count(warnings.size(), "warning") + (sources.isEmpty() ? "" : ", " + Text.count(sources.size(), "source") + " not OK"), true);
    for (String[] s : sources) {
      box.line("source " + s[0] + ": " + s[1] + (s[2].isEmpty() ? "" : ": " + s[2]));
    }
    for (String[] w : warnings.subList(0, Math.min(warnings.size(), MAX_LISTED_WARNINGS))) {
      box.line(w[0] + ": " + w[1]);
    }
    if (warnings.size() > MAX_LISTED_WARNINGS) {
      box.line("… " + (warnings.size() - MAX_LISTED_WARNINGS) + " more (discover -o tree lists them all)");
    }
    return Optional.of(box);
  }
}
