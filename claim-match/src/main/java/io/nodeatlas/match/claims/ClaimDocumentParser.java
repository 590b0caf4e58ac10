package io.nodeatlas.match.claims;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.nodeatlas.discovery.files.BoundedText;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.match.claims.ClaimModel.AllocationMode;
import io.nodeatlas.match.claims.ClaimModel.Claim;
import io.nodeatlas.match.claims.ClaimModel.Constraint;
import io.nodeatlas.match.claims.ClaimModel.ConstraintKind;
import io.nodeatlas.match.claims.ClaimModel.DeviceClass;
import io.nodeatlas.match.claims.ClaimModel.DeviceSelection;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import io.nodeatlas.match.claims.ClaimModel.Origin;
import io.nodeatlas.match.claims.ClaimModel.Request;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads DeviceClass, ResourceClaim and ResourceClaimTemplate objects from YAML (several documents per
 * file, {@code ---}) or JSON (one or more objects, or a {@code kind: List}). Accepts {@code resource.k8s.io}
 * {@code v1} and {@code v1beta2} (same shape) and {@code v1beta1} (request fields without
 * {@code exactly}). Applies the {@code resource.k8s.io/v1} validation rules that matter for matching:
 * request names are DNS labels, at most 32 requests, constraints and selectors, at most 8
 * {@code firstAvailable} entries, {@code count} positive and absent with {@code allocationMode: All},
 * constraint attributes fully qualified and naming existing requests. Any other kind is an error.
 *
 * <p>Pure: text in, records out; the first problem is thrown with the file, document number, object and
 * field path.
 *
 * <p>Input is hostile, so everything is read within fixed bounds that keep {@code nodeatlas match} inside
 * its launcher's 128 MiB heap for any file: {@link #MAX_FILE_BYTES} per file, {@link #MAX_DOCUMENTS}
 * documents per file, {@link #MAX_TOKENS} parser tokens per file (which bounds the tree of any one
 * document), {@link #MAX_NESTING} levels, {@link #MAX_STRING_CHARS} per string, and, over all files
 * merged, {@link #MAX_OBJECTS} objects and {@link #MAX_SELECTORS_TOTAL} selectors. Documents are read one
 * at a time; only the records are kept. A bound that is hit is an input error naming the bound, the file
 * and, where the parser knows it, the line and column.
 */
public final class ClaimDocumentParser {

  static final int MAX_REQUESTS = 32;
  static final int MAX_CONSTRAINTS = 32;
  static final int MAX_SELECTORS = 32;
  static final int MAX_FIRST_AVAILABLE = 8;

  /** Largest file read; far above any real set of DeviceClasses and claims. */
  public static final long MAX_FILE_BYTES = 8L * 1024 * 1024;
  /** YAML documents ({@code ---}) or concatenated JSON values per file. */
  public static final int MAX_DOCUMENTS = 1_000;
  /** Parser tokens per file: bounds the tree of the largest document (~70 bytes of heap per token). */
  public static final long MAX_TOKENS = 500_000;
  /** Nesting of objects and lists; Kubernetes objects nest about 10 deep. */
  public static final int MAX_NESTING = 64;
  /** Characters of one string value or key; a selector is at most 10 KiB, an annotation value 256 KiB. */
  public static final int MAX_STRING_CHARS = 1024 * 1024;
  /** DeviceClasses and claims (documents and List items) over all files together. */
  public static final int MAX_OBJECTS = 1_000;
  /**
   * CEL selectors over all files together: each is compiled and evaluated once per device, and the
   * results are kept for the report, so their number bounds the memory of a run.
   */
  public static final int MAX_SELECTORS_TOTAL = 256;

  private static final Set<String> VERSIONS = Set.of("resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1");

  private final ObjectMapper yaml;
  private final ObjectMapper json;

  public ClaimDocumentParser() {
    StreamReadConstraints limits = StreamReadConstraints.builder()
        .maxNestingDepth(MAX_NESTING)
        .maxTokenCount(MAX_TOKENS)
        .maxStringLength(MAX_STRING_CHARS)
        .maxNameLength(MAX_STRING_CHARS)
        .maxDocumentLength(MAX_FILE_BYTES)
        .build();
    // SnakeYAML has limits of its own (3 MiB of code points, 50 levels); align them with ours so the
    // documented bound is the one a user meets. Aliases keep SnakeYAML's default of 50 per collection.
    LoaderOptions loader = new LoaderOptions();
    loader.setCodePointLimit((int) MAX_FILE_BYTES);
    loader.setNestingDepthLimit(MAX_NESTING + 1);
    this.yaml = YAMLMapper.builder(YAMLFactory.builder().loaderOptions(loader).streamReadConstraints(limits).build()).build();
    this.json = JsonMapper.builder(JsonFactory.builder().streamReadConstraints(limits).build())
        .enable(JsonReadFeature.ALLOW_TRAILING_COMMA).build();
  }

  /**
   * Reads and parses one file: at most {@link #MAX_FILE_BYTES} of UTF-8. The message of every problem
   * starts with the file name.
   */
  public Documents parseFile(Path file) throws ClaimInputException, IOException {
    byte[] bytes;
    try {
      bytes = BoundedText.readBytes(file, MAX_FILE_BYTES);
      BoundedText.checkUtf8(bytes);
    } catch (BoundedText.TextException e) {
      throw new ClaimInputException(file + ": " + e.getMessage());
    }
    return parse(file.toString(), new String(bytes, StandardCharsets.UTF_8));
  }

  /** Parses one file's text; {@code file} only names it in messages. */
  public Documents parse(String file, String text) throws ClaimInputException {
    if (text.length() > MAX_FILE_BYTES) {
      throw new ClaimInputException(file + ": larger than the limit of " + MAX_FILE_BYTES + " bytes (8 MiB)");
    }
    List<DeviceClass> classes = new ArrayList<>();
    List<Claim> claims = new ArrayList<>();
    List<ClaimModel.Pod> pods = new ArrayList<>();
    String trimmed = text.stripLeading();
    boolean isJson = trimmed.startsWith("{") || trimmed.startsWith("[");
    String format = isJson ? "JSON" : "YAML";
    ObjectMapper mapper = isJson ? json : yaml;
    // One document at a time: only its records outlive it.
    JsonParser open = null;
    try (JsonParser parser = mapper.createParser(text);
        MappingIterator<JsonNode> it = mapper.readValues(parser, JsonNode.class)) {
      open = parser;
      int document = 0;
      while (it.hasNextValue()) {
        JsonLocation start = parser.currentTokenLocation();
        JsonNode doc = it.nextValue();
        document++;
        if (document > MAX_DOCUMENTS) {
          throw new ClaimInputException(file + ": " + at(start) + "more than " + MAX_DOCUMENTS
              + " documents (the limit per file)");
        }
        // An empty document (a comment alone between two ---) reads as null or as an empty scalar.
        if (doc == null || doc.isNull() || doc.isMissingNode() || (doc.isObject() && doc.isEmpty())
            || (doc.isTextual() && doc.textValue().isEmpty())) {
          continue;
        }
        readObject(doc, new Origin(file, document), classes, claims, pods, 0);
        if (classes.size() + claims.size() + pods.size() > MAX_OBJECTS) {
          throw new ClaimInputException(file + ": " + at(start) + "more than " + MAX_OBJECTS
              + " DeviceClasses and claims (the limit of one run)");
        }
      }
    } catch (StreamConstraintsException e) {
      // Jackson's constraint errors carry no location; the parser still knows where it stopped.
      JsonLocation where = e.getLocation() != null ? e.getLocation() : open == null ? null : open.currentLocation();
      throw new ClaimInputException(file + ": " + at(where) + bound(e), e);
    } catch (JsonProcessingException e) {
      String where = at(e.getLocation());
      throw new ClaimInputException(file + ": not valid " + format
          + (where.isEmpty() ? "" : " at " + where.substring(0, where.length() - 2)) + ": " + e.getOriginalMessage(), e);
    } catch (IOException | RuntimeException e) {
      // SnakeYAML reports some malformed input (bad escapes, its own limits) as unchecked exceptions.
      throw new ClaimInputException(file + ": not valid " + format + ": " + e.getMessage(), e);
    }
    return new Documents(classes, claims, pods);
  }

  /**
   * Merges several files' documents in order, within the bounds of one run ({@link #MAX_OBJECTS} objects,
   * {@link #MAX_SELECTORS_TOTAL} selectors).
   */
  public static Documents merge(List<Documents> parts) throws ClaimInputException {
    List<DeviceClass> classes = new ArrayList<>();
    List<Claim> claims = new ArrayList<>();
    List<ClaimModel.Pod> pods = new ArrayList<>();
    for (Documents p : parts) {
      classes.addAll(p.deviceClasses());
      claims.addAll(p.claims());
      pods.addAll(p.pods());
    }
    if (classes.size() + claims.size() > MAX_OBJECTS) {
      throw new ClaimInputException("the input files hold " + (classes.size() + claims.size())
          + " DeviceClasses and claims; the limit of one run is " + MAX_OBJECTS);
    }
    long selectors = classes.stream().mapToLong(c -> c.selectors().size()).sum()
        + claims.stream().flatMap(c -> c.requests().stream()).flatMap(r -> r.alternatives().stream())
            .mapToLong(a -> a.selectors().size()).sum();
    if (selectors > MAX_SELECTORS_TOTAL) {
      throw new ClaimInputException("the input files hold " + selectors + " CEL selectors; the limit of one run is "
          + MAX_SELECTORS_TOTAL);
    }
    return new Documents(classes, claims, pods);
  }

  private static String at(JsonLocation location) {
    if (location == null || location.getLineNr() <= 0) {
      return "";
    }
    return "line " + location.getLineNr() + ", column " + location.getColumnNr() + ": ";
  }

  /** Jackson's constraint messages name its own API; say which of our documented bounds was hit. */
  private static String bound(StreamConstraintsException e) {
    String m = String.valueOf(e.getMessage());
    if (m.contains("nesting depth")) {
      return "nested deeper than the limit of " + MAX_NESTING + " levels";
    } else if (m.contains("Token count")) {
      return "more than " + MAX_TOKENS + " tokens (the limit per file)";
    } else if (m.contains("String value length") || m.contains("Name length")) {
      return "a string longer than the limit of " + MAX_STRING_CHARS + " characters";
    } else if (m.contains("Number value length")) {
      return "a number longer than the limit of " + StreamReadConstraints.DEFAULT_MAX_NUM_LEN + " digits";
    } else if (m.contains("Document length")) {
      return "larger than the limit of " + MAX_FILE_BYTES + " bytes (8 MiB)";
    }
    return "input exceeds a parser limit: " + e.getOriginalMessage();
  }

  private void readObject(JsonNode doc, Origin origin, List<DeviceClass> classes, List<Claim> claims,
      List<ClaimModel.Pod> pods, int depth) throws ClaimInputException {
    if (!doc.isObject()) {
      throw new ClaimInputException(origin + ": expected a Kubernetes object, found " + doc.getNodeType().toString().toLowerCase());
    }
    String kind = doc.path("kind").asText("");
    String apiVersion = doc.path("apiVersion").asText("");
    if (kind.equals("List") && depth == 0) {
      JsonNode items = doc.path("items");
      if (!items.isArray()) {
        throw new ClaimInputException(origin + ": kind List without an items array");
      }
      for (JsonNode item : items) {
        readObject(item, origin, classes, claims, pods, depth + 1);
      }
      return;
    }
    if (kind.equals("Pod") && apiVersion.equals("v1")) {
      pods.add(PodReader.pod(doc, origin));
      return;
    }
    if (!kind.equals("DeviceClass") && !kind.equals("ResourceClaim") && !kind.equals("ResourceClaimTemplate")) {
      throw new ClaimInputException(origin + ": kind \"" + kind + "\" is not supported; nodeatlas match reads "
          + "DeviceClass, ResourceClaim and ResourceClaimTemplate (resource.k8s.io/v1) and Pod (v1)");
    }
    if (!VERSIONS.contains(apiVersion)) {
      throw new ClaimInputException(origin + ": " + kind + " has apiVersion \"" + apiVersion
          + "\"; expected resource.k8s.io/v1 (v1beta1 and v1beta2 are read too)");
    }
    boolean v1beta1 = apiVersion.endsWith("/v1beta1");
    JsonNode metadata = doc.path("metadata");
    String name = text(metadata, "name");
    if (name == null) {
      name = text(metadata, "generateName");
    }
    if (name == null || name.isEmpty()) {
      throw new ClaimInputException(origin + ": " + kind + " without metadata.name");
    }
    String namespace = text(metadata, "namespace");
    String where = origin + " " + kind + " " + (namespace == null ? "" : namespace + "/") + name;
    switch (kind) {
      case "DeviceClass" -> classes.add(new DeviceClass(name, selectors(doc.path("spec").path("selectors"), where, "spec.selectors"),
          origin, text(doc.path("spec"), "extendedResourceName")));
      case "ResourceClaim" -> claims.add(claim(kind, namespace, name, doc.path("spec").path("devices"), "spec.devices", where, origin, v1beta1));
      default -> claims.add(claim(kind, namespace, name, doc.path("spec").path("spec").path("devices"), "spec.spec.devices",
          where, origin, v1beta1));
    }
  }

  private Claim claim(String kind, String namespace, String name, JsonNode devices, String path, String where,
      Origin origin, boolean v1beta1) throws ClaimInputException {
    JsonNode requestsNode = devices.path("requests");
    if (!requestsNode.isMissingNode() && !requestsNode.isNull() && !requestsNode.isArray()) {
      throw new ClaimInputException(where + ": " + path + ".requests must be a list");
    }
    if (requestsNode.size() > MAX_REQUESTS) {
      throw new ClaimInputException(where + ": " + path + ".requests has " + requestsNode.size() + " entries, the API allows at most " + MAX_REQUESTS);
    }
    List<Request> requests = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < requestsNode.size(); i++) {
      String at = path + ".requests[" + i + "]";
      Request r = request(requestsNode.get(i), where, at, v1beta1);
      if (!names.add(r.name())) {
        throw new ClaimInputException(where + ": " + at + ".name: duplicate request name \"" + r.name() + "\"");
      }
      requests.add(r);
    }
    JsonNode constraintsNode = devices.path("constraints");
    if (constraintsNode.size() > MAX_CONSTRAINTS) {
      throw new ClaimInputException(where + ": " + path + ".constraints has " + constraintsNode.size() + " entries, the API allows at most " + MAX_CONSTRAINTS);
    }
    List<Constraint> constraints = new ArrayList<>();
    for (int i = 0; i < constraintsNode.size(); i++) {
      constraints.add(constraint(constraintsNode.get(i), requests, where, path + ".constraints[" + i + "]"));
    }
    return new Claim(kind, namespace, name, requests, constraints, origin);
  }

  private Request request(JsonNode node, String where, String at, boolean v1beta1) throws ClaimInputException {
    String name = text(node, "name");
    if (name == null || !Names.isDnsLabel(name)) {
      throw new ClaimInputException(where + ": " + at + ".name: \"" + name + "\" is not a DNS label");
    }
    JsonNode exactly = node.path("exactly");
    JsonNode firstAvailable = node.path("firstAvailable");
    if (v1beta1 && exactly.isMissingNode() && firstAvailable.isMissingNode()) {
      // v1beta1 keeps the exactly fields on the request itself.
      exactly = node;
    }
    boolean hasExactly = !exactly.isMissingNode() && !exactly.isNull();
    boolean hasFirst = !firstAvailable.isMissingNode() && !firstAvailable.isNull();
    if (hasExactly == hasFirst) {
      throw new ClaimInputException(where + ": " + at + ": exactly one of exactly or firstAvailable must be set");
    }
    if (hasExactly) {
      return new Request(name, List.of(selection(name, exactly, where, at + (exactly == node ? "" : ".exactly"))), false);
    }
    if (!firstAvailable.isArray() || firstAvailable.isEmpty() || firstAvailable.size() > MAX_FIRST_AVAILABLE) {
      throw new ClaimInputException(where + ": " + at + ".firstAvailable must list 1 to " + MAX_FIRST_AVAILABLE + " subrequests");
    }
    List<DeviceSelection> alternatives = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < firstAvailable.size(); i++) {
      String subAt = at + ".firstAvailable[" + i + "]";
      String sub = text(firstAvailable.get(i), "name");
      if (sub == null || !Names.isDnsLabel(sub)) {
        throw new ClaimInputException(where + ": " + subAt + ".name: \"" + sub + "\" is not a DNS label");
      }
      if (!names.add(sub)) {
        throw new ClaimInputException(where + ": " + subAt + ".name: duplicate subrequest name \"" + sub + "\"");
      }
      alternatives.add(selection(sub, firstAvailable.get(i), where, subAt));
    }
    return new Request(name, alternatives, true);
  }

  private DeviceSelection selection(String name, JsonNode node, String where, String at) throws ClaimInputException {
    String className = text(node, "deviceClassName");
    if (className == null || className.isEmpty()) {
      throw new ClaimInputException(where + ": " + at + ".deviceClassName is required");
    }
    String modeText = text(node, "allocationMode");
    AllocationMode mode;
    if (modeText == null || modeText.isEmpty() || modeText.equals("ExactCount")) {
      mode = AllocationMode.EXACT_COUNT;
    } else if (modeText.equals("All")) {
      mode = AllocationMode.ALL;
    } else {
      throw new ClaimInputException(where + ": " + at + ".allocationMode: \"" + modeText + "\" is not ExactCount or All");
    }
    JsonNode countNode = node.path("count");
    long count;
    if (countNode.isMissingNode() || countNode.isNull()) {
      count = mode == AllocationMode.ALL ? 0 : 1;
    } else if (!countNode.isIntegralNumber() || !countNode.canConvertToLong()) {
      throw new ClaimInputException(where + ": " + at + ".count: \"" + countNode.asText() + "\" is not an integer");
    } else {
      count = countNode.asLong();
      if (mode == AllocationMode.ALL && count != 0) {
        throw new ClaimInputException(where + ": " + at + ".count: must not be specified when allocationMode is All");
      }
      if (mode == AllocationMode.EXACT_COUNT && count <= 0) {
        throw new ClaimInputException(where + ": " + at + ".count: must be greater than zero");
      }
    }
    SortedMap<String, BigDecimal> capacity = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : node.path("capacity").path("requests").properties()) {
      try {
        Names.requireQualifiedName(e.getKey());
        capacity.put(e.getKey(), Quantity.parse(e.getValue().asText()).toBigDecimal());
      } catch (IllegalArgumentException ex) {
        throw new ClaimInputException(where + ": " + at + ".capacity.requests[" + e.getKey() + "]: " + ex.getMessage());
      }
    }
    return new DeviceSelection(name, className, selectors(node.path("selectors"), where, at + ".selectors"), mode, count, capacity,
        tolerations(node.path("tolerations"), where, at + ".tolerations"));
  }

  /** {@code tolerations}: at most 16 ({@code DeviceTolerationsMaxLength}), operator Exists or Equal (the default). */
  private static List<ClaimModel.Toleration> tolerations(JsonNode node, String where, String at) throws ClaimInputException {
    if (node.isMissingNode() || node.isNull()) {
      return List.of();
    }
    if (!node.isArray() || node.size() > 16) {
      throw new ClaimInputException(where + ": " + at + " must be a list of at most 16 tolerations");
    }
    List<ClaimModel.Toleration> out = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      JsonNode t = node.get(i);
      String operator = text(t, "operator") == null ? "Equal" : text(t, "operator");
      if (!operator.equals("Exists") && !operator.equals("Equal")) {
        throw new ClaimInputException(where + ": " + at + "[" + i + "].operator: \"" + operator + "\" is not Exists or Equal");
      }
      String effect = text(t, "effect");
      if (effect != null && !effect.isEmpty() && !effect.equals("NoSchedule") && !effect.equals("NoExecute")
          && !effect.equals("None")) {
        throw new ClaimInputException(where + ": " + at + "[" + i + "].effect: \"" + effect + "\" is not NoSchedule, NoExecute or None");
      }
      out.add(new ClaimModel.Toleration(text(t, "key"), operator, text(t, "value"), effect));
    }
    return out;
  }

  private static List<String> selectors(JsonNode node, String where, String at) throws ClaimInputException {
    if (node.isMissingNode() || node.isNull()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw new ClaimInputException(where + ": " + at + " must be a list");
    }
    if (node.size() > MAX_SELECTORS) {
      throw new ClaimInputException(where + ": " + at + " has " + node.size() + " entries, the API allows at most " + MAX_SELECTORS);
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      JsonNode expression = node.get(i).path("cel").path("expression");
      if (!expression.isTextual() || expression.asText().isBlank()) {
        throw new ClaimInputException(where + ": " + at + "[" + i + "].cel.expression is required");
      }
      out.add(expression.asText());
    }
    return out;
  }

  private static Constraint constraint(JsonNode node, List<Request> requests, String where, String at)
      throws ClaimInputException {
    String match = text(node, "matchAttribute");
    String distinct = text(node, "distinctAttribute");
    if ((match == null) == (distinct == null)) {
      throw new ClaimInputException(where + ": " + at + ": exactly one of matchAttribute or distinctAttribute must be set");
    }
    ConstraintKind kind = match != null ? ConstraintKind.MATCH_ATTRIBUTE : ConstraintKind.DISTINCT_ATTRIBUTE;
    String attribute = match != null ? match : distinct;
    try {
      Names.requireQualifiedName(attribute);
    } catch (IllegalArgumentException e) {
      throw new ClaimInputException(where + ": " + at + "." + kind.apiName() + ": " + e.getMessage());
    }
    if (!attribute.contains("/")) {
      throw new ClaimInputException(where + ": " + at + "." + kind.apiName() + ": \"" + attribute
          + "\" must be fully qualified (domain/name, for example resource.kubernetes.io/pcieRoot)");
    }
    List<String> names = new ArrayList<>();
    for (JsonNode r : node.path("requests")) {
      String ref = r.asText();
      String base = ref.contains("/") ? ref.substring(0, ref.indexOf('/')) : ref;
      if (requests.stream().noneMatch(q -> q.name().equals(base))) {
        throw new ClaimInputException(where + ": " + at + ".requests: \"" + ref + "\" is not a request of this claim");
      }
      names.add(ref);
    }
    return new Constraint(names, kind, attribute);
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() || !v.isValueNode() ? null : v.asText();
  }
}
