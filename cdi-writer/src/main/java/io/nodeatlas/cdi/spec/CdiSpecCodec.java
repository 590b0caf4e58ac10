package io.nodeatlas.cdi.spec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * CDI spec files to and from text.
 *
 * <p>Writing: keys sorted, integers in decimal, no nulls and no empty optional fields (the Go types'
 * {@code omitempty}; an empty {@code intelRdt.schemata} would even raise the version, specs-go/version.go), so
 * the same spec always gives the same bytes. YAML quotes every string, because runtimes read YAML the
 * YAML-1.1 way ({@code yes}, {@code 0640}, {@code 1e3} change meaning unquoted).
 *
 * <p>Reading is as strict as the library's {@code yaml.UnmarshalStrict}: an unknown field or a value of
 * the wrong type makes the whole file unreadable ({@link CdiParseException}); JSON {@code null} for an
 * optional field is tolerated like the library does. The format is sniffed from the content, not the
 * name, as runtimes do.
 *
 * <p>Reading is bounded, because {@code cdi validate} reads any vendor's files: before a tree is built,
 * one streaming pass checks the nesting ({@link #MAX_NESTING}), the number of tokens ({@link #MAX_TOKENS},
 * which bounds the tree), devices ({@link #MAX_DEVICES}), annotations per spec or device
 * ({@link #MAX_ANNOTATIONS}), entries of any one list ({@link #MAX_LIST_ENTRIES}: env, deviceNodes, mounts,
 * hooks, args...) and the length of strings ({@link #MAX_STRING_CHARS}). The first bound hit is a
 * {@link CdiParseException} naming the bound, the field and the line and column.
 */
public final class CdiSpecCodec {

  private static final long UINT32_MAX = 0xffff_ffffL;
  /** Bounds what one hostile file can make us allocate; real specs are a few hundred KiB at most. */
  public static final int MAX_NESTING = 64;
  /** Parser tokens per file: bounds the tree (about 70 bytes of heap per token). */
  public static final int MAX_TOKENS = 500_000;
  /** Devices per spec; the largest real specs (every MIG slice of a node) have a few hundred. */
  public static final int MAX_DEVICES = 8_192;
  /**
   * Annotations per spec or device. The upstream rule limits their size (256 KiB, k8s
   * TotalAnnotationSizeLimitB), which alone would allow over 100,000 one-byte keys.
   */
  public static final int MAX_ANNOTATIONS = 4_096;
  /** Entries of any one list: env, deviceNodes, mounts, hooks, netDevices, additionalGids, args, options. */
  public static final int MAX_LIST_ENTRIES = 4_096;
  /** Characters of one string or key (an annotation value is at most 256 KiB). */
  public static final int MAX_STRING_CHARS = 1024 * 1024;

  private final ObjectMapper json;
  private final ObjectMapper yaml;
  /**
   * The size of the last JSON spec {@link #writeBytes} made: only a hint for the next buffer's size, so
   * a stale value from another thread costs at most a copy.
   */
  private volatile int lastJsonBytes = 2048 - 64;

  public CdiSpecCodec() {
    StreamReadConstraints limits = StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING)
        .maxTokenCount(MAX_TOKENS).maxStringLength(MAX_STRING_CHARS).maxNameLength(MAX_STRING_CHARS).build();
    JsonMapper jsonMapper = JsonMapper.builder()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
        // writeBytes writes UTF-8 directly: a character outside the BMP as its four bytes, as the text does,
        // not as an escaped surrogate pair, so both give the same file.
        .enable(com.fasterxml.jackson.core.json.JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
        .build();
    jsonMapper.getFactory().setStreamReadConstraints(limits);
    this.json = jsonMapper;
    YAMLFactory yamlFactory = YAMLFactory.builder()
        .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
        .disable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
        .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
        .streamReadConstraints(limits)
        .build();
    this.yaml = YAMLMapper.builder(yamlFactory).enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED).build();
  }

  // ---- writing ---------------------------------------------------------------------------------

  /** The spec as file content in {@code format}, ending in a newline. */
  public String write(CdiSpec spec, SpecFormat format) {
    return switch (format) {
      case JSON -> new String(writeBytes(spec, format), java.nio.charset.StandardCharsets.UTF_8);
      case YAML -> {
        try {
          yield yaml.writeValueAsString(toTree(spec));
        } catch (JsonProcessingException e) {
          throw new IllegalStateException("cannot serialise CDI spec " + spec.kind(), e);
        }
      }
    };
  }

  /** The bytes of {@link #write} in UTF-8. */
  public byte[] writeBytes(CdiSpec spec, SpecFormat format) {
    if (format != SpecFormat.JSON) {
      return write(spec, format).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
    // JSON: written straight from the spec, without a tree or the intermediate text (a claim's spec is
    // rendered on every Prepare).
    try {
      // Sized as the last spec written, plus a little: specs of one writer are alike (a claim's spec per
      // Prepare), so the buffer rarely grows (each growth is a copy of all so far). One large spec does not
      // make every later buffer large.
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(Math.min(lastJsonBytes, 64 << 10) + 64);
      // The generator of the mapper (its pretty printer and features), fed the members in sorted order.
      try (JsonGenerator g = json.createGenerator(out, com.fasterxml.jackson.core.JsonEncoding.UTF8)) {
        writeSorted(g, spec);
      }
      out.write('\n');
      byte[] bytes = out.toByteArray();
      lastJsonBytes = bytes.length;
      return bytes;
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot serialise CDI spec " + spec.kind(), e);
    }
  }

  /**
   * The spec with CDI's field names, every object's members in name order (String order, as
   * {@link JsonNodeFeature#WRITE_PROPERTIES_SORTED} sorts them), empty members left out. The one mapping
   * from a spec to CDI's document: the file's JSON is written with it, and {@link #toTree} (YAML, the
   * schema check) is built from it.
   */
  private static void writeSorted(JsonGenerator g, CdiSpec spec) throws IOException {
    g.writeStartObject();
    writeMap(g, "annotations", spec.annotations());
    g.writeStringField("cdiVersion", spec.cdiVersion());
    if (!spec.containerEdits().isEmpty()) {
      g.writeFieldName("containerEdits");
      writeSorted(g, spec.containerEdits());
    }
    g.writeArrayFieldStart("devices");
    for (CdiDevice d : spec.devices()) {
      g.writeStartObject();
      writeMap(g, "annotations", d.annotations());
      g.writeFieldName("containerEdits");
      writeSorted(g, d.containerEdits());
      g.writeStringField("name", d.name());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeStringField("kind", spec.kind());
    g.writeEndObject();
  }

  private static void writeSorted(JsonGenerator g, CdiContainerEdits e) throws IOException {
    g.writeStartObject();
    if (!e.additionalGids().isEmpty()) {
      g.writeArrayFieldStart("additionalGids");
      for (Long gid : e.additionalGids()) {
        g.writeNumber(gid.longValue());
      }
      g.writeEndArray();
    }
    if (!e.deviceNodes().isEmpty()) {
      g.writeArrayFieldStart("deviceNodes");
      for (CdiContainerEdits.DeviceNode n : e.deviceNodes()) {
        g.writeStartObject();
        writeLong(g, "fileMode", n.fileMode());
        writeLong(g, "gid", n.gid());
        writeText(g, "hostPath", n.hostPath());
        writeLong(g, "major", n.major());
        writeLong(g, "minor", n.minor());
        g.writeStringField("path", n.path());
        writeText(g, "permissions", n.permissions());
        writeText(g, "type", n.type());
        writeLong(g, "uid", n.uid());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    writeStrings(g, "env", e.env());
    if (!e.hooks().isEmpty()) {
      g.writeArrayFieldStart("hooks");
      for (CdiContainerEdits.Hook h : e.hooks()) {
        g.writeStartObject();
        writeStrings(g, "args", h.args());
        writeStrings(g, "env", h.env());
        g.writeStringField("hookName", h.hookName());
        g.writeStringField("path", h.path());
        writeLong(g, "timeout", h.timeout());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    if (e.intelRdt() != null) {
      CdiContainerEdits.IntelRdt r = e.intelRdt();
      g.writeObjectFieldStart("intelRdt");
      writeText(g, "closID", r.closID());
      if (Boolean.TRUE.equals(r.enableMonitoring())) {
        g.writeBooleanField("enableMonitoring", true);
      }
      writeText(g, "l3CacheSchema", r.l3CacheSchema());
      writeText(g, "memBwSchema", r.memBwSchema());
      if (r.schemata() != null) {
        g.writeArrayFieldStart("schemata");
        for (String v : r.schemata()) {
          g.writeString(v);
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    }
    if (!e.mounts().isEmpty()) {
      g.writeArrayFieldStart("mounts");
      for (CdiContainerEdits.Mount m : e.mounts()) {
        g.writeStartObject();
        g.writeStringField("containerPath", m.containerPath());
        g.writeStringField("hostPath", m.hostPath());
        writeStrings(g, "options", m.options());
        writeText(g, "type", m.type());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    if (!e.netDevices().isEmpty()) {
      g.writeArrayFieldStart("netDevices");
      for (CdiContainerEdits.NetDevice n : e.netDevices()) {
        g.writeStartObject();
        g.writeStringField("hostInterfaceName", n.hostInterfaceName());
        g.writeStringField("name", n.name());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    g.writeEndObject();
  }

  /** A map of text in String order (which a spec's and a device's annotations have unless built with another). */
  private static void writeMap(JsonGenerator g, String key, SortedMap<String, String> map) throws IOException {
    if (!map.isEmpty()) {
      Map<String, String> sorted = map.comparator() == null ? map : new TreeMap<>((Map<String, String>) map);
      g.writeObjectFieldStart(key);
      for (Map.Entry<String, String> e : sorted.entrySet()) {
        g.writeStringField(e.getKey(), e.getValue());
      }
      g.writeEndObject();
    }
  }

  private static void writeStrings(JsonGenerator g, String key, List<String> values) throws IOException {
    if (!values.isEmpty()) {
      g.writeArrayFieldStart(key);
      for (String v : values) {
        g.writeString(v);
      }
      g.writeEndArray();
    }
  }

  private static void writeText(JsonGenerator g, String key, String value) throws IOException {
    if (value != null && !value.isEmpty()) {
      g.writeStringField(key, value);
    }
  }

  private static void writeLong(JsonGenerator g, String key, Long value) throws IOException {
    if (value != null) {
      g.writeNumberField(key, value.longValue());
    }
  }

  /** The spec as a JSON tree with CDI's field names (what the JSON schema checks), from {@link #writeSorted}. */
  public ObjectNode toTree(CdiSpec spec) {
    try (com.fasterxml.jackson.databind.util.TokenBuffer buffer = new com.fasterxml.jackson.databind.util.TokenBuffer(json, false)) {
      writeSorted(buffer, spec);
      return (ObjectNode) json.readTree(buffer.asParser());
    } catch (IOException e) {
      throw new IllegalStateException("cannot build the tree of CDI spec " + spec.kind(), e);
    }
  }

  // ---- reading ---------------------------------------------------------------------------------

  /** Parses a spec file's content (JSON or YAML, sniffed). */
  public CdiSpec read(String text) throws CdiParseException {
    String body = text.startsWith("\uFEFF") ? text.substring(1) : text;
    String trimmed = body.stripLeading();
    boolean isJson = trimmed.startsWith("{");
    ObjectMapper mapper = isJson ? json : yaml;
    JsonNode root;
    try {
      try (JsonParser bounds = mapper.createParser(body)) {
        checkBounds(bounds);
      }
      root = mapper.readTree(body);
    } catch (StreamConstraintsException e) {
      throw new CdiParseException("failed to unmarshal CDI Spec: " + where(e.getLocation()) + bound(e), e);
    } catch (JsonProcessingException e) {
      throw new CdiParseException("failed to unmarshal CDI Spec: " + where(e.getLocation()) + e.getOriginalMessage(), e);
    } catch (IOException | RuntimeException e) {
      // The YAML parser reports some malformed input (bad escapes, odd anchors) as unchecked exceptions.
      throw new CdiParseException("failed to unmarshal CDI Spec: " + e.getMessage(), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw new CdiParseException("failed to unmarshal CDI Spec: empty document");
    }
    return new TreeReader(!isJson).spec(root);
  }

  /** One open object or list of the bounds pass: the key it sits under and how many entries it has. */
  private static final class Open {
    final String key;
    final boolean list;
    final int depth;
    int entries;

    Open(String key, boolean list, int depth) {
      this.key = key;
      this.list = list;
      this.depth = depth;
    }
  }

  /** The streaming pass: counts before any tree is built; the first bound hit throws. */
  private static void checkBounds(JsonParser p) throws IOException, CdiParseException {
    Deque<Open> open = new ArrayDeque<>();
    String key = "";
    long tokens = 0;
    while (true) {
      JsonToken t;
      try {
        t = p.nextToken();
      } catch (StreamConstraintsException e) {
        // Jackson's constraint errors carry no location; the parser still knows where it stopped.
        throw limit(p, bound(e));
      }
      if (t == null) {
        break;
      }
      if (++tokens > MAX_TOKENS) {
        throw limit(p, "more than " + MAX_TOKENS + " tokens (the limit per spec file)");
      }
      if (t == JsonToken.FIELD_NAME) {
        key = p.currentName();
        continue;
      }
      if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
        open.pop();
        continue;
      }
      Open parent = open.peek();
      if (parent != null) {
        parent.entries++;
        if (parent.list && parent.key.equals("devices") && parent.depth == 1) {
          if (parent.entries > MAX_DEVICES) {
            throw limit(p, "devices: more than " + MAX_DEVICES + " devices (the limit per spec)");
          }
        } else if (!parent.list && parent.key.equals("annotations")) {
          if (parent.entries > MAX_ANNOTATIONS) {
            throw limit(p, "annotations: more than " + MAX_ANNOTATIONS + " annotations (the limit per spec or device)");
          }
        } else if (parent.list && parent.entries > MAX_LIST_ENTRIES) {
          throw limit(p, parent.key + ": more than " + MAX_LIST_ENTRIES + " entries (the limit of one list)");
        }
      }
      if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
        String under = parent == null ? "" : parent.list ? parent.key : key;
        open.push(new Open(under, t == JsonToken.START_ARRAY, open.size()));
      }
    }
  }

  private static CdiParseException limit(JsonParser p, String what) {
    return new CdiParseException("failed to unmarshal CDI Spec: " + where(p.currentLocation()) + what);
  }

  private static String where(JsonLocation location) {
    return location == null || location.getLineNr() <= 0 ? ""
        : "line " + location.getLineNr() + ", column " + location.getColumnNr() + ": ";
  }

  /** Jackson's constraint messages name its own API; say which of our documented bounds was hit. */
  private static String bound(StreamConstraintsException e) {
    String m = String.valueOf(e.getMessage());
    if (m.contains("nesting depth")) {
      return "nested deeper than the limit of " + MAX_NESTING + " levels";
    } else if (m.contains("Token count")) {
      return "more than " + MAX_TOKENS + " tokens (the limit per spec file)";
    } else if (m.contains("String value length") || m.contains("Name length")) {
      return "a string longer than the limit of " + MAX_STRING_CHARS + " characters";
    }
    return "input exceeds a parser limit: " + e.getOriginalMessage();
  }

  /** Maps a parsed tree onto the records, refusing what {@code UnmarshalStrict} refuses. */
  private static final class TreeReader {
    private final boolean yamlScalars;

    TreeReader(boolean yamlScalars) {
      this.yamlScalars = yamlScalars;
    }

    CdiSpec spec(JsonNode root) throws CdiParseException {
      ObjectNode o = object(root, "");
      known(o, "", Set.of("cdiVersion", "kind", "annotations", "devices", "containerEdits"));
      List<CdiDevice> devices = new ArrayList<>();
      JsonNode devs = o.get("devices");
      if (present(devs)) {
        int i = 0;
        for (JsonNode d : array(devs, "devices")) {
          devices.add(device(d, "devices[" + i++ + "]"));
        }
      }
      return new CdiSpec(string(o, "cdiVersion", ""), string(o, "kind", ""), annotations(o, ""), devices,
          edits(o.get("containerEdits"), "containerEdits"));
    }

    CdiDevice device(JsonNode node, String path) throws CdiParseException {
      ObjectNode o = object(node, path);
      known(o, path, Set.of("name", "annotations", "containerEdits"));
      return new CdiDevice(string(o, "name", path), annotations(o, path),
          edits(o.get("containerEdits"), path + ".containerEdits"));
    }

    CdiContainerEdits edits(JsonNode node, String path) throws CdiParseException {
      if (!present(node)) {
        return CdiContainerEdits.EMPTY;
      }
      ObjectNode o = object(node, path);
      known(o, path, Set.of("env", "deviceNodes", "netDevices", "hooks", "mounts", "intelRdt", "additionalGids"));
      List<CdiContainerEdits.DeviceNode> nodes = list(o, "deviceNodes", path, (n, p) -> {
        ObjectNode d = object(n, p);
        known(d, p, Set.of("path", "hostPath", "type", "major", "minor", "fileMode", "permissions", "uid", "gid"));
        return new CdiContainerEdits.DeviceNode(string(d, "path", p), string(d, "hostPath", p), string(d, "type", p),
            integer(d, "major", p, Long.MIN_VALUE, Long.MAX_VALUE), integer(d, "minor", p, Long.MIN_VALUE, Long.MAX_VALUE),
            integer(d, "fileMode", p, 0, UINT32_MAX), string(d, "permissions", p),
            integer(d, "uid", p, 0, UINT32_MAX), integer(d, "gid", p, 0, UINT32_MAX));
      });
      List<CdiContainerEdits.NetDevice> nets = list(o, "netDevices", path, (n, p) -> {
        ObjectNode d = object(n, p);
        known(d, p, Set.of("hostInterfaceName", "name"));
        return new CdiContainerEdits.NetDevice(string(d, "hostInterfaceName", p), string(d, "name", p));
      });
      List<CdiContainerEdits.Hook> hooks = list(o, "hooks", path, (n, p) -> {
        ObjectNode h = object(n, p);
        known(h, p, Set.of("hookName", "path", "args", "env", "timeout"));
        return new CdiContainerEdits.Hook(string(h, "hookName", p), string(h, "path", p), strings(h, "args", p),
            strings(h, "env", p), integer(h, "timeout", p, Integer.MIN_VALUE, Integer.MAX_VALUE));
      });
      List<CdiContainerEdits.Mount> mounts = list(o, "mounts", path, (n, p) -> {
        ObjectNode m = object(n, p);
        known(m, p, Set.of("hostPath", "containerPath", "type", "options"));
        return new CdiContainerEdits.Mount(string(m, "hostPath", p), string(m, "containerPath", p),
            string(m, "type", p), strings(m, "options", p));
      });
      CdiContainerEdits.IntelRdt rdt = null;
      JsonNode r = o.get("intelRdt");
      if (present(r)) {
        String p = path + ".intelRdt";
        ObjectNode ro = object(r, p);
        known(ro, p, Set.of("closID", "l3CacheSchema", "memBwSchema", "schemata", "enableMonitoring"));
        List<String> schemata = present(ro.get("schemata")) ? strings(ro, "schemata", p) : null;
        rdt = new CdiContainerEdits.IntelRdt(string(ro, "closID", p), string(ro, "l3CacheSchema", p),
            string(ro, "memBwSchema", p), schemata, bool(ro, "enableMonitoring", p));
      }
      List<Long> gids = list(o, "additionalGids", path, (n, p) -> integerValue(n, p, 0, UINT32_MAX));
      return new CdiContainerEdits(strings(o, "env", path), nodes, nets, hooks, mounts, rdt, gids);
    }

    private interface ElementReader<T> {
      T read(JsonNode node, String path) throws CdiParseException;
    }

    private <T> List<T> list(ObjectNode o, String key, String path, ElementReader<T> reader) throws CdiParseException {
      JsonNode n = o.get(key);
      List<T> out = new ArrayList<>();
      if (!present(n)) {
        return out;
      }
      String p = join(path, key);
      int i = 0;
      for (JsonNode e : array(n, p)) {
        out.add(reader.read(e, p + "[" + i++ + "]"));
      }
      return out;
    }

    private List<String> strings(ObjectNode o, String key, String path) throws CdiParseException {
      return list(o, key, path, (n, p) -> scalarText(n, p));
    }

    private SortedMap<String, String> annotations(ObjectNode o, String path) throws CdiParseException {
      JsonNode n = o.get("annotations");
      SortedMap<String, String> out = new TreeMap<>();
      if (!present(n)) {
        return out;
      }
      String p = join(path, "annotations");
      Iterator<Map.Entry<String, JsonNode>> it = object(n, p).fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        out.put(e.getKey(), present(e.getValue()) ? scalarText(e.getValue(), p + "." + e.getKey()) : "");
      }
      return out;
    }

    private String string(ObjectNode o, String key, String path) throws CdiParseException {
      JsonNode n = o.get(key);
      return present(n) ? scalarText(n, join(path, key)) : null;
    }

    private String scalarText(JsonNode n, String path) throws CdiParseException {
      if (n.isTextual()) {
        return n.textValue();
      }
      // sigs.k8s.io/yaml turns YAML scalars into JSON first, so an unquoted 0 or true in YAML still fills a string.
      if (yamlScalars && n.isValueNode() && !n.isNull()) {
        return n.asText();
      }
      throw new CdiParseException("failed to unmarshal CDI Spec: " + path + ": expected a string, got " + describe(n));
    }

    private static Long integer(ObjectNode o, String key, String path, long min, long max) throws CdiParseException {
      JsonNode n = o.get(key);
      return present(n) ? integerValue(n, join(path, key), min, max) : null;
    }

    private static long integerValue(JsonNode n, String path, long min, long max) throws CdiParseException {
      if (!n.isIntegralNumber() || !n.canConvertToLong()) {
        throw new CdiParseException("failed to unmarshal CDI Spec: " + path + ": expected an integer, got " + describe(n));
      }
      long v = n.longValue();
      if (v < min || v > max) {
        throw new CdiParseException("failed to unmarshal CDI Spec: " + path + ": " + v + " is out of range");
      }
      return v;
    }

    private static Boolean bool(ObjectNode o, String key, String path) throws CdiParseException {
      JsonNode n = o.get(key);
      if (!present(n)) {
        return null;
      }
      if (!n.isBoolean()) {
        throw new CdiParseException("failed to unmarshal CDI Spec: " + join(path, key) + ": expected a boolean, got " + describe(n));
      }
      return n.booleanValue();
    }

    private static ObjectNode object(JsonNode n, String path) throws CdiParseException {
      if (!(n instanceof ObjectNode o)) {
        throw new CdiParseException("failed to unmarshal CDI Spec: " + (path.isEmpty() ? "document" : path)
            + ": expected an object, got " + describe(n));
      }
      return o;
    }

    private static ArrayNode array(JsonNode n, String path) throws CdiParseException {
      if (!(n instanceof ArrayNode a)) {
        throw new CdiParseException("failed to unmarshal CDI Spec: " + path + ": expected a list, got " + describe(n));
      }
      return a;
    }

    private static void known(ObjectNode o, String path, Set<String> fields) throws CdiParseException {
      Iterator<String> names = o.fieldNames();
      while (names.hasNext()) {
        String name = names.next();
        if (!fields.contains(name)) {
          throw new CdiParseException("failed to unmarshal CDI Spec: json: unknown field " + CdiNames.quote(name)
              + (path.isEmpty() ? "" : " in " + path));
        }
      }
    }

    private static boolean present(JsonNode n) {
      return n != null && !n.isNull() && !n.isMissingNode();
    }

    private static String join(String path, String key) {
      return path.isEmpty() ? key : path + "." + key;
    }

    private static String describe(JsonNode n) {
      return switch (n.getNodeType()) {
        case ARRAY -> "a list";
        case OBJECT, POJO -> "an object";
        case STRING -> "a string";
        case NUMBER -> "the number " + n.asText();
        case BOOLEAN -> "a boolean";
        case NULL, MISSING -> "null";
        case BINARY -> "binary data";
      };
    }
  }
}
