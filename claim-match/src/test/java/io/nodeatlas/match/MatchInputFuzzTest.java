package io.nodeatlas.match;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.match.cel.CompiledSelector;
import io.nodeatlas.match.cel.DeviceVariable;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.cel.SelectorCompileException;
import io.nodeatlas.match.cel.SelectorResult;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import io.nodeatlas.match.claims.ClaimInputException;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import java.util.List;

/**
 * The user-controlled input path of {@code nodeatlas match}: YAML/JSON documents and CEL selectors. Any
 * input either is rejected as invalid input or evaluates; nothing crashes, and evaluation stops at the
 * cost limit. Runs the seeds under {@code MatchInputFuzzTestInputs/} unless JAZZER_FUZZ=1.
 */
class MatchInputFuzzTest {

  private static final DraCelEnvironment ENV = new DraCelEnvironment();
  private static final List<Device> NODE = NodeFixtures.hgxNode();
  /** A GPU, an RDMA VF and a CPU device: every attribute type and both allowMultipleAllocations values. */
  private static final List<Device> SAMPLE = List.of(NODE.get(0), NODE.get(10),
      NODE.stream().filter(d -> d.name().equals("cpu-numa0")).findFirst().orElseThrow());

  @FuzzTest(maxDuration = "60s")
  void documentsAreRejectedOrMatched(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    ClaimDocumentParser parser = new ClaimDocumentParser();
    try {
      Documents docs = ClaimDocumentParser.merge(List.of(parser.parse("classes.yaml", NodeFixtures.DEVICE_CLASSES),
          parser.parse("fuzz.yaml", text)));
      MatchReport report = new ClaimMatcher(ENV).match("fuzz", NODE, docs);
      assertThat(report.claims()).hasSameSizeAs(docs.claims());
      assertThat(MatchReportWriter.json(report)).isNotEmpty();
      assertThat(MatchReportWriter.table(report, true)).isNotNull();
    } catch (ClaimInputException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
  }

  @FuzzTest(maxDuration = "60s")
  void selectorsCompileOrFailWithPositionAndStopAtTheCostLimit(FuzzedDataProvider data) {
    String expression = data.consumeRemainingAsString();
    CompiledSelector selector;
    try {
      selector = ENV.compile(expression);
    } catch (SelectorCompileException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      assertThat(expected.line()).isGreaterThanOrEqualTo(0);
      return;
    }
    for (Device d : SAMPLE) {
      SelectorResult r = selector.evaluate(DeviceVariable.of(d, Names.DRIVER));
      assertThat(r.outcome()).isNotNull();
      if (r.outcome() == SelectorResult.Outcome.ERROR) {
        assertThat(r.error()).isNotBlank();
      }
    }
  }
}
