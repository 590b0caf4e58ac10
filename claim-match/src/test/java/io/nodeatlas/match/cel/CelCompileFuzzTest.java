package io.nodeatlas.match.cel;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.match.NodeFixtures;
import java.util.Map;

/**
 * The CEL compile path on the launcher's small stack: any text compiles or fails with a
 * {@link SelectorCompileException} carrying a position, never a {@link StackOverflowError} or another
 * exception; what compiles evaluates to a result. Seeds under {@code CelCompileFuzzTestInputs/} are deep
 * nestings of every shape (parentheses, lists, maps, calls, member chains, arithmetic chains, unary
 * operators) at and beyond the parser's recursion limit; JAZZER_FUZZ=1 fuzzes from them.
 */
class CelCompileFuzzTest {

  private static final DraCelEnvironment ENV = new DraCelEnvironment();
  private static final Map<String, Object> DEVICE = DeviceVariable.of(NodeFixtures.hgxNode().get(0), Names.DRIVER);

  @FuzzTest(maxDuration = "60s")
  void compileNeverEscapesWithAnErrorAndReportsAPosition(byte[] data) {
    String expression = new String(data, java.nio.charset.StandardCharsets.UTF_8);
    CompiledSelector selector;
    try {
      selector = ENV.compile(expression);
    } catch (SelectorCompileException expected) {
      if (expected.getMessage().isBlank() || expected.line() < 0 || expected.column() < 0) {
        throw new AssertionError("compile error without a message or with a bad position: " + expected);
      }
      if (expected.getMessage().contains("nested") && (expected.line() < 1 || expected.column() < 1)) {
        throw new AssertionError("nesting error without a position: " + expected.getMessage());
      }
      return;
    }
    SelectorResult r = selector.evaluate(DEVICE);
    if (r.outcome() == null || (r.outcome() == SelectorResult.Outcome.ERROR && r.error().isBlank())) {
      throw new AssertionError("evaluation without an outcome: " + r);
    }
  }
}
