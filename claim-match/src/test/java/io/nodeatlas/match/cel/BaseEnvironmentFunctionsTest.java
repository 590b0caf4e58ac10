package io.nodeatlas.match.cel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every function of the 1.37 base environment, by name: the apiserver's own list of its libraries' functions
 * (k8s.io/apiserver {@code pkg/cel/library/library_compatibility_test.go}, {@code knownFunctions}, up to
 * "Kubernetes &lt;1.37&gt;: includes") and the cel-go extensions {@code environment/base.go} adds at 1.37
 * (strings version 2, lists version 3, sets, optional types). Each is declared here unless it is one of
 * {@link #NOT_PROVIDED}: a call with no arguments must fail for its arguments ("no matching overload"),
 * never as an unknown function.
 */
class BaseEnvironmentFunctionsTest {

  private static final DraCelEnvironment ENV = new DraCelEnvironment();

  private static final List<String> APISERVER = List.of(
      // Kubernetes 1.24:
      "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "find", "findAll", "url", "getScheme", "getHost",
      "getHostname", "getPort", "getEscapedPath", "getQuery", "isURL",
      // Kubernetes <1.27>:
      "path", "group", "serviceAccount", "resource", "subresource", "namespace", "name", "check", "allowed", "reason",
      // Kubernetes <1.28>:
      "errored", "error",
      // Kubernetes <1.29>:
      "add", "asApproximateFloat", "asInteger", "compareTo", "isGreaterThan", "isInteger", "isLessThan", "isQuantity",
      "quantity", "sign", "sub",
      // Kubernetes <1.30>:
      "ip", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast",
      "ip.isCanonical", "isIP", "cidr", "containsIP", "containsCIDR", "masked", "prefixLength", "isCIDR", "string",
      // Kubernetes <1.31>:
      "fieldSelector", "labelSelector", "validate", "format.named", "isSemver", "major", "minor", "patch", "semver",
      // Kubernetes <1.32>:
      "jsonpatch.escapeKey",
      // Kubernetes <1.37>:
      "includes");

  private static final List<String> CEL_GO_EXTENSIONS = List.of(
      // ext.Strings(ext.StringsVersion(2)), without format (see NOT_PROVIDED):
      "charAt", "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim", "join",
      "strings.quote",
      // ext.Lists(ext.ListsVersion(3)):
      "slice", "flatten", "lists.range", "distinct", "reverse", "sort",
      // ext.Sets():
      "sets.contains", "sets.equivalent", "sets.intersects",
      // cel.OptionalTypes():
      "optional.of", "optional.ofNonZeroValue", "optional.none", "hasValue", "value", "or", "orValue");

  /**
   * Not in the selector environment, with the reason: the URL library and the format library (cel-java has no
   * counterpart and a device selector has no URL or object name to check), the authorizer and its selector
   * functions (base.go adds them, but DRA selectors have no {@code authorizer} variable to call them on), and
   * {@code jsonpatch.escapeKey} (not in base.go: the MutatingAdmissionPolicy environment adds it).
   */
  static final Set<String> NOT_PROVIDED = Set.of("url", "getScheme", "getHost", "getHostname", "getPort",
      "getEscapedPath", "getQuery", "isURL", "path", "group", "serviceAccount", "resource", "subresource", "namespace",
      "name", "check", "allowed", "reason", "errored", "error", "fieldSelector", "labelSelector", "validate",
      "format.named", "jsonpatch.escapeKey");

  @Test
  void everyFunctionOfTheBaseEnvironmentIsDeclared() {
    Set<String> unknown = new TreeSet<>();
    List<String> all = new ArrayList<>(APISERVER);
    all.addAll(CEL_GO_EXTENSIONS);
    for (String fn : all) {
      String message;
      try {
        ENV.compile(fn + "()");
        message = "";
      } catch (SelectorCompileException e) {
        message = e.getMessage();
      }
      // Declared: no call with zero arguments exists, or one does (but is not a bool). Anything else (an
      // undeclared reference, or a syntax error for "namespace", which CEL reserves) is not provided.
      if (message.isEmpty() || message.contains("no matching overload") || message.contains("must evaluate to bool")) {
        assertThat(NOT_PROVIDED).as(fn + " is declared").doesNotContain(fn);
      } else {
        unknown.add(fn);
      }
    }
    assertThat(unknown).isEqualTo(new TreeSet<>(NOT_PROVIDED));
  }

  @Test
  void theMacrosOfTheSameVersionExpand() throws Exception {
    for (String macro : List.of("dyn([3, 1].sortBy(x, -x)) == [3, 1]", "cel.bind(x, 1, x == 1)",
        "[1, 2].transformList(i, v, v * 2) == [2, 4]", "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}",
        "{'a': 1}.transformMapEntry(k, v, {v: k}) == {1: 'a'}", "[1, 2].existsOne(i, v, v == 2)",
        "optional.of(1).hasValue()")) {
      assertThat(ENV.compile(macro).evaluate(DeviceVariable.assemble("", false, java.util.Map.of(), java.util.Map.of()))
          .matched()).as(macro).isTrue();
    }
  }
}
