package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The checkpoint's canonical JSON, over which its SHA-256 is defined: no insignificant white space,
 * object members sorted by name at every level (as RFC 8785 does), strings as Jackson escapes them,
 * integers in decimal and other numbers as their shortest exact decimal. Also the one mapper that reads
 * and writes checkpoints, with the input limits every read obeys.
 */
final class CanonicalJson {

  /** Deeper documents are refused: a checkpoint nests six levels; newer minor versions get room, not a stack overflow. */
  static final int MAX_NESTING = 64;
  /** The longest string or member name read (a placement's text is at most 4,096 characters). */
  static final int MAX_STRING_CHARS = 1 << 20;

  static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  private CanonicalJson() {}

  /**
   * A mapper that writes records with their members sorted and maps by key (so a record's encoding is
   * canonical as written), reads decimals exactly, refuses duplicate members and skips unknown ones.
   */
  static ObjectMapper mapper() {
    JsonMapper mapper = JsonMapper.builder()
        .nodeFactory(NODES)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        // Text is text: a number or a boolean where a string belongs is a damaged file, not a value to convert.
        .withCoercionConfig(LogicalType.Textual, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
            .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
            .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
        .build();
    mapper.getFactory().setStreamReadConstraints(limits());
    return mapper;
  }

  /** Size, depth and length limits of every checkpoint read. */
  static StreamReadConstraints limits() {
    return StreamReadConstraints.builder()
        .maxDocumentLength(Checkpoint.MAX_FILE_BYTES)
        .maxNestingDepth(MAX_NESTING)
        .maxStringLength(MAX_STRING_CHARS)
        .maxNameLength(MAX_STRING_CHARS)
        .build();
  }

  /** The canonical encoding of {@code node}. */
  static byte[] bytes(ObjectMapper mapper, JsonNode node) {
    try {
      return mapper.writeValueAsBytes(canonical(node));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode " + node.getNodeType(), e);
    }
  }

  /** {@code sha256:<hex>} of {@code bytes}. */
  static String sha256(byte[] bytes) {
    return hex(sha256().digest(bytes));
  }

  static String hex(byte[] digest) {
    return "sha256:" + HexFormat.of().formatHex(digest);
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-256", e);
    }
  }

  /**
   * {@code node} with object members sorted at every level and numbers in their shortest exact form:
   * {@code node} itself when it is so already (a record's tree as the mapper makes it), else a copy.
   * Trees are not changed once made, so sharing one is safe.
   */
  static JsonNode canonical(JsonNode node) {
    return isCanonical(node) ? node : canonicalCopy(node);
  }

  /** Whether every object of {@code node} has its members in name order and it holds no non-integral number. */
  private static boolean isCanonical(JsonNode node) {
    if (node.isObject()) {
      String previous = null;
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (previous != null && previous.compareTo(e.getKey()) >= 0 || !isCanonical(e.getValue())) {
          return false;
        }
        previous = e.getKey();
      }
      return true;
    }
    if (node.isArray()) {
      for (JsonNode e : node) {
        if (!isCanonical(e)) {
          return false;
        }
      }
      return true;
    }
    return !node.isNumber() || node.isIntegralNumber();
  }

  private static JsonNode canonicalCopy(JsonNode node) {
    if (node.isObject()) {
      SortedMap<String, JsonNode> sorted = new TreeMap<>();
      node.fields().forEachRemaining(e -> sorted.put(e.getKey(), canonical(e.getValue())));
      ObjectNode out = NODES.objectNode();
      sorted.forEach(out::set);
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = NODES.arrayNode(node.size());
      node.forEach(e -> out.add(canonical(e)));
      return out;
    }
    if (node.isNumber() && !node.isIntegralNumber()) {
      return NODES.numberNode(node.decimalValue().stripTrailingZeros());
    }
    return node;
  }
}
