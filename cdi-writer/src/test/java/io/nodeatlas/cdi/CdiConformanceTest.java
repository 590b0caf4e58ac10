package io.nodeatlas.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.nodeatlas.cdi.spec.CdiSpecCodec;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.testing.Conformance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Our specs and the real specs of other projects (shared/conformance/cdi-examples), checked both by our
 * validator and by the CDI project's JSON schema (shared/conformance/cdi-schema, draft-07, through
 * networknt json-schema-validator). The schema is lax: it is the type check, our validator
 * the library's rules.
 */
class CdiConformanceTest {

  private static Schema schema() {
    Path dir = Conformance.corpus("cdi-schema");
    // The validator refuses to fetch file: URLs by itself; hand it the two files under a private base
    // URI so schema.json's relative "$ref": "defs.json#/..." resolves to the corpus copy.
    String base = "https://schemas.nodeatlas.test/cdi/";
    java.util.Map<String, String> files = new java.util.HashMap<>();
    for (String name : List.of("schema.json", "defs.json")) {
      try {
        files.put(base + name, Files.readString(dir.resolve(name)));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7, b -> b.schemas(files));
    return registry.getSchema(SchemaLocation.of(base + "schema.json"));
  }

  private static List<Path> examples() throws IOException {
    try (Stream<Path> files = Files.list(Conformance.corpus("cdi-examples"))) {
      return files.filter(p -> SpecFormat.ofFileName(p.getFileName().toString()).isPresent()).sorted().toList();
    }
  }

  @Test
  void everyGeneratedSpecPassesTheSchemaAndOurValidator() {
    Schema schema = schema();
    CdiSpecCodec codec = new CdiSpecCodec();
    CdiValidator validator = new CdiValidator();
    List<CdiSpecFile> specs = new ArrayList<>();
    for (SpecFormat format : SpecFormat.values()) {
      specs.addAll(CdiSpecGenerator.builder().format(format).build().generate(SyntheticNode.devices()).specs());
    }
    specs.add(new ClaimCdiSpecs().forClaim("8a3c6f0e-5b1d-4c1e-9f0a-2b7d3e4f5a6b",
        SyntheticNode.devices().subList(0, 3)).file().orElseThrow());
    assertThat(specs).hasSizeGreaterThan(10);
    for (CdiSpecFile f : specs) {
      assertThat(schema.validate(codec.toTree(f.spec()))).as("schema errors of %s", f.fileName()).isEmpty();
      // The written text (not just the tree) must read back to the same spec and stay valid.
      String text = codec.write(f.spec(), f.format());
      assertThat(validator.validate(readBack(codec, text), f.fileName())).as(f.fileName()).isEmpty();
    }
  }

  @Test
  void everyConformanceExamplePassesTheSchemaAndOurValidator() throws IOException {
    Schema schema = schema();
    CdiValidator validator = new CdiValidator();
    List<Path> examples = examples();
    assertThat(examples).hasSizeGreaterThanOrEqualTo(6);
    for (Path file : examples) {
      JsonNode tree = (file.toString().endsWith(".json") ? new ObjectMapper() : new YAMLMapper()).readTree(file.toFile());
      List<Error> errors = schema.validate(tree);
      assertThat(errors).as("schema errors of %s", file).isEmpty();
      assertThat(validator.validateFile(file)).as("our validator on %s", file).isEmpty();
    }
  }

  @Test
  void theSchemaCheckIsLive() {
    ObjectNode tree = new CdiSpecCodec().toTree(
        CdiSpecGenerator.builder().build().generate(SyntheticNode.devices()).specs().get(0).spec());
    ((ObjectNode) tree.get("devices").get(0).get("containerEdits").get("deviceNodes").get(0)).put("major", "195");
    tree.remove("kind");
    assertThat(schema().validate(tree)).extracting(e -> e.getInstanceLocation() + ": " + e.getMessage())
        .containsExactlyInAnyOrder(
            ": required property 'kind' not found",
            "/devices/0/containerEdits/deviceNodes/0/major: string found, integer expected");
  }

  private static io.nodeatlas.cdi.spec.CdiSpec readBack(CdiSpecCodec codec, String text) {
    try {
      return codec.read(text);
    } catch (io.nodeatlas.cdi.spec.CdiParseException e) {
      throw new AssertionError(e.getMessage(), e);
    }
  }
}
