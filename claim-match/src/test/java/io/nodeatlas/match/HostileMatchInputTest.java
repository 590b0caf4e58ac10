package io.nodeatlas.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.cel.Lookalikes;
import io.nodeatlas.match.cel.SelectorCompileException;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import io.nodeatlas.match.claims.ClaimInputException;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bounds of {@code match}'s input (issue 16): each hostile shape is an input error naming its bound. */
class HostileMatchInputTest {

  private static final DraCelEnvironment ENV = new DraCelEnvironment();
  private final ClaimDocumentParser parser = new ClaimDocumentParser();

  @TempDir Path dir;

  private static String deviceClass(String expression) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: c}
        spec:
          selectors:
          - cel: {expression: '%s'}
        """.formatted(expression);
  }

  @Test
  void deepNestingOfEveryShapeIsACompileErrorWithItsPosition() {
    for (String expression : List.of("(".repeat(4000) + "true" + ")".repeat(4000), "1" + " + 1".repeat(2400) + " > 0",
        "[".repeat(3000) + "]".repeat(3000) + " == []", "f(".repeat(3000) + ")".repeat(3000),
        "{1:".repeat(2000) + "1" + "}".repeat(2000) + " == {}", "device" + ".x".repeat(4000) + " == 1")) {
      assertThatThrownBy(() -> ENV.compile(expression)).as(expression.substring(0, 20))
          .isInstanceOf(SelectorCompileException.class)
          .hasMessageContaining("expression nested deeper than the limit of 100 levels")
          .satisfies(e -> {
            SelectorCompileException c = (SelectorCompileException) e;
            assertThat(c.line()).isEqualTo(1);
            assertThat(c.column()).isGreaterThan(1);
          });
    }
  }

  @Test
  void nestingWithinTheLimitCompilesAndEvaluates() throws Exception {
    var selector = ENV.compile("(".repeat(40) + "device.driver == \"nodeatlas.io\"" + ")".repeat(40));
    assertThat(selector.evaluate(io.nodeatlas.match.cel.DeviceVariable.of(NodeFixtures.hgxNode().get(0), "nodeatlas.io"))
        .matched()).isTrue();
    assertThat(ENV.compile("1" + " + 1".repeat(90) + " > 0")).isNotNull();
  }

  @Test
  void theNestingErrorPointsAtTheLineWhereItIsDeepest() {
    String expression = "device.driver == \"x\" ||\n" + "(".repeat(300) + "true" + ")".repeat(300);
    assertThatThrownBy(() -> ENV.compile(expression)).isInstanceOf(SelectorCompileException.class)
        .satisfies(e -> assertThat(((SelectorCompileException) e).line()).isEqualTo(2))
        .hasMessageContaining("line 2, column ");
  }

  @Test
  void aFileOverTheSizeCapIsRefusedBeforeItIsParsed() throws Exception {
    Path big = dir.resolve("big.yaml");
    Files.write(big, new byte[(int) ClaimDocumentParser.MAX_FILE_BYTES + 1]);
    assertThatThrownBy(() -> parser.parseFile(big)).isInstanceOf(ClaimInputException.class)
        .hasMessage(big + ": larger than the limit of 8388608 bytes (8 MiB)");
  }

  @Test
  void invalidUtf8IsRefusedWithItsByteOffset() throws Exception {
    Path file = Files.write(dir.resolve("latin1.yaml"), new byte[] {'k', 'i', 'n', 'd', ':', ' ', (byte) 0xe9, '\n'});
    assertThatThrownBy(() -> parser.parseFile(file)).isInstanceOf(ClaimInputException.class)
        .hasMessage(file + ": not UTF-8: invalid byte sequence at byte offset 6 (0xe9)");
  }

  @Test
  void nestingBeyondTheBoundIsRefusedWithLineAndColumn() {
    String json = "{\"a\":" + "[".repeat(200) + "]".repeat(200) + "}";
    assertThatThrownBy(() -> parser.parse("deep.json", json)).isInstanceOf(ClaimInputException.class)
        .hasMessageStartingWith("deep.json: line 1, column ").hasMessageEndingWith("nested deeper than the limit of 64 levels");
    String yaml = "a:\n" + "- ".repeat(200) + "1\n";
    assertThatThrownBy(() -> parser.parse("deep.yaml", yaml)).isInstanceOf(ClaimInputException.class)
        .hasMessageContaining("deep.yaml");
  }

  @Test
  void tokensBeyondTheBoundAreRefused() {
    StringBuilder json = new StringBuilder("{\"items\":[");
    for (int i = 0; i < ClaimDocumentParser.MAX_TOKENS; i++) {
      json.append("1,");
    }
    json.append("1]}");
    assertThatThrownBy(() -> parser.parse("tokens.json", json.toString())).isInstanceOf(ClaimInputException.class)
        .hasMessageEndingWith("more than 500000 tokens (the limit per file)");
  }

  @Test
  void documentsBeyondTheBoundAreRefusedWithTheirLine() {
    String yaml = "---\n{}\n".repeat(ClaimDocumentParser.MAX_DOCUMENTS + 5);
    assertThatThrownBy(() -> parser.parse("many.yaml", yaml)).isInstanceOf(ClaimInputException.class)
        .hasMessage("many.yaml: line 2002, column 1: more than 1000 documents (the limit per file)");
  }

  @Test
  void selectorsBeyondTheBoundOfOneRunAreRefused() throws Exception {
    StringBuilder classes = new StringBuilder();
    for (int i = 0; i < 9; i++) {
      classes.append("---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c").append(i)
          .append("}\nspec:\n  selectors:\n").append("  - cel: {expression: 'true'}\n".repeat(32));
    }
    Documents docs = parser.parse("classes.yaml", classes.toString());
    assertThatThrownBy(() -> ClaimDocumentParser.merge(List.of(docs))).isInstanceOf(ClaimInputException.class)
        .hasMessage("the input files hold 288 CEL selectors; the limit of one run is 256");
  }

  @Test
  void aliasBombsStayRefused() {
    StringBuilder yaml = new StringBuilder("a: &a [x,x,x,x,x,x,x,x,x]\n");
    for (char c = 'b'; c <= 'z'; c++) {
      char p = (char) (c - 1);
      yaml.append(c).append(": &").append(c).append(" [*").append(p).append(",*").append(p).append(",*").append(p)
          .append(",*").append(p).append(",*").append(p).append(",*").append(p).append(",*").append(p).append("]\n");
    }
    assertThatThrownBy(() -> parser.parse("bomb.yaml", yaml.toString())).isInstanceOf(ClaimInputException.class);
  }

  @Test
  void lookAlikesAreNamedByCodePoint() {
    assertThat(Lookalikes.didYouMean("node\u0430tlas.io", Set.of("nodeatlas.io", "resource.kubernetes.io")))
        .contains("did you mean \"nodeatlas.io\"? \"node\u0430tlas.io\" has U+0430 CYRILLIC SMALL LETTER A at character 5");
    assertThat(Lookalikes.didYouMean("ty\u200Bpe", Set.of("type")))
        .contains("did you mean \"type\"? \"ty\\u200bpe\" has U+200B ZERO WIDTH SPACE at character 3");
    assertThat(Lookalikes.didYouMean("\uFF54\uFF59\uFF50\uFF45", Set.of("type"))).get().asString()
        .startsWith("did you mean \"type\"?").contains("U+FF54 FULLWIDTH LATIN SMALL LETTER T at character 1");
    assertThat(Lookalikes.didYouMean("n\u03BFdeatlas.io", Set.of("nodeatlas.io"))).get().asString()
        .contains("U+03BF GREEK SMALL LETTER OMICRON at character 2");
    assertThat(Lookalikes.didYouMean("gpuType", Set.of("type"))).isEmpty();
    assertThat(Lookalikes.didYouMean("nodeatlas.io", Set.of("nodeatlas.io"))).isEmpty();
  }

  @Test
  void aLookAlikeOrInvisibleCharacterInAnIdentifierIsNamedInTheCompileError() {
    assertThatThrownBy(() -> ENV.compile("device.attributes[\"nodeatlas.io\"].t\u0443pe == \"gpu\""))
        .isInstanceOf(SelectorCompileException.class)
        .hasMessageContaining("line 1, column 36")
        .hasMessageContaining("the character there is U+0443 CYRILLIC SMALL LETTER U, which looks like \"y\"");
    assertThatThrownBy(() -> ENV.compile("device.dri\u200Bver == \"nodeatlas.io\""))
        .isInstanceOf(SelectorCompileException.class)
        .hasMessageContaining("the character there is U+200B ZERO WIDTH SPACE, which is invisible");
  }

  @Test
  void aLookAlikeDomainOrNameInASelectorGetsADidYouMeanInTheRejection() throws Exception {
    Documents docs = ClaimDocumentParser.merge(List.of(parser.parse("classes.yaml", NodeFixtures.DEVICE_CLASSES),
        parser.parse("claim.yaml", """
            apiVersion: resource.k8s.io/v1
            kind: ResourceClaim
            metadata: {name: spoof}
            spec:
              devices:
                requests:
                - name: gpu
                  exactly:
                    deviceClassName: gpu.nodeatlas.io
                    selectors:
                    - cel: {expression: 'device.attributes["node\u0430tlas.io"].type == "gpu"'}
                - name: other
                  exactly:
                    deviceClassName: gpu.nodeatlas.io
                    selectors:
                    - cel: {expression: 'device.attributes["nodeatlas.io"]["t\u0443pe"] == "gpu"'}
            """)));
    MatchReport report = new ClaimMatcher(ENV).match("n", NodeFixtures.hgxNode(), docs);
    assertThat(report.allSatisfiable()).isFalse();
    String table = MatchReportWriter.table(report, true);
    assertThat(table).contains("device.attributes domain: did you mean \"nodeatlas.io\"? \"node\u0430tlas.io\" has "
        + "U+0430 CYRILLIC SMALL LETTER A at character 5");
    assertThat(table).contains("device.attributes[\"nodeatlas.io\"] name: did you mean \"type\"? \"t\u0443pe\" has "
        + "U+0443 CYRILLIC SMALL LETTER U at character 2");
    assertThat(report.claims().get(0).reason()).contains("did you mean \"nodeatlas.io\"?");
  }
}
