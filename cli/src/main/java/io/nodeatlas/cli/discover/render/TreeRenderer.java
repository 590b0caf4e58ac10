package io.nodeatlas.cli.discover.render;

import io.nodeatlas.cli.discover.render.NodeView.CacheGroup;
import io.nodeatlas.cli.discover.render.NodeView.Place;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.PciTree.PciNode;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import io.nodeatlas.discovery.report.NodeReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code discover -o tree}: the node as a terminal tree, in the spirit of {@code lstopo-no-graphics}.
 * Four sections: the machine (packages, NUMA nodes with memory and hugepage pools, memory-only nodes
 * with their tier and initiators, cores, caches), the PCI tree (host bridges, ports, switches, functions
 * with the devices published on them), the devices without a PCI place by NUMA node, and what went wrong
 * (warnings, sources that did not run). Within a section the columns line up; colour, when on, never
 * changes a column (it is added after padding).
 */
final class TreeRenderer {

  /** {@code colour}: ANSI colours; {@code caches}: one line per cache group; {@code wholePci}: no pruning. */
  record Options(boolean colour, boolean caches, boolean wholePci) {}

  /** How a cell looks when colours are on. */
  enum Style {
    PLAIN(""), HEAD("\u001b[1m"), NAME("\u001b[1;36m"), TYPE("\u001b[32m"), DIM("\u001b[2m"), WARN("\u001b[33m");

    final String sgr;

    Style(String sgr) {
      this.sgr = sgr;
    }
  }

  static final String RESET = "\u001b[0m";

  /** The widest a cell gets; a longer one is cut (the last column is not padded, so it may be longer). */
  static final int MAX_CELL = 56;

  private final Options options;

  TreeRenderer(Options options) {
    this.options = options;
  }

  /** One line of a section: up to three cells, and the lines below it. */
  static final class Line {
    final String[] cells;
    final Style[] styles;
    final List<Line> children = new ArrayList<>();

    Line(String label, Style labelStyle, String second, Style secondStyle, String third, Style thirdStyle) {
      this.cells = new String[] {label, second, third};
      this.styles = new Style[] {labelStyle, secondStyle, thirdStyle};
    }

    Line add(Line child) {
      children.add(child);
      return child;
    }
  }

  static Line line(String label, Style style, String second, String third) {
    return new Line(label, style, second, Style.PLAIN, third, Style.PLAIN);
  }

  String render(NodeReport report) {
    NodeView view = new NodeView(report, options.wholePci());
    StringBuilder out = new StringBuilder();
    section(out, List.of(machine(view)));
    out.append('\n');
    section(out, List.of(pci(view)));
    Line others = unplaced(view);
    if (!others.children.isEmpty()) {
      out.append('\n');
      section(out, List.of(others));
    }
    List<Line> trouble = trouble(view);
    if (!trouble.isEmpty()) {
      out.append('\n');
      section(out, trouble);
    }
    return out.toString();
  }

  // ---------------------------------------------------------------- machine

  private Line machine(NodeView view) {
    String kernel = view.kernel();
    Line root = new Line("Machine", Style.HEAD, view.hostname(), Style.NAME,
        (kernel.isEmpty() ? "" : "kernel " + kernel + (view.machineSummary().isEmpty() ? "" : ", ")) + view.machineSummary(),
        Style.PLAIN);
    Place machine = view.machine();
    if (machine.children.isEmpty() && machine.cores.isEmpty() && machine.caches.isEmpty()
        && view.topology.hugepages().isEmpty()) {
      root.add(line("(no CPU or NUMA topology in this report)", Style.DIM, "", ""));
      return root;
    }
    for (HugepageSize h : view.topology.hugepages()) {
      root.add(line("hugepages " + Text.bytes(h.pageSizeBytes()), Style.PLAIN, pages(h.total(), h.free()),
          h.mounts().isEmpty() ? "no hugetlbfs mount"
              : "mounted at " + h.mounts().stream().map(m -> Text.clean(m, 48)).collect(Collectors.joining(", "))));
    }
    fill(root, machine);
    return root;
  }

  private void fill(Line line, Place place) {
    if (!place.cores.isEmpty()) {
      line.add(line("cores", Style.PLAIN, NodeView.coreSummary(place.cores), NodeView.coreTypes(place.cores)));
    }
    List<CacheGroup> caches = NodeView.cacheGroups(place.caches);
    if (!caches.isEmpty()) {
      if (options.caches()) {
        for (CacheGroup g : caches) {
          line.add(line(g.name() + " cache", Style.PLAIN, Text.bytes(g.sizeBytes()) + " × " + g.instances().size(),
              sharing(g)));
        }
      } else {
        line.add(new Line("caches", Style.PLAIN, Text.count(caches.size(), "kind") + " (--caches)", Style.DIM,
            caches.stream().map(CacheGroup::summary).collect(Collectors.joining(", ")), Style.PLAIN));
      }
    }
    for (Place child : place.children) {
      line.add(place(child));
    }
  }

  /** {@code shared by cpus 0-31} for few instances; {@code each shared by 2 CPUs} for many. */
  private static String sharing(CacheGroup g) {
    if (g.instances().size() <= 4) {
      return "cpus " + g.instances().stream().map(c -> c.toString().isEmpty() ? "-" : c.toString())
          .collect(Collectors.joining(" | "));
    }
    String sizes = g.instances().stream().map(c -> Integer.toString(c.size())).distinct().collect(Collectors.joining("/"));
    return "each shared by " + sizes + " CPUs";
  }

  private Line place(Place p) {
    Line l;
    switch (p.kind) {
      case PACKAGE -> l = line("Package " + p.id, Style.HEAD, cpus(p.cpus.toString()), "");
      case NUMA -> {
        l = line("NUMA " + p.id, Style.HEAD, cpus(p.cpus.toString()), NodeView.memory(p.numa));
        pools(l, p.numa);
      }
      case MEMORY_NODE -> {
        l = new Line("NUMA " + p.id + " memory only", Style.HEAD, NodeView.memory(p.numa), Style.PLAIN,
            NodeView.locality(p.numa), Style.PLAIN);
        pools(l, p.numa);
      }
      default -> l = line("?", Style.PLAIN, "", "");
    }
    fill(l, p);
    return l;
  }

  private static void pools(Line l, NumaNodeInfo n) {
    for (HugepagePool pool : n.hugepages()) {
      l.add(line("hugepages " + Text.bytes(pool.pageSizeBytes()), Style.PLAIN, pages(pool.total(), pool.free()), ""));
    }
  }

  private static String pages(long total, long free) {
    return Text.count(total, "page") + ", " + free + " free";
  }

  private static String cpus(String list) {
    return "cpus " + (list.isEmpty() ? "-" : Text.cut(list, MAX_CELL - 5));
  }

  // ---------------------------------------------------------------- PCI

  private Line pci(NodeView view) {
    PciTree tree = view.pci();
    List<PciNode> bridges = view.shown(tree.hostBridges());
    int hidden = view.hiddenInTree();
    String summary = tree.isEmpty() ? "(no PCI tree in this report)"
        : Text.count(tree.hostBridges().size(), "host bridge")
            + (hidden > 0 ? "; " + Text.count(hidden, "PCI node") + " leading to no published device hidden (--whole-pci)" : "");
    Line root = new Line("PCI", Style.HEAD, "", Style.PLAIN, summary, Style.DIM);
    for (PciNode hb : bridges) {
      Integer numa = NodeView.numaOf(hb);
      Line l = new Line(NodeView.address(hb), Style.HEAD, "host bridge", Style.PLAIN,
          numa == null ? "NUMA node unknown" : "NUMA " + numa, Style.PLAIN);
      root.add(l);
      children(view, l, hb);
    }
    return root;
  }

  private void children(NodeView view, Line parent, PciNode node) {
    for (PciNode child : view.shown(node.children())) {
      if (child.kind() == PciTree.Kind.ENDPOINT || !child.devices().isEmpty()) {
        endpoint(view, parent, child);
      } else {
        Line l = new Line(NodeView.address(child), Style.PLAIN, NodeView.kindText(child.kind()), Style.PLAIN,
            child.kind() == PciTree.Kind.SWITCH_UPSTREAM ? "its devices share pcieSwitch " + NodeView.address(child)
                : "", Style.DIM);
        parent.add(l);
        children(view, l, child);
      }
    }
    int hidden = view.hidden(node.children());
    if (hidden > 0) {
      parent.add(new Line("…", Style.DIM, hidden + " hidden", Style.DIM,
          "leading to no published device (--whole-pci)", Style.DIM));
    }
  }

  /** A function: one line per published device on it (the first with its address), or its ids when none. */
  private void endpoint(NodeView view, Line parent, PciNode n) {
    if (n.devices().isEmpty()) {
      Line l = new Line(NodeView.address(n), Style.DIM, NodeView.kindText(n.kind()), Style.DIM, NodeView.ids(n), Style.DIM);
      parent.add(l);
      children(view, l, n);
      return;
    }
    Line first = null;
    for (String name : n.devices()) {
      Line l = new Line(first == null ? NodeView.address(n) : "", Style.PLAIN, NodeView.name(name), Style.NAME,
          view.device(name).map(TreeRenderer::deviceText).orElse("(not in this report's devices)"), Style.PLAIN);
      if (first == null) {
        first = l;
        parent.add(l);
      } else {
        first.add(l);
      }
    }
    children(view, first, n);
  }

  private static String deviceText(Device d) {
    List<String> parts = new ArrayList<>();
    parts.add(NodeView.type(d));
    parts.addAll(NodeView.details(d));
    return String.join(" · ", parts);
  }

  // ---------------------------------------------------------------- the rest

  private Line unplaced(NodeView view) {
    Map<Integer, List<Device>> byNuma = view.unplacedByNuma();
    Line root = new Line("Devices without a PCI place", Style.HEAD, "", Style.PLAIN,
        byNuma.isEmpty() ? "" : "by NUMA node", Style.DIM);
    byNuma.forEach((numa, devices) -> {
      Line group = line(numa == null ? "no NUMA node" : "NUMA " + numa, Style.HEAD, "", "");
      root.add(group);
      for (Device d : devices) {
        List<String> details = NodeView.details(d);
        group.add(new Line(NodeView.name(d.name()), Style.NAME, NodeView.type(d), Style.TYPE,
            String.join(" · ", details), Style.PLAIN));
      }
    });
    if (view.report.devices().isEmpty()) {
      root.add(line("(no devices in this report)", Style.DIM, "", ""));
    }
    return root;
  }

  private List<Line> trouble(NodeView view) {
    List<Line> out = new ArrayList<>();
    List<String[]> sources = view.troubledSources();
    if (!sources.isEmpty()) {
      Line s = line("Sources", Style.HEAD, "", "");
      sources.forEach(r -> s.add(new Line(r[0], Style.WARN, r[1], Style.WARN, r[2], Style.PLAIN)));
      out.add(s);
    }
    List<String[]> warnings = view.warnings();
    if (!warnings.isEmpty()) {
      Line w = new Line("Warnings", Style.HEAD, Integer.toString(warnings.size()), Style.WARN, "", Style.PLAIN);
      warnings.forEach(r -> w.add(new Line(r[0], Style.WARN, r[1], Style.PLAIN, "", Style.PLAIN)));
      out.add(w);
    }
    return out;
  }

  // ---------------------------------------------------------------- layout

  private record Flat(String prefix, Line line) {}

  /** Prints the trees of one section with tree glyphs, the columns aligned across the section. */
  private void section(StringBuilder out, List<Line> roots) {
    List<Flat> rows = new ArrayList<>();
    for (Line r : roots) {
      flatten(rows, r, "", "");
    }
    int[] widths = new int[3];
    for (Flat f : rows) {
      String[] c = cells(f.line());
      // Only a cell with another after it sets its column's width; the last one runs on.
      for (int i = 0; i < last(c); i++) {
        widths[i] = Math.max(widths[i], Text.width((i == 0 ? f.prefix() : "") + c[i]));
      }
    }
    for (Flat f : rows) {
      String[] c = cells(f.line());
      StringBuilder line = new StringBuilder(f.prefix());
      int last = last(c);
      for (int i = 0; i <= last; i++) {
        if (i > 0 && i < last && widths[i] == 0) {
          continue; // a column no line of the section uses
        }
        line.append(paint(c[i], f.line().styles[i]));
        if (i < last) {
          int used = Text.width((i == 0 ? f.prefix() : "") + c[i]);
          line.append(" ".repeat(widths[i] - used + 2));
        }
      }
      out.append(line).append('\n');
    }
  }

  /** The index of the last non-empty cell (0 when all are empty). */
  private static int last(String[] cells) {
    return cells[2].isEmpty() ? (cells[1].isEmpty() ? 0 : 1) : 2;
  }

  /** The cells, each cut to {@link #MAX_CELL} but the last, which nothing follows. */
  private static String[] cells(Line l) {
    int last = last(l.cells);
    String[] out = new String[3];
    for (int i = 0; i < 3; i++) {
      out[i] = i < last ? Text.cut(l.cells[i], MAX_CELL) : l.cells[i];
    }
    return out;
  }

  private static void flatten(List<Flat> rows, Line l, String prefix, String indent) {
    rows.add(new Flat(prefix, l));
    for (int i = 0; i < l.children.size(); i++) {
      boolean last = i == l.children.size() - 1;
      flatten(rows, l.children.get(i), indent + (last ? "└─ " : "├─ "), indent + (last ? "   " : "│  "));
    }
  }

  private String paint(String text, Style style) {
    if (!options.colour() || style == Style.PLAIN || text.isEmpty()) {
      return text;
    }
    return style.sgr + text + RESET;
  }
}
