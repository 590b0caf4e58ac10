package io.nodeatlas.discovery.engine;

import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.model.Device;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The attribute catalogue: every attribute and capacity each device type publishes, rendered as the
 * Markdown of {@code docs/attributes.md} from what the sources declare, and checked against what
 * they actually publish.
 */
public final class AttributeCatalogue {

  private AttributeCatalogue() {}

  /** The catalogue of {@code sources} as Markdown, one section per source and device type. */
  public static String render(Collection<? extends DiscoverySource> sources) {
    StringBuilder out = new StringBuilder();
    out.append("# Attribute catalogue\n\n");
    out.append("Generated from the sources' declarations by `AttributeCatalogueTest`; do not edit by hand.\n");
    out.append("Every name below is what a ResourceSlice, `nodeatlas discover` and a CEL selector see:\n");
    out.append("`device.attributes[\"nodeatlas.io\"].productName` or `device.capacity[\"nodeatlas.io\"].memory`.\n\n");
    out.append("Naming rules: identifiers are lowerCamelCase; acronyms are spelled as one word in the\n");
    out.append("case of their position (`uuid`, `parentUUID`, `pciDeviceID`, as NVIDIA spells them); numbers\n");
    out.append("with a unit carry it in the name or in the Unit column; enum-like string values are lower\n");
    out.append("case (`up`, `infiniband`, `roce`); booleans are always present. Kubernetes' standard names\n");
    out.append("(`resource.kubernetes.io/*`) are used where they exist.\n");
    List<DiscoverySource> sorted = new ArrayList<>(sources);
    sorted.sort(Comparator.comparing(DiscoverySource::name));
    for (DiscoverySource source : sorted) {
      Map<String, List<AttributeDoc>> byType = new TreeMap<>();
      for (AttributeDoc doc : source.catalogue()) {
        byType.computeIfAbsent(doc.deviceType(), k -> new ArrayList<>()).add(doc);
      }
      for (Map.Entry<String, List<AttributeDoc>> e : byType.entrySet()) {
        out.append("\n## `").append(e.getKey()).append("` devices (source `").append(source.name()).append("`)\n\n");
        out.append("| name | kind | type | unit | example | meaning |\n");
        out.append("|---|---|---|---|---|---|\n");
        List<AttributeDoc> docs = new ArrayList<>(e.getValue());
        docs.sort(Comparator.comparing((AttributeDoc d) -> d.kind()).thenComparing(AttributeDoc::name));
        for (AttributeDoc d : docs) {
          out.append("| `").append(d.name()).append("` | ")
              .append(d.kind() == AttributeDoc.Kind.ATTRIBUTE ? "attribute" : "capacity").append(" | ")
              .append(d.valueType()).append(" | ")
              .append(cell(d.unit())).append(" | ")
              .append(d.example().isEmpty() ? "" : "`" + cell(d.example()) + "`").append(" | ")
              .append(cell(d.meaning())).append(" |\n");
        }
      }
    }
    return out.toString();
  }

  /**
   * What {@code devices} publish that {@code catalogue} does not declare for their type, or declares
   * with another value type: {@code "gpu-0: nodeatlas.io/foo (string) is not in the catalogue"}.
   * Empty when every published name is documented.
   */
  public static List<String> undocumented(Collection<AttributeDoc> catalogue, Collection<Device> devices) {
    Map<String, AttributeDoc> known = new LinkedHashMap<>();
    for (AttributeDoc d : catalogue) {
      known.put(d.deviceType() + " " + d.name(), d);
    }
    List<String> problems = new ArrayList<>();
    for (Device device : devices) {
      String type = device.type().orElse("");
      device.attributes().forEach((name, value) -> check(problems, known, device, type, name, value.typeName()));
      device.capacity().keySet().forEach(name -> check(problems, known, device, type, name, "quantity"));
    }
    return problems;
  }

  private static void check(List<String> problems, Map<String, AttributeDoc> known, Device device, String type,
      String name, String valueType) {
    AttributeDoc doc = known.get(type + " " + name);
    if (doc == null) {
      problems.add(device.name() + ": " + name + " (" + valueType + ") is not in the catalogue of type " + type);
    } else if (!doc.valueType().equals(valueType)) {
      problems.add(device.name() + ": " + name + " is published as " + valueType + " but catalogued as " + doc.valueType());
    }
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }

}
