package io.nodeatlas.discovery.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.report.NodeReportCodec;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** KEP-4815 counters on a device: the API's limits, and a round trip through the report's JSON. */
class CountersTest {

  private static TreeMap<String, Quantity> counters(String... namesAndValues) {
    TreeMap<String, Quantity> out = new TreeMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      out.put(namesAndValues[i], Quantity.parse(namesAndValues[i + 1]));
    }
    return out;
  }

  @Test
  void countersSurviveTheReportsJson() {
    CounterSet set = new CounterSet("gpu-0", counters("memory-slice-0", "1", "memory-slice-1", "1", "compute-slices", "7"));
    Device whole = Device.builder("gpu-0", "gpu").attribute(Device.TYPE, "gpu").build()
        .withCounters(List.of(set), List.of(new CounterConsumption("gpu-0", set.counters())));
    Device part = Device.builder("gpu-0-mig-1g-18gb-1", "gpu").attribute(Device.TYPE, "mig").build()
        .withCounters(List.of(), List.of(new CounterConsumption("gpu-0", counters("memory-slice-1", "1", "compute-slices", "1"))));
    for (Device d : List.of(whole, part)) {
      assertThat(NodeReportCodec.readDevice(NodeReportCodec.device(d))).isEqualTo(d);
    }
    assertThat(NodeReportCodec.device(part).toString())
        .contains("\"consumesCounters\":[{\"counterSet\":\"gpu-0\",\"counters\":{\"compute-slices\":{\"value\":\"1\"}");
    Device plain = Device.builder("gpu-1", "gpu").build();
    assertThat(NodeReportCodec.device(plain).has("consumesCounters")).as("left out when empty").isFalse();
  }

  @Test
  void theApisLimitsAreRefusedWhereTheDeviceIsMade() {
    assertThatThrownBy(() -> new CounterSet("Not_A_Label", counters("a", "1"))).hasMessageContaining("DNS label");
    assertThatThrownBy(() -> new CounterSet("gpu-0", counters())).hasMessageContaining("1 to 32");
    TreeMap<String, Quantity> many = new TreeMap<>();
    for (int i = 0; i < 33; i++) {
      many.put("c" + i, Quantity.of(1));
    }
    assertThatThrownBy(() -> new CounterSet("gpu-0", many)).hasMessageContaining("1 to 32");
    CounterConsumption c = new CounterConsumption("a", counters("x", "1"));
    assertThatThrownBy(() -> Device.builder("d", "s").build().withCounters(List.of(),
        List.of(c, new CounterConsumption("b", counters("x", "1")), new CounterConsumption("c", counters("x", "1")))))
        .hasMessageContaining("at most 2");
  }
}
