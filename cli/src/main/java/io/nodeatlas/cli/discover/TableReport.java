package io.nodeatlas.cli.discover;

import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The human view of a {@link NodeReport}: a few aligned tables, the way {@code kubectl get} prints. */
final class TableReport {

  private TableReport() {}

  static String render(NodeReport report) {
    StringBuilder out = new StringBuilder();
    Topology t = report.topology();
    out.append("HOST ").append(nullToDash(report.host().hostname()))
        .append("  KERNEL ").append(nullToDash(report.host().kernel()))
        .append("  ROOT ").append(nullToDash(report.host().hostRoot())).append('\n');
    out.append("CPUS online ").append(dashIfEmpty(t.cpus().online().toString()))
        .append("  offline ").append(dashIfEmpty(t.cpus().offline().toString()))
        .append("  packages ").append(t.packages().size())
        .append("  cores ").append(t.cores().size()).append('\n');

    if (!t.numaNodes().isEmpty()) {
      out.append('\n');
      Table numa = new Table("NUMA", "CPUS", "MEMORY", "FREE", "DISTANCES");
      for (Topology.NumaNodeInfo n : t.numaNodes()) {
        numa.row(Integer.toString(n.id()), dashIfEmpty(n.cpus().toString()), bytes(n.memoryTotalBytes()),
            bytes(n.memoryFreeBytes()),
            n.distances().values().stream().map(String::valueOf).collect(Collectors.joining(" ")));
      }
      numa.appendTo(out);
    }
    if (!t.hugepages().isEmpty()) {
      out.append('\n');
      Table pages = new Table("PAGESIZE", "TOTAL", "FREE", "RESERVED", "SURPLUS", "MOUNTS");
      for (Topology.HugepageSize h : t.hugepages()) {
        pages.row(bytes(h.pageSizeBytes()), Long.toString(h.total()), Long.toString(h.free()),
            h.reserved() == null ? "-" : Long.toString(h.reserved()), Long.toString(h.surplus()),
            h.mounts().isEmpty() ? "-" : String.join(",", h.mounts()));
      }
      pages.appendTo(out);
    }
    if (!report.sources().isEmpty()) {
      out.append('\n');
      Table sources = new Table("SOURCE", "STATUS", "REASON");
      report.sources().forEach((name, status) ->
          sources.row(name, status.jsonName(), status.reason().isEmpty() ? "-" : Excerpt.scrub(status.reason())));
      sources.appendTo(out);
    }
    out.append('\n');
    Table devices = new Table("DEVICE", "SOURCE", "TYPE", "NUMA", "PCI", "CAPACITY");
    for (Device d : report.devices()) {
      devices.row(d.name(), d.source(), d.type().orElse("-"),
          d.attribute(Names.NUMA_NODE).map(TableReport::valueText).orElse("-"),
          d.attribute(Names.PCI_BUS_ID).map(TableReport::valueText).orElse("-"),
          d.capacity().isEmpty() ? "-" : d.capacity().entrySet().stream()
              .map(e -> shortName(e.getKey()) + "=" + capacityText(e.getKey(), e.getValue())).collect(Collectors.joining(",")));
    }
    devices.appendTo(out);
    // An unavailable source is said once, in the SOURCE table: its "source unavailable" warning repeats it.
    List<io.nodeatlas.discovery.report.DiscoveryWarning> shown = report.warnings().stream()
        .filter(w -> !repeatsUnavailable(report, w)).toList();
    if (!shown.isEmpty()) {
      out.append('\n');
      Table warnings = new Table("SOURCE", "WARNING");
      shown.forEach(w -> warnings.row(w.source(), w.message()));
      warnings.appendTo(out);
    }
    return out.toString();
  }

  /** Whether {@code w} is the discovery's "source unavailable" line of a source the SOURCE table shows as unavailable. */
  private static boolean repeatsUnavailable(NodeReport report, io.nodeatlas.discovery.report.DiscoveryWarning w) {
    io.nodeatlas.discovery.report.SourceStatus status = report.sources().get(w.source());
    return status != null && status.isUnavailable() && w.message().startsWith("source unavailable");
  }

  /** A capacity as people write it: bytes ({@code memory}, {@code ...Bytes}) as {@code 79.6Gi}, others as published. */
  private static String capacityText(String name, io.nodeatlas.discovery.model.Quantity q) {
    String n = shortName(name);
    if (n.equals("memory") || n.endsWith("Bytes")) {
      try {
        java.math.BigDecimal v = q.toBigDecimal();
        if (v.signum() >= 0 && v.scale() <= 0 && v.compareTo(java.math.BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) {
          return io.nodeatlas.cli.discover.render.Text.bytes(v.longValueExact());
        }
      } catch (RuntimeException e) {
        // not a plain number: print it as published
      }
    }
    return q.toString();
  }

  private static String shortName(String qualified) {
    return qualified.startsWith(Names.DOMAIN + "/") ? qualified.substring(Names.DOMAIN.length() + 1) : qualified;
  }

  private static String valueText(AttributeValue v) {
    return String.valueOf(v.asObject());
  }

  private static String nullToDash(String s) {
    return s == null || s.isEmpty() ? "-" : s;
  }

  private static String dashIfEmpty(String s) {
    return s.isEmpty() ? "-" : s;
  }

  /** Bytes as people write them: the largest binary unit, exact when it divides ({@code 2Mi}), else one decimal ({@code 8.2Gi}). */
  static String bytes(Long value) {
    return value == null ? "-" : io.nodeatlas.cli.discover.render.Text.bytes(value);
  }

  /** Left-aligned columns separated by three spaces. */
  static final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
      rows.add(header);
    }

    void row(String... cells) {
      rows.add(cells);
    }

    void appendTo(StringBuilder out) {
      int columns = rows.get(0).length;
      int[] widths = new int[columns];
      for (String[] r : rows) {
        for (int i = 0; i < columns; i++) {
          widths[i] = Math.max(widths[i], r[i].length());
        }
      }
      for (String[] r : rows) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < columns; i++) {
          line.append(r[i]);
          if (i < columns - 1) {
            line.append(" ".repeat(widths[i] - r[i].length() + 3));
          }
        }
        out.append(line.toString().stripTrailing()).append('\n');
      }
    }
  }
}
