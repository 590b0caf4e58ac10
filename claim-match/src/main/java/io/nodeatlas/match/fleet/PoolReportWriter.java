package io.nodeatlas.match.fleet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.match.Amounts;
import io.nodeatlas.match.fleet.PoolReport.CapacityAccount;
import io.nodeatlas.match.fleet.PoolReport.Pool;
import java.util.List;
import java.util.SortedSet;

/** Renders a {@link PoolReport}: a table with one line per pool and one per capacity, or JSON / YAML with exact amounts. */
public final class PoolReportWriter {

  private PoolReportWriter() {}

  public static String table(PoolReport report, List<String> warnings) {
    StringBuilder out = new StringBuilder();
    int node = Math.max(4, report.pools().stream().mapToInt(p -> p.node().length()).max().orElse(4));
    int driver = Math.max(6, report.pools().stream().mapToInt(p -> p.driver().length()).max().orElse(6));
    int pool = Math.max(4, report.pools().stream().mapToInt(p -> p.pool().length()).max().orElse(4));
    String row = "%-" + node + "s  %-" + driver + "s  %-" + pool + "s  %7s  %9s  %4s%n";
    out.append(String.format(row, "NODE", "DRIVER", "POOL", "DEVICES", "ALLOCATED", "FREE"));
    for (Pool p : report.pools()) {
      out.append(String.format(row, p.node(), p.driver(), p.pool(), p.devices(), p.allocated(), p.free()));
      if (p.devicesExhausted()) {
        out.append("  every device is allocated, to ").append(claims(p.devicesHeldBy())).append('\n');
      }
      for (CapacityAccount c : p.capacity()) {
        Amounts a = Amounts.HUMAN;
        out.append("  ").append(c.capacity()).append(c.deviceType().isEmpty() ? "" : " of " + c.deviceType() + " devices")
            .append(": ").append(a.text(c.capacity(), c.consumed())).append(" of ")
            .append(a.text(c.capacity(), c.total())).append(" consumed, ").append(a.text(c.capacity(), c.left()))
            .append(" left");
        if (c.exhausted()) {
          out.append(" (exhausted by ").append(claims(c.heldBy())).append(')');
        }
        out.append('\n');
      }
      for (PoolReport.CounterAccount c : p.counters()) {
        Amounts a = Amounts.HUMAN;
        out.append("  counter ").append(c.counter()).append(" of set ").append(c.counterSet()).append(": ")
            .append(a.text(c.counter(), c.consumed())).append(" of ").append(a.text(c.counter(), c.total()))
            .append(" consumed, ").append(a.text(c.counter(), c.left())).append(" left");
        if (c.exhausted()) {
          out.append(" (exhausted by ").append(claims(c.heldBy())).append(')');
        }
        out.append('\n');
      }
    }
    warnings.forEach(w -> out.append("warning: ").append(w).append('\n'));
    return out.toString();
  }

  /** The claims that hold something: the first five, then how many more. */
  private static String claims(SortedSet<String> claims) {
    List<String> all = List.copyOf(claims);
    return all.size() <= 5 ? String.join(", ", all) : String.join(", ", all.subList(0, 5)) + " and " + (all.size() - 5) + " more";
  }

  public static String json(PoolReport report, List<String> warnings) {
    try {
      return JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build().writeValueAsString(tree(report, warnings))
          + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise the pools", e);
    }
  }

  public static String yaml(PoolReport report, List<String> warnings) {
    return FleetReportWriter.yamlOf(json(report, warnings));
  }

  static ObjectNode tree(PoolReport report, List<String> warnings) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ArrayNode pools = root.putArray("pools");
    for (Pool p : report.pools()) {
      ObjectNode n = pools.addObject().put("node", p.node()).put("driver", p.driver()).put("pool", p.pool())
          .put("devices", p.devices()).put("allocated", p.allocated()).put("free", p.free());
      p.devicesHeldBy().forEach(n.putArray("allocatedTo")::add);
      ArrayNode capacity = n.putArray("capacity");
      for (CapacityAccount c : p.capacity()) {
        ObjectNode cn = capacity.addObject().put("name", c.capacity());
        if (!c.deviceType().isEmpty()) {
          cn.put("deviceType", c.deviceType());
        }
        cn.put("total", plain(c.total()))
            .put("consumed", plain(c.consumed())).put("left", plain(c.left())).put("exhausted", c.exhausted());
        c.heldBy().forEach(cn.putArray("consumedBy")::add);
      }
      ArrayNode counters = n.putArray("counters");
      for (PoolReport.CounterAccount c : p.counters()) {
        ObjectNode cn = counters.addObject().put("counterSet", c.counterSet()).put("name", c.counter())
            .put("total", plain(c.total())).put("consumed", plain(c.consumed())).put("left", plain(c.left()))
            .put("exhausted", c.exhausted());
        c.heldBy().forEach(cn.putArray("consumedBy")::add);
      }
    }
    warnings.forEach(root.putArray("warnings")::add);
    return root;
  }

  private static String plain(java.math.BigDecimal v) {
    return Amounts.EXACT.text(null, v);
  }
}
