package io.nodeatlas.match.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.match.cel.SelectorResult.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scheduler's own table, case by case: k8s.io/dynamic-resource-allocation {@code cel/compile_test.go}
 * ({@code testcases}, HEAD of 2026-07-01), with its expressions, devices, outcomes and worst-case costs. Each case
 * must compile or fail to compile as upstream, match or fail at run time as upstream, and our estimate must be
 * upstream's {@code expectCost} exactly (the estimator follows cel-go's rule for rule, so it is never below).
 *
 * <p>Left out, because they test an environment nodeatlas does not model (we evaluate as the 1.37 scheduler
 * with every DRA feature on, i.e. upstream's {@code StoredExpressions}): {@code includes-function-compilation-error}
 * and {@code allow_multiple_allocations_disabled} (both {@code NewExpressions} with a feature gate off). Error texts
 * cel-java words differently are matched by the part both share; see {@link #error}.
 */
class UpstreamDraCelTableTest {

  private static final DraCelEnvironment ENV = new DraCelEnvironment();
  private static final String D = "dra.example.com";

  record Case(String name, String expression, String driver, Map<String, Object> attributes,
      Map<String, Object> capacity, boolean multi, String compileError, String matchError, boolean match,
      long cost) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final List<Case> CASES = new ArrayList<>();

  private static void ok(String name, String expr, String driver, Map<String, Object> attrs, Map<String, Object> caps,
      boolean match, long cost) {
    CASES.add(new Case(name, expr, driver, attrs, caps, false, null, null, match, cost));
  }

  private static void matchError(String name, String expr, String driver, Map<String, Object> attrs,
      String error, long cost) {
    CASES.add(new Case(name, expr, driver, attrs, Map.of(), false, null, error, false, cost));
  }

  private static Map<String, Object> a(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  private static SemverValue v(String s) {
    return SemverValue.parse(s);
  }

  private static List<SemverValue> vs(String... s) {
    return Stream.of(s).map(SemverValue::parse).toList();
  }

  private static final long MAX_ELEMENTS = 64; // max(DeviceAttributeMaxValueLength, ResourceSliceMaxAttributeValuesPerDevice)

  static {
    ok("true", "true", "", a(), a(), true, 0);
    ok("false", "false", "", a(), a(), false, 0);
    CASES.add(new Case("syntax-error", "?!", "", a(), a(), false, "Syntax error", null, false, 0));
    CASES.add(new Case("type-error", "1", "", a(), a(), false, "must evaluate to bool or the unknown type, not int",
        null, false, 0));
    matchError("runtime-error-lookup-identifier",
        "device.attributes[\"no-such-domain\"].noSuchAttr.isGreaterThan(quantity(\"0\"))", "", a(), "noSuchAttr", 6);
    matchError("runtime-error-lookup-map",
        "device.attributes[\"no-such-domain\"][\"noSuchAttr\"].isGreaterThan(quantity(\"0\"))", "", a(), "noSuchAttr", 6);
    ok("domain-check-negative", "\"no-such-domain\" in device.attributes", "", a(), a(), false, 3);
    ok("domain-check-positive", "\"dra.example.com\" in device.attributes", "",
        a("dra.example.com/something", true), a(), true, 3);
    ok("empty-driver-name", "device.driver == \"\"", "", a(), a(), true, 2);
    ok("real-driver-name", "device.driver == \"dra.example.com\"", D, a(), a(), true, 4);
    ok("driver-name-qualifier", "device.attributes[\"dra.example.com\"].name", D, a("name", true), a(), true, 4);
    ok("driver-name-qualifier-map-lookup", "device.attributes[\"dra.example.com\"][\"name\"]", D, a("name", true),
        a(), true, 4);
    ok("bind", "cel.bind(dra, device.attributes[\"dra.example.com\"], dra.name)", D, a("name", true), a(), true, 15);
    ok("qualified-attribute-name", "device.attributes[\"other.example.com\"].name", D,
        a("other.example.com/name", true), a(), true, 4);
    ok("bool", "device.attributes[\"dra.example.com\"].name", D, a("name", true), a(), true, 4);
    ok("int", "device.attributes[\"dra.example.com\"].name > 0", D, a("name", 1L), a(), true, 5);
    ok("string", "device.attributes[\"dra.example.com\"].name == \"fish\"", D, a("name", "fish"), a(), true, 5);
    long existsCost = 5 + (3 + 3) * MAX_ELEMENTS;
    matchError("macro-exists-on-int", "device.attributes[\"dra.example.com\"].name.exists(x, x > 0)", D,
        a("name", 1L), "expected iterable type", existsCost);
    matchError("macro-exists-on-bool", "device.attributes[\"dra.example.com\"].name.exists(x, x == true)", D,
        a("name", true), "expected iterable type", existsCost);
    matchError("macro-exists-on-string", "device.attributes[\"dra.example.com\"].name.exists(x, x == \"fish\")", D,
        a("name", "fish"), "expected iterable type", existsCost);
    matchError("list-result-type-causes-match-error", "device.attributes[\"dra.example.com\"].names", D,
        a("names", List.of("fish", "bird")), "could not be converted to bool", 4);
    ok("includes-function-can-evaluate", "device.attributes[\"dra.example.com\"].name.includes(\"fish\")", D,
        a("name", List.of("fish", "bird")), a(), true, 4 + 48);
    ok("list-of-bool", "device.attributes[\"dra.example.com\"].names.size() == 2", D,
        a("names", List.of(true, false)), a(), true, 6);
    ok("list-of-int", "device.attributes[\"dra.example.com\"].names.size() == 2", D,
        a("names", List.of(1L, 2L)), a(), true, 6);
    ok("list-of-string", "device.attributes[\"dra.example.com\"].names.size() == 2", D,
        a("names", List.of("fish", "bird")), a(), true, 6);
    ok("list-of-semver", "device.attributes[\"dra.example.com\"].names.size() == 2", D,
        a("names", vs("1.0.0", "2.0.0")), a(), true, 6);
    ok("macro-on-list-of-int", "device.attributes[\"dra.example.com\"].names.exists(x, x > 0)", D,
        a("names", List.of(1L, 2L)), a(), true, existsCost);
    ok("macro-on-list-of-string", "device.attributes[\"dra.example.com\"].names.all(x, x != \"\")", D,
        a("names", List.of("fish", "bird")), a(), true, 5 + (2 + 2) * MAX_ELEMENTS);
    ok("macro-on-list-of-semver",
        "device.attributes[\"dra.example.com\"].names.all(x, x.isGreaterThan(semver(\"0.0.1\")))", D,
        a("names", vs("1.0.0", "2.0.0")), a(), true, 5 + (2 + 4) * MAX_ELEMENTS);
    ok("includes-function-compilation-and-eval-success",
        "device.attributes[\"dra.example.com\"].attr.includes(\"fish\")", D, a("attr", "fish"), a(), true, 52);
    String inc = "device.attributes[\"dra.example.com\"].name.includes(";
    ok("includes-function-on-bool-scalar-positive", inc + "true)", D, a("name", true), a(), true, 52);
    ok("includes-function-on-bool-scalar-negative", inc + "true)", D, a("name", false), a(), false, 52);
    ok("includes-function-on-bool-list-positive", inc + "true)", D, a("name", List.of(true, false)), a(), true, 52);
    ok("includes-function-on-bool-list-negative", inc + "false)", D, a("name", List.of(true, true)), a(), false, 52);
    ok("includes-function-on-int-scalar-positive", inc + "1)", D, a("name", 1L), a(), true, 52);
    ok("includes-function-on-int-scalar-negative", inc + "1)", D, a("name", 2L), a(), false, 52);
    ok("includes-function-on-int-list-positive", inc + "1)", D, a("name", List.of(1L, 2L)), a(), true, 52);
    ok("includes-function-on-int-list-negative", inc + "3)", D, a("name", List.of(1L, 2L)), a(), false, 52);
    ok("includes-function-on-string-scalar-positive", inc + "\"fish\")", D, a("name", "fish"), a(), true, 52);
    ok("includes-function-on-string-scalar-negative", inc + "\"bird\")", D, a("name", "fish"), a(), false, 52);
    ok("includes-function-on-string-list-positive", inc + "\"fish\")", D, a("name", List.of("fish", "bird")), a(),
        true, 52);
    ok("includes-function-on-string-list-negative", inc + "\"cat\")", D, a("name", List.of("fish", "bird")), a(),
        false, 52);
    ok("includes-function-on-semver-scalar-positive", inc + "semver(\"1.0.0\"))", D, a("name", v("1.0.0")), a(),
        true, 53);
    ok("includes-function-on-semver-scalar-negative", inc + "semver(\"2.0.0\"))", D, a("name", v("1.0.0")), a(),
        false, 53);
    ok("includes-function-on-semver-list-positive", inc + "semver(\"1.0.0\"))", D,
        a("name", vs("1.0.0", "2.0.0")), a(), true, 53);
    ok("includes-function-on-semver-list-negative", inc + "semver(\"3.0.0\"))", D,
        a("name", vs("1.0.0", "2.0.0")), a(), false, 53);
    ok("includes-function-on-very-long-list-positive", inc + "\"value-48\")", D,
        a("name", IntStream.range(0, 48).mapToObj(i -> "value-" + i).toList()), a(), false, 52);
    matchError("includes-function-on-very-long-list-runtime-error", inc + "\"value-49\")", D,
        a("name", IntStream.range(0, 49).mapToObj(i -> "value-" + i).toList()),
        "'includes' function cannot be applied to lists longer than 48 values", 52);
    ok("in-operator-on-list", "1 in device.attributes[\"dra.example.com\"].names", D,
        a("names", List.of(1L, 2L, 3L)), a(), true, 4 + 64);
    ok("version", "device.attributes[\"dra.example.com\"].name.isGreaterThan(semver(\"0.0.1\"))", D,
        a("name", v("1.0.0")), a(), true, 6);
    ok("version_v", "device.attributes[\"dra.example.com\"].name.isGreaterThan(semver(\"v0.0.1\", true)) "
        + "&& isSemver(\"v1.0.0\", true)", D, a("name", v("1.0.0")), a(), true, 7);
    matchError("macro-exists-on-version",
        "device.attributes[\"dra.example.com\"].name.exists(x, x.isGreaterThan(semver(\"0.0.1\")))", D,
        a("name", v("1.0.0")), "expected iterable type", 5 + (3 + 4) * MAX_ELEMENTS);
    Map<String, Object> mebibyte = a("name", QuantityValue.parse("1Mi"));
    ok("quantity", "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))", D, a(), mebibyte,
        true, 6);
    ok("check-positive", "\"name\" in device.capacity[\"dra.example.com\"] && "
        + "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))", D, a(), mebibyte, true, 10);
    ok("check-negative", "!(\"name\" in device.capacity[\"dra.example.com\"]) || "
        + "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))", "", a(), a(), true, 11);
    ok("all", """

        device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
        device.attributes["dra.example.com"].bool &&
        device.attributes["dra.example.com"].int > 0 &&
        device.attributes["dra.example.com"].string == "fish" &&
        device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
        device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
        device.attributes["dra.example.com"]["bool"] &&
        device.attributes["dra.example.com"]["int"] > 0 &&
        device.attributes["dra.example.com"]["string"] == "fish" &&
        device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
        """, D, a("bool", true, "int", 1L, "string", "fish", "version", v("1.0.0")),
        a("quantity", QuantityValue.parse("1Mi")), true, 52);
    ok("many", "device.attributes[\"dra.example.com\"].a && device.attributes[\"dra.example.com\"].b && "
        + "device.attributes[\"dra.example.com\"].c", D, a("a", true, "b", true, "c", true), a(), true, 12);
    ok("check_attribute_domains", "device.attributes.exists_one(x, x == \"dra.example.com\")", D,
        a("services", "some_example_value"), a(), true, 164);
    ok("check_attribute_ids", "device.attributes[\"dra.example.com\"].exists_one(x, x == \"services\")", D,
        a("services", "some_example_value"), a(), true, 133);
    ok("split_attribute", "device.attributes[\"dra.example.com\"].services.split(\"example\").size() >= 2", D,
        a("services", "some_example_value"), a(), true, 19);
    ok("regexp_attribute", "device.attributes[\"dra.example.com\"].services.matches(\"[^a]?sym\")", D,
        a("services", "asymetric"), a(), true, 18);
    ok("check_capacity_domains", "device.capacity.exists_one(x, x == \"dra.example.com\")", D, a(),
        a("memory", QuantityValue.parse("1Mi")), true, 164);
    ok("check_capacity_ids", "device.capacity[\"dra.example.com\"].exists_one(x, x == \"memory\")", D, a(),
        a("memory", QuantityValue.parse("1Mi")), true, 133);
    for (String[] c : new String[][] {{"allow_multiple_allocations", "true"}, {"allow_multiple_allocations_default",
        "false"}, {"allow_multiple_allocations_false", "false"}, {"allow_multiple_allocations_new", "false"},
        {"allow_multiple_allocations_enabled", "false"}}) {
      CASES.add(new Case(c[0], "device.allowMultipleAllocations == " + c[1], D, a(), a(), c[1].equals("true"), null,
          null, true, 3));
    }
  }

  static Stream<Case> cases() {
    return CASES.stream();
  }

  /** Upstream's wording where cel-java's differs; the rest is compared as upstream does (contains). */
  private static String error(String upstream) {
    return switch (upstream) {
      case "expected iterable type" -> "expected a list or a map for iteration range";
      default -> upstream;
    };
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void behavesAsTheScheduler(Case c) throws Exception {
    if (c.compileError() != null) {
      assertThatThrownBy(() -> ENV.compile(c.expression())).hasMessageContaining(error(c.compileError()));
      return;
    }
    CompiledSelector s = ENV.compile(c.expression());
    assertThat(s.estimatedCost()).as("worst-case cost").isEqualTo(c.cost());
    SelectorResult r = s.evaluate(device(c));
    if (c.matchError() != null) {
      assertThat(r.outcome()).isEqualTo(Outcome.ERROR);
      assertThat(r.error()).contains(error(c.matchError()));
      return;
    }
    assertThat(r.error()).isNull();
    assertThat(r.outcome()).isEqualTo(c.match() ? Outcome.MATCH : Outcome.NO_MATCH);
  }

  /** Upstream's "expensive": seven nested loops; compiles there with a cost of 85,555,551, over the limit. */
  @org.junit.jupiter.api.Test
  void expensiveIsEstimatedAsUpstream() {
    String ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    String expr = ten + ".all(x, " + ten + ".all(y, " + ten + ".all(z, " + ten + ".all(z2, " + ten + ".all(z3, "
        + ten + ".all(z4, " + ten + ".all(z5, int('1'.find('[0-9]*')) < 100)))))))";
    assertThatThrownBy(() -> ENV.compile(expr)).hasMessageContaining("estimated cost 85555551 exceeds");
  }

  private static Map<String, Object> device(Case c) {
    return DeviceVariable.assemble(c.driver(), c.multi(), split(c.attributes(), c.driver()), split(c.capacity(),
        c.driver()));
  }

  private static Map<String, Map<String, Object>> split(Map<String, Object> values, String driver) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    values.forEach((name, value) -> {
      String[] n = DeviceVariable.split(name, driver);
      out.computeIfAbsent(n[0], k -> new TreeMap<>()).put(n[1], value);
    });
    return out;
  }
}
