package io.nodeatlas.match.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.match.cel.DeviceVariable;
import io.nodeatlas.match.cel.DraCelEnvironment;
import org.junit.jupiter.api.Test;

/**
 * A device of a saved or listed ResourceSlice with a KEP-5491 list attribute (the agent's
 * {@code --cpu-pcie-roots}): read as a list, and {@code includes()} selects on it as the scheduler does.
 */
class SliceListAttributeTest {

  @Test
  void aStringsAttributeIsReadAsAListThatIncludesSelects() throws Exception {
    var json = new ObjectMapper().readTree("""
        {"name": "cpu-numa0", "allowMultipleAllocations": true,
         "attributes": {"type": {"string": "cpu"},
                        "resource.kubernetes.io/pcieRoot": {"strings": ["pci0000:00", "pci0000:15"]}},
         "capacity": {"cpu": {"value": "64"}}}
        """);
    Device d = SliceReader.device(json, "nodeatlas.io");
    var device = DeviceVariable.of(d, "nodeatlas.io");
    DraCelEnvironment env = new DraCelEnvironment();
    String sel = "device.attributes[\"resource.kubernetes.io\"].pcieRoot.includes(\"pci0000:15\")";
    assertThat(env.compile(sel).evaluate(device).matched()).isTrue();
    assertThat(env.compile(sel.replace(":15", ":97")).evaluate(device).matched()).isFalse();
  }
}
