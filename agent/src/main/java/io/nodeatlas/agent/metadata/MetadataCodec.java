package io.nodeatlas.agent.metadata;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.share.NetworkData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The metadata file's format (KEP-5304; k8s.io/dynamic-resource-allocation {@code api/metadata/doc.go}):
 * a concatenated JSON stream holding the same {@code DeviceMetadata} object once per API version, newest
 * first, each with {@code apiVersion} and {@code kind}, so that a reader takes the first version it knows
 * and skips the others (the reference reader, {@code devicemetadata/decode.go}, skips unregistered
 * versions and fails on anything else). The only version upstream defines is
 * {@code metadata.resource.k8s.io/v1alpha1} ({@code api/metadata/v1alpha1/types.go}); a newer one goes
 * first in {@link #VERSIONS} once upstream defines it.
 */
public final class MetadataCodec {

  /** The API group of the metadata types ({@code api/metadata/register.go}). */
  public static final String GROUP = "metadata.resource.k8s.io";
  /** {@code kind} of every object of the stream. */
  public static final String KIND = "DeviceMetadata";
  /** The versions written, newest first. */
  public static final List<String> VERSIONS = List.of(GROUP + "/v1alpha1");
  /** A file larger than this is refused when written and invalid when read (a request's devices fit in a few KiB). */
  public static final int MAX_BYTES = 1 << 20;

  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .build();
  private static final ObjectMapper READER = JsonMapper.builder(new com.fasterxml.jackson.core.JsonFactoryBuilder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).maxStringLength(MAX_BYTES).build())
      .build()).build();

  private MetadataCodec() {}

  /** The file's bytes: the object once per version of {@link #VERSIONS}, each on lines of its own. */
  public static byte[] encode(RequestMetadata m) throws IOException {
    return encode(m, null);
  }

  /**
   * {@link #encode(RequestMetadata)}, each device's entry taken from {@code entries} where it gives one
   * ({@link #entry}'s bytes of that device; null: written here). The same bytes either way.
   */
  public static byte[] encode(RequestMetadata m, Function<RequestMetadata.DeviceEntry, SerializableString> entries)
      throws IOException {
    Out out = new Out();
    for (String version : VERSIONS) {
      // Written straight from the record with the mapper's generator (its pretty printer): the bytes a tree
      // of the same members gave, without the tree (every Prepare writes a file per request). The newline
      // goes through the generator too, so that an object within its buffer reaches the stream in one write.
      try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
        write(g, version, m, entries);
        g.writeRaw('\n');
      }
    }
    if (out.size() > MAX_BYTES) {
      throw new IOException("the metadata of request " + m.request() + " would be " + out.size() + " bytes, more than "
          + MAX_BYTES);
    }
    return out.bytes();
  }

  /**
   * A stream that hands over its own array when it is full: a file that reaches it in one write (the
   * generator's buffer holds 8,000 bytes) costs one array of its size, not a growing one and a copy.
   */
  private static final class Out extends ByteArrayOutputStream {
    Out() {
      super(256);
    }

    byte[] bytes() {
      return count == buf.length ? buf : java.util.Arrays.copyOf(buf, count);
    }
  }

  /** {@code v1alpha1.DeviceMetadata}; members in the order of the Go type, empty optionals left out. */
  private static void write(JsonGenerator g, String version, RequestMetadata m,
      Function<RequestMetadata.DeviceEntry, SerializableString> entries) throws IOException {
    g.writeStartObject();
    g.writeStringField("apiVersion", version);
    g.writeStringField("kind", KIND);
    g.writeObjectFieldStart("metadata");
    g.writeStringField("name", m.claimName());
    g.writeStringField("namespace", m.namespace());
    g.writeStringField("uid", m.claimUid());
    g.writeNumberField("generation", m.generation());
    g.writeEndObject();
    if (!m.podClaimName().isEmpty()) {
      g.writeStringField("podClaimName", m.podClaimName());
    }
    g.writeArrayFieldStart("requests");
    g.writeStartObject();
    g.writeStringField("name", m.request());
    if (!m.devices().isEmpty()) {
      g.writeArrayFieldStart("devices");
      for (RequestMetadata.DeviceEntry d : m.devices()) {
        SerializableString known = entries == null ? null : entries.apply(d);
        if (known != null) {
          g.writeRawValue(known); // the separator and indentation before it come from the generator, as for a value
        } else {
          writeEntry(g, d);
        }
      }
      g.writeEndArray();
    }
    g.writeEndObject();
    g.writeEndArray();
    g.writeEndObject();
  }

  /**
   * The generator's nesting before a device's entry: the object, a request (the {@code requests} and
   * {@code devices} arrays stay on their line, as the default pretty printer writes them).
   */
  private static final int ENTRY_NESTING = 2;

  /**
   * One device's entry as {@link #encode} writes it inside a file (its place fixes its indentation), to be
   * given back to {@link #encode(RequestMetadata, Function)} for every file that holds the device: the
   * entry of a device with its attributes is most of a file's encoding, and it is the same in every claim.
   */
  public static SerializableString entry(RequestMetadata.DeviceEntry d) throws IOException {
    Out out = new Out();
    try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      g.setPrettyPrinter(new Nested(ENTRY_NESTING));
      writeEntry(g, d);
    }
    SerializedString s = new SerializedString(new String(out.bytes(), StandardCharsets.UTF_8));
    s.asUnquotedUTF8(); // encoded once, here, not by the first file that uses it
    return s;
  }

  /** {@link #entry}, for tests. */
  static SerializableString entryOrFail(RequestMetadata.DeviceEntry d) {
    try {
      return entry(d);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The mapper's pretty printer, started at a nesting of {@code nesting} objects. */
  private static final class Nested extends DefaultPrettyPrinter {
    private static final long serialVersionUID = 1L;

    Nested(int nesting) {
      _nesting = nesting;
    }
  }

  /** {@code v1alpha1.Device}: driver, pool, name, attributes, networkData. */
  private static void writeEntry(JsonGenerator g, RequestMetadata.DeviceEntry d) throws IOException {
    g.writeStartObject();
    g.writeStringField("driver", d.driver());
    g.writeStringField("pool", d.pool());
    g.writeStringField("name", d.name());
    if (!d.attributes().isEmpty()) {
      // resource.k8s.io/v1 DeviceAttribute: one member named after the value's type.
      g.writeObjectFieldStart("attributes");
      for (Map.Entry<String, AttributeValue> a : d.attributes().entrySet()) {
        g.writeObjectFieldStart(a.getKey());
        g.writeFieldName(a.getValue().typeName());
        writeValue(g, a.getValue());
        g.writeEndObject();
      }
      g.writeEndObject();
    }
    if (d.networkData().isPresent()) {
      // resource.k8s.io/v1 NetworkDeviceData: interfaceName, ips, hardwareAddress; no IPs are known here.
      NetworkData n = d.networkData().get();
      g.writeObjectFieldStart("networkData");
      if (!n.interfaceName().isEmpty()) {
        g.writeStringField("interfaceName", n.interfaceName());
      }
      if (!n.hardwareAddress().isEmpty()) {
        g.writeStringField("hardwareAddress", n.hardwareAddress());
      }
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  private static void writeValue(JsonGenerator g, AttributeValue v) throws IOException {
    if (v instanceof AttributeValue.IntValue i) {
      g.writeNumber(i.value());
    } else if (v instanceof AttributeValue.BoolValue b) {
      g.writeBoolean(b.value());
    } else if (v instanceof AttributeValue.StringsValue s) {
      g.writeStartArray();
      for (String one : s.values()) {
        g.writeString(one);
      }
      g.writeEndArray();
    } else {
      g.writeString((String) v.asObject()); // a string or a version
    }
  }

  /**
   * The first object of a metadata stream whose {@code apiVersion} this codec knows, read as the
   * reference reader does: objects without {@code apiVersion} or of another {@code kind} fail the
   * stream, versions of another API group or unknown versions of ours are skipped; empty when no object
   * is of a known version. Throws on bytes that are not a stream of JSON objects.
   */
  public static Optional<JsonNode> firstKnown(byte[] stream) throws IOException {
    if (stream.length > MAX_BYTES) {
      throw new IOException("the metadata file is " + stream.length + " bytes, more than " + MAX_BYTES);
    }
    try (JsonParser p = READER.createParser(stream); MappingIterator<JsonNode> it = READER.readValues(p, JsonNode.class)) {
      while (it.hasNextValue()) {
        JsonNode o = it.nextValue();
        if (!o.isObject() || !o.path("apiVersion").isTextual() || o.path("apiVersion").asText().isEmpty()) {
          throw new IOException("a metadata object without apiVersion");
        }
        if (!VERSIONS.contains(o.get("apiVersion").asText())) {
          continue;
        }
        if (!KIND.equals(o.path("kind").asText())) {
          throw new IOException("a metadata object of kind " + o.path("kind").asText() + ", not " + KIND);
        }
        return Optional.of(o);
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException | RuntimeException e) {
      throw new IOException("not a stream of JSON objects: " + e.getMessage(), e);
    }
    return Optional.empty();
  }
}
