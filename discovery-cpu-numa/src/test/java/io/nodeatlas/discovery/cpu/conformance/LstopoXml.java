package io.nodeatlas.discovery.cpu.conformance;

import io.nodeatlas.discovery.topology.CpuSet;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The facts we compare, read from {@code lstopo --of xml} (hwloc's XML v2: nested {@code object}
 * elements with {@code type}, {@code os_index}, hex {@code cpuset}/{@code nodeset} attributes, caches
 * with {@code depth}, {@code cache_size}, {@code cache_type} 0=unified 1=data 2=instruction, NUMA nodes
 * with {@code local_memory} and {@code page_type} children).
 */
record LstopoXml(
    CpuSet allowedCpus,
    CpuSet allowedNodes,
    List<Obj> objects) {

  /** One hwloc object; {@code osIndex} is -1 when hwloc has none. */
  record Obj(String type, int osIndex, CpuSet cpuset, Element element) {}

  static LstopoXml parse(byte[] xml) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    Element topology = f.newDocumentBuilder().parse(new ByteArrayInputStream(xml)).getDocumentElement();
    Element machine = firstChild(topology, "object");
    List<Obj> objects = new ArrayList<>();
    walk(machine, objects);
    return new LstopoXml(bitmap(machine.getAttribute("allowed_cpuset")),
        bitmap(machine.getAttribute("allowed_nodeset")), objects);
  }

  List<Obj> ofType(String type) {
    return objects.stream().filter(o -> o.type().equals(type)).toList();
  }

  private static void walk(Element e, List<Obj> out) {
    String index = e.getAttribute("os_index");
    out.add(new Obj(e.getAttribute("type"), index.isEmpty() ? -1 : Integer.parseInt(index),
        bitmap(e.getAttribute("cpuset")), e));
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element child && child.getTagName().equals("object")) {
        walk(child, out);
      }
    }
  }

  static Element firstChild(Element e, String tag) {
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element child && child.getTagName().equals(tag)) {
        return child;
      }
    }
    throw new IllegalStateException("no <" + tag + "> in <" + e.getTagName() + ">");
  }

  static List<Element> children(Element e, String tag) {
    List<Element> out = new ArrayList<>();
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element child && child.getTagName().equals(tag)) {
        out.add(child);
      }
    }
    return out;
  }

  /**
   * hwloc's bitmap string: 32-bit hex groups, most significant first, each with {@code 0x}
   * ({@code 0x0000ffff,0xffffffff}); an infinite set starts with {@code 0xf...f}, which we drop since
   * only the finite part can name real CPUs.
   */
  static CpuSet bitmap(String text) {
    if (text == null || text.isEmpty()) {
      return CpuSet.EMPTY;
    }
    String[] groups = text.split(",", -1);
    BitSet bits = new BitSet();
    int base = 0;
    for (int g = groups.length - 1; g >= 0; g--) {
      String group = groups[g].startsWith("0x") ? groups[g].substring(2) : groups[g];
      if (group.equals("f...f")) {
        break;
      }
      long value = group.isEmpty() ? 0 : Long.parseLong(group, 16);
      for (int bit = 0; bit < 32; bit++) {
        if ((value & (1L << bit)) != 0) {
          bits.set(base + bit);
        }
      }
      base += 32;
    }
    return CpuSet.fromBits(bits);
  }
}
