package io.nodeatlas.discovery.gpu.smi;

import io.nodeatlas.discovery.gpu.smi.SmiMachine.Gpu;
import io.nodeatlas.discovery.gpu.smi.SmiMachine.Mig;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;

/**
 * Reads {@code nvidia-smi -q} output, as text (indented {@code key : value} lines under
 * {@code ==============NVSMI LOG==============}) or as XML ({@code -q -x}, DTD v10–v13), plus the
 * {@code nvidia-smi -L} lines some captures carry (the only place MIG UUIDs and profiles appear).
 * Pure: text in, {@link SmiMachine} out; input it cannot use is an {@link IllegalArgumentException}
 * naming what is missing. Used by the conformance test to build fake NVML configurations.
 */
public final class NvidiaSmiParser {

  private static final String LOG_BANNER = "==============NVSMI LOG==============";
  private static final Pattern KEY_VALUE = Pattern.compile("^( *)(\\S.*?)\\s+: ?(.*)$");
  private static final Pattern LIST_GPU = Pattern.compile("^GPU (\\d+): .* \\(UUID: (GPU-[^)]+)\\)\\s*$");
  private static final Pattern LIST_MIG =
      Pattern.compile("^\\s+MIG (\\S+)\\s+Device\\s+(\\d{1,4}): \\(UUID: (MIG-[^)]+)\\)\\s*$");
  private static final Pattern MIB = Pattern.compile("^(\\d{1,12}) MiB$");
  private static final Pattern CUDA = Pattern.compile("^(\\d{1,4})\\.(\\d{1,2})$");

  private NvidiaSmiParser() {}

  /** Whether the text is {@code -q} output at all (other captures, such as the table view, are not). */
  public static boolean isQueryOutput(String text) {
    return text.contains(LOG_BANNER) || text.contains("<nvidia_smi_log");
  }

  public static SmiMachine parse(String text) {
    if (text.contains("<nvidia_smi_log")) {
      return parseXml(text);
    }
    if (text.contains(LOG_BANNER)) {
      return parseText(text);
    }
    throw new IllegalArgumentException("not nvidia-smi -q output (no NVSMI LOG banner, no <nvidia_smi_log>)");
  }

  /** {@code CUDA Version : 12.4} as NVML's integer {@code 12040}. */
  public static int cudaVersionAsInt(String printed) {
    Matcher m = CUDA.matcher(printed);
    if (!m.matches()) {
      throw new IllegalArgumentException("CUDA version \"" + printed + "\" is not MAJOR.MINOR");
    }
    return Integer.parseInt(m.group(1)) * 1000 + Integer.parseInt(m.group(2)) * 10;
  }

  // ------------------------------------------------------------------------------------ text

  private static SmiMachine parseText(String text) {
    List<String> lines = text.lines().toList();
    int start = 0;
    while (start < lines.size() && !lines.get(start).strip().equals(LOG_BANNER)) {
      start++;
    }
    if (start == lines.size()) {
      throw new IllegalArgumentException("the NVSMI LOG banner is not on a line of its own");
    }
    Map<String, String> top = new HashMap<>();
    List<Map<String, String>> gpus = new ArrayList<>();
    List<List<Map<String, String>>> migs = new ArrayList<>();
    Map<String, String> gpu = null;
    Map<String, String> mig = null;
    List<Level> stack = new ArrayList<>();
    for (int i = start + 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("#####")) {
        break; // next section of a multi-section capture
      }
      if (line.isBlank()) {
        continue;
      }
      int indent = 0;
      while (indent < line.length() && line.charAt(indent) == ' ') {
        indent++;
      }
      while (!stack.isEmpty() && stack.get(stack.size() - 1).indent() >= indent) {
        stack.remove(stack.size() - 1);
      }
      Matcher kv = KEY_VALUE.matcher(line);
      if (!kv.matches()) {
        String header = line.strip();
        if (indent == 0 && header.startsWith("GPU ")) {
          gpu = new HashMap<>();
          gpu.put("@id", header.substring(4).strip());
          gpus.add(gpu);
          migs.add(new ArrayList<>());
          mig = null;
          stack.clear();
          continue;
        }
        if (gpu != null && stack.isEmpty() && header.equals("MIG Device")) {
          mig = new HashMap<>();
          migs.get(migs.size() - 1).add(mig);
          stack.add(new Level(indent, "MIG Device", true));
          continue;
        }
        stack.add(new Level(indent, header, false));
        continue;
      }
      String key = kv.group(2).strip();
      String value = kv.group(3).strip();
      if (gpu == null) {
        top.putIfAbsent(key, value);
        continue;
      }
      boolean inMig = !stack.isEmpty() && stack.get(0).mig();
      StringBuilder path = new StringBuilder();
      for (int s = inMig ? 1 : 0; s < stack.size(); s++) {
        path.append(stack.get(s).name()).append('/');
      }
      path.append(key);
      (inMig ? mig : gpu).putIfAbsent(path.toString(), value);
    }
    if (gpus.isEmpty()) {
      throw new IllegalArgumentException("no GPU section");
    }
    Map<String, List<String[]>> listed = listedMigs(lines);
    List<Gpu> out = new ArrayList<>();
    for (int g = 0; g < gpus.size(); g++) {
      Map<String, String> f = gpus.get(g);
      out.add(gpu(f.get("@id"), f::get, "Product Name", "GPU UUID", "Minor Number", "FB Memory Usage/Total",
          "Product Brand", "Product Architecture", "Serial Number", "VBIOS Version", "Board Part Number",
          "PCI/Bus Id", "PCI/Device Id", "PCI/Sub System Id", "MIG Mode/Current",
          textMigs(migs.get(g), listed.get(f.get("GPU UUID")))));
    }
    Optional<String> driver = known(top.get("KMD Version")).or(() -> known(top.get("Driver Version")));
    Optional<String> cuda = known(top.get("CUDA UMD Version")).or(() -> known(top.get("CUDA Version")));
    return new SmiMachine(driver, cuda, out);
  }

  /** One open section of the indented text; {@code mig} marks a "MIG Device" block of the current GPU. */
  private record Level(int indent, String name, boolean mig) {}

  private static List<Mig> textMigs(List<Map<String, String>> found, List<String[]> listed) {
    List<Mig> out = new ArrayList<>();
    for (Map<String, String> m : found) {
      out.add(mig(m::get, "Index", "GPU Instance ID", "Compute Instance ID", "Shared FB Memory Usage/Total",
          "Device Attributes/Shared/Multiprocessor count", "Device Attributes/Shared/Copy Engine count",
          "Device Attributes/Shared/Decoder count", "Device Attributes/Shared/Encoder count",
          "Device Attributes/Shared/JPG count", "Device Attributes/Shared/OFA count", listed));
    }
    return out;
  }

  /** {@code nvidia-smi -L}: GPU UUID → {profile, MIG index, MIG UUID} for each MIG line under it. */
  private static Map<String, List<String[]>> listedMigs(List<String> lines) {
    Map<String, List<String[]>> out = new LinkedHashMap<>();
    List<String[]> current = null;
    for (String line : lines) {
      Matcher g = LIST_GPU.matcher(line);
      if (g.matches()) {
        current = out.computeIfAbsent(g.group(2), k -> new ArrayList<>());
        continue;
      }
      Matcher m = LIST_MIG.matcher(line);
      if (m.matches() && current != null) {
        current.add(new String[] {m.group(1), m.group(2), m.group(3)});
      } else if (!line.startsWith(" ")) {
        current = null;
      }
    }
    return out;
  }

  // ------------------------------------------------------------------------------------- XML

  private static SmiMachine parseXml(String text) {
    Document doc;
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      // The files name a DTD (nvsmi_device_v12.dtd) that is not shipped; never fetch or expand anything.
      f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
      f.setFeature("http://xml.org/sax/features/external-general-entities", false);
      f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
      f.setExpandEntityReferences(false);
      f.setXIncludeAware(false);
      DocumentBuilder b = f.newDocumentBuilder();
      b.setErrorHandler(new org.xml.sax.helpers.DefaultHandler() {
        @Override
        public void fatalError(SAXParseException e) throws SAXParseException {
          throw e;
        }
      });
      doc = b.parse(new InputSource(new StringReader(text)));
    } catch (Exception e) {
      throw new IllegalArgumentException("not well-formed XML: " + e.getMessage(), e);
    }
    Element root = doc.getDocumentElement();
    if (!root.getTagName().equals("nvidia_smi_log")) {
      throw new IllegalArgumentException("root element is <" + root.getTagName() + ">, not <nvidia_smi_log>");
    }
    List<Gpu> gpus = new ArrayList<>();
    for (Element g : children(root, "gpu")) {
      List<Mig> migs = new ArrayList<>();
      for (Element md : children(g, "mig_devices")) {
        for (Element m : children(md, "mig_device")) {
          migs.add(mig(p -> xmlValue(m, p), "index", "gpu_instance_id", "compute_instance_id", "fb_memory_usage/total",
              "device_attributes/shared/multiprocessor_count", "device_attributes/shared/copy_engine_count",
              "device_attributes/shared/decoder_count", "device_attributes/shared/encoder_count",
              "device_attributes/shared/jpg_count", "device_attributes/shared/ofa_count", null));
        }
      }
      gpus.add(gpu(g.getAttribute("id"), p -> xmlValue(g, p), "product_name", "uuid", "minor_number",
          "fb_memory_usage/total", "product_brand", "product_architecture", "serial", "vbios_version",
          "board_part_number", "pci/pci_bus_id", "pci/pci_device_id", "pci/pci_sub_system_id",
          "mig_mode/current_mig", migs));
    }
    if (gpus.isEmpty()) {
      throw new IllegalArgumentException("no <gpu> element");
    }
    return new SmiMachine(known(xmlValue(root, "driver_version")), known(xmlValue(root, "cuda_version")), gpus);
  }

  private static List<Element> children(Element parent, String tag) {
    List<Element> out = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node n = nodes.item(i);
      if (n instanceof Element e && e.getTagName().equals(tag)) {
        out.add(e);
      }
    }
    return out;
  }

  private static String xmlValue(Element from, String path) {
    Element e = from;
    for (String step : path.split("/")) {
      List<Element> c = children(e, step);
      if (c.isEmpty()) {
        return null;
      }
      e = c.get(0);
    }
    return e.getTextContent().strip();
  }

  // ---------------------------------------------------------------------------------- shared

  @FunctionalInterface
  private interface Fields {
    String get(String key);
  }

  private static Gpu gpu(String id, Fields f, String name, String uuid, String minor, String memory, String brand,
      String arch, String serial, String vbios, String part, String busId, String deviceId, String subsystemId,
      String migMode, List<Mig> migs) {
    String where = "GPU " + id;
    String bus = known(f.get(busId)).orElse(id);
    if (bus == null || bus.isEmpty()) {
      throw new IllegalArgumentException(where + ": no PCI bus id");
    }
    return new Gpu(
        bus,
        required(f, name, where),
        required(f, uuid, where),
        known(f.get(minor)).map(v -> integer(v, where + " " + minor)),
        mib(required(f, memory, where), where + " " + memory),
        known(f.get(brand)),
        known(f.get(arch)),
        known(f.get(serial)),
        known(f.get(vbios)),
        known(f.get(part)),
        known(f.get(deviceId)).map(v -> hex(v, where + " " + deviceId)),
        known(f.get(subsystemId)).map(v -> hex(v, where + " " + subsystemId)),
        known(f.get(migMode)),
        migs);
  }

  private static Mig mig(Fields f, String index, String gi, String ci, String memory, String sm, String ce,
      String dec, String enc, String jpg, String ofa, List<String[]> listed) {
    int idx = integer(required(f, index, "MIG device"), "MIG device index");
    String where = "MIG device " + idx;
    Optional<String[]> fromList = listed == null ? Optional.empty()
        : listed.stream().filter(l -> Integer.parseInt(l[1]) == idx).findFirst();
    return new Mig(idx,
        integer(required(f, gi, where), where + " " + gi),
        integer(required(f, ci, where), where + " " + ci),
        mib(required(f, memory, where), where + " " + memory),
        integer(required(f, sm, where), where + " " + sm),
        known(f.get(ce)).map(v -> integer(v, where)).orElse(0),
        known(f.get(dec)).map(v -> integer(v, where)).orElse(0),
        known(f.get(enc)).map(v -> integer(v, where)).orElse(0),
        known(f.get(jpg)).map(v -> integer(v, where)).orElse(0),
        known(f.get(ofa)).map(v -> integer(v, where)).orElse(0),
        fromList.map(l -> l[2]),
        fromList.map(l -> l[0]));
  }

  private static String required(Fields f, String key, String where) {
    return known(f.get(key)).orElseThrow(() -> new IllegalArgumentException(where + ": no " + key));
  }

  /** The value, without nvidia-smi's deprecation notes; empty for {@code N/A} and bracketed placeholders. */
  private static Optional<String> known(String value) {
    if (value == null) {
      return Optional.empty();
    }
    String v = value.strip();
    int note = v.indexOf(" [");
    if (note > 0) {
      v = v.substring(0, note).strip();
    }
    if (v.isEmpty() || v.equals("N/A") || v.startsWith("[")) {
      return Optional.empty();
    }
    return Optional.of(v);
  }

  private static int integer(String v, String what) {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + ": \"" + v + "\" is not a number");
    }
  }

  private static long mib(String v, String what) {
    Matcher m = MIB.matcher(v);
    if (!m.matches()) {
      throw new IllegalArgumentException(what + ": \"" + v + "\" is not \"<n> MiB\"");
    }
    return Long.parseLong(m.group(1));
  }

  private static long hex(String v, String what) {
    String digits = v.startsWith("0x") || v.startsWith("0X") ? v.substring(2) : v;
    if (digits.isEmpty() || digits.length() > 8 || !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      throw new IllegalArgumentException(what + ": \"" + v + "\" is not a 32-bit hex id");
    }
    return Long.parseLong(digits, 16);
  }
}
