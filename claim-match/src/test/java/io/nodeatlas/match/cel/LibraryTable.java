package io.nodeatlas.match.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.match.cel.SelectorResult.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The rows of one upstream library test table (k8s.io/apiserver {@code pkg/cel/library/*_test.go}): a value row
 * holds when {@code (expression) == (expected)}; an error row when evaluation fails with upstream's message; a
 * compile-error row when the checker refuses the expression.
 */
final class LibraryTable {

  record Row(String name, String expression, String expected, String runtimeError, String compileError) {
    @Override
    public String toString() {
      return name + " " + expression;
    }
  }

  /** How an expression is compiled for the table (with the size bounds its upstream test used). */
  interface Compiler {
    CompiledSelector compile(String expression) throws SelectorCompileException;
  }

  private static final Map<String, Object> NO_DEVICE = DeviceVariable.assemble("", false, Map.of(), Map.of());

  private final List<Row> rows = new ArrayList<>();

  void value(String name, String expression, String expected) {
    rows.add(new Row(name, expression, expected, null, null));
  }

  /** {@code pattern}: a regular expression the error text contains. */
  void runtimeError(String name, String expression, String pattern) {
    rows.add(new Row(name, expression, null, pattern, null));
  }

  void compileError(String name, String expression, String pattern) {
    rows.add(new Row(name, expression, null, null, pattern));
  }

  Stream<Row> rows() {
    return rows.stream();
  }

  /** Checks one row; {@code errorEndsWith} compares runtime errors by their end instead of as a pattern. */
  static void check(Row r, Compiler env, boolean errorEndsWith) throws Exception {
    if (r.compileError() != null) {
      assertThatThrownBy(() -> env.compile("[" + r.expression() + "].size() == 1"))
          .hasMessageMatching("(?s).*" + r.compileError() + ".*");
      return;
    }
    if (r.runtimeError() != null) {
      SelectorResult result = env.compile("[" + r.expression() + "].size() == 1").evaluate(NO_DEVICE);
      assertThat(result.outcome()).isEqualTo(Outcome.ERROR);
      if (errorEndsWith) {
        assertThat(result.error()).endsWith(r.runtimeError());
      } else {
        assertThat(result.error()).containsPattern(r.runtimeError());
      }
      return;
    }
    SelectorResult result = env.compile("(" + r.expression() + ") == (" + r.expected() + ")").evaluate(NO_DEVICE);
    assertThat(result.error()).isNull();
    assertThat(result.outcome()).isEqualTo(Outcome.MATCH);
  }
}
