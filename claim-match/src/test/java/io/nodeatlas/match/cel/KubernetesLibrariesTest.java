package io.nodeatlas.match.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.match.cel.SelectorResult.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the upstream tables leave implicit: Go's semantics of the regex, list and net functions, on real devices. */
class KubernetesLibrariesTest {

  private static final DraCelEnvironment ENV = new DraCelEnvironment();
  private static final Map<String, Object> NO_DEVICE = DeviceVariable.assemble("", false, Map.of(), Map.of());

  /** Semantics, not costs: every size bounded (DRA's estimator leaves strings in literal lists unbounded). */
  private static final CostEstimator.SizeBounds SMALL = (path, type) -> java.util.Optional.of(new CostEstimator.Size(0, 16));

  private static boolean holds(String expression) throws Exception {
    SelectorResult r = ENV.compile(expression, SMALL).evaluate(NO_DEVICE);
    assertThat(r.error()).as(expression).isNull();
    return r.matched();
  }

  @Test
  void findAllFollowsGoRegexp() throws Exception {
    // Go's regexp.FindAllString examples, and an empty match right after a match left out.
    assertThat(KubernetesLibraries.findAll("paranormal", "a.", -1)).containsExactly("ar", "an", "al");
    assertThat(KubernetesLibraries.findAll("paranormal", "a.", 2)).containsExactly("ar", "an");
    assertThat(KubernetesLibraries.findAll("graal", "a.", -1)).containsExactly("aa");
    assertThat(KubernetesLibraries.findAll("none", "a.", -1)).isEmpty();
    assertThat(KubernetesLibraries.findAll("baaab", "a*", -1)).containsExactly("", "aaa", "");
    assertThat(KubernetesLibraries.find("mlx5_0", "[0-9]+$")).isEqualTo("0");
    assertThat(holds("'mlx5_3'.find('[0-9]+$') == '3' && 'a1b22'.findAll('[0-9]+') == ['1', '22']")).isTrue();
    SelectorResult bad = ENV.compile("'x'.find('(') == ''", SMALL).evaluate(NO_DEVICE);
    assertThat(bad.outcome()).isEqualTo(Outcome.ERROR);
    assertThat(bad.error()).contains("Illegal regex");
  }

  @Test
  void listFunctionsCompareAsCelGo() throws Exception {
    assertThat(holds("[1, 2, 2, 3].isSorted() && ![2.0, 1.0].isSorted() && ['a', 'b', 'b'].isSorted()")).isTrue();
    assertThat(holds("[1, 3].sum() == 4 && [1.0, 3.0].sum() == 4.0 && [3, 1, 2].min() == 1 && ['b', 'c'].max() == 'c'"))
        .isTrue();
    assertThat(holds("[1, 2, 2, 3].indexOf(2) == 1 && ['a', 'b', 'b'].lastIndexOf('b') == 2 && [1.0].indexOf(1.1) == -1"))
        .isTrue();
    SelectorResult empty = ENV.compile("[0].slice(0, 0).min() == 0", SMALL).evaluate(NO_DEVICE);
    assertThat(empty.error()).contains("min called on empty list");
    // The extensions of the same version: lists v3, strings v2, sets, two-variable comprehensions.
    assertThat(holds("[3, 1, 2].sort() == [1, 2, 3] && [[1], [2]].flatten() == [1, 2] && lists.range(3) == [0, 1, 2]"))
        .isTrue();
    assertThat(holds("'a,b'.split(',').join('-') == 'a-b' && 'ABC'.lowerAscii() == 'abc' && sets.contains([1, 2], [2])"))
        .isTrue();
    assertThat(holds("{'a': 1, 'b': 2}.all(k, v, v > 0) && [1, 2].exists(i, v, i == 1 && v == 2)")).isTrue();
    assertThatThrownBy(() -> ENV.compile("'abc'.reverse() == 'cba'")).hasMessageContaining("reverse");
    // As the scheduler estimates it: the strings of a literal list have no bound, so comparing them is unbounded.
    assertThatThrownBy(() -> ENV.compile("['a', 'b'].isSorted()")).hasMessageContaining("too complex");
    assertThat(ENV.compile("[1, 2].isSorted()").estimatedCost()).isEqualTo(12);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "2001:0db8:0000:0000:0001:0000:0000:0001 | 2001:db8::1:0:0:1",
      "2001:db8:0:1:0:0:0:0                    | 2001:db8:0:1::",
      "0:0:0:0:0:0:0:1                         | ::1",
      "fe80:0:0:0:0:0:0:0                      | fe80::",
      "1:0:1:0:1:0:1:0                         | 1:0:1:0:1:0:1:0",
      "::1.2.3.4                               | ::102:304",
      "10.0.0.1                                | 10.0.0.1"})
  void addressesPrintCanonically(String text, String canonical) {
    assertThat(NetAddress.parse(text)).hasToString(canonical);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "010.0.0.1       | IPv4 field has octet with leading zero",
      "256.0.0.1       | IPv4 field has value >255",
      "1.2.3           | IPv4 address too short",
      "fe80::1%eth0    | with zone value is not allowed",
      "::ffff:1.2.3.4  | IPv4-mapped IPv6 address",
      "1:2:3:4:5:6:7   | address string too short",
      "1::2::3         | multiple :: in address",
      "example.com     | unexpected character",
      "١.٢.٣.٤         | unexpected character"})
  void malformedAddressesAreRefusedWithGoWords(String text, String words) {
    assertThatThrownBy(() -> NetAddress.parse(text)).hasMessageContaining(words);
  }

  @Test
  void prefixesFollowNetip() {
    assertThat(NetPrefix.parse("10.1.2.3/8").masked()).hasToString("10.0.0.0/8");
    assertThat(NetPrefix.parse("10.1.2.3/8").address()).hasToString("10.1.2.3");
    assertThat(NetPrefix.parse("10.0.0.0/8").contains(NetAddress.parse("::1"))).isFalse();
    assertThat(NetPrefix.isValid("10.0.0.0/08")).isFalse();
    assertThat(NetPrefix.isValid("10.0.0.0/33")).isFalse();
    assertThat(NetPrefix.isValid("fd00::/128")).isTrue();
  }

  @Test
  void includesServesListAttributesOfRealDevices() throws Exception {
    Device withRoots = Device.builder("cpu-numa0", "cpu-numa").attribute(Device.TYPE, "cpu")
        .attribute("resource.kubernetes.io/pcieRoot", new AttributeValue.StringsValue(List.of("pci0000:00",
            "pci0000:40")))
        .build();
    Map<String, Object> device = DeviceVariable.of(withRoots, Names.DRIVER);
    String sel = "device.attributes[\"resource.kubernetes.io\"].pcieRoot.includes(\"pci0000:40\")";
    assertThat(ENV.compile(sel).evaluate(device).matched()).isTrue();
    assertThat(ENV.compile(sel.replace(":40", ":80")).evaluate(device).outcome()).isEqualTo(Outcome.NO_MATCH);
    assertThat(ENV.compile(sel).estimatedCost()).isEqualTo(4 + 48);
  }
}
