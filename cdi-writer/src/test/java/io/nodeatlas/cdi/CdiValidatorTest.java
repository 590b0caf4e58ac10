package io.nodeatlas.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.cdi.spec.CdiParseException;
import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.CdiSpecCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One negative case per rule of the CDI specification v1.0 (SPEC.md; and its minimum-version rule),
 * each asserting the exact message (the wording of container-device-interface's pkg/cdi), the rule and the device.
 */
class CdiValidatorTest {

  private final CdiSpecCodec codec = new CdiSpecCodec();
  private final CdiValidator validator = new CdiValidator();

  private static final String EDITS = "\"containerEdits\":{\"env\":[\"A=1\"]}";

  private List<String> problems(String json) throws CdiParseException {
    CdiSpec spec = codec.read(json);
    return validator.validate(spec, "x.json").stream().map(CdiProblem::toString).toList();
  }

  private static String spec(String version, String kind, String devices) {
    return "{\"cdiVersion\":\"" + version + "\",\"kind\":\"" + kind + "\",\"devices\":[" + devices + "]}";
  }

  private static String device(String name, String edits) {
    return "{\"name\":\"" + name + "\",\"containerEdits\":" + edits + "}";
  }

  @Test
  void aMinimalSpecIsValid() throws CdiParseException {
    assertThat(problems(spec("0.3.0", "vendor.com/device", device("d", "{\"env\":[\"A=\"]}")))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      version 0.9.0             | 0.9.0 | vendor.com/dev                | x.json: invalid version "0.9.0" [rule version]
      version 0.3               | 0.3   | vendor.com/dev                | x.json: invalid version "0.3" [rule version]
      version v1.2.0            | v1.2.0| vendor.com/dev                | x.json: invalid version "v1.2.0" [rule version]
      vendor starts with digit  | 0.3.0 | 1test.example.com/dev         | x.json: invalid vendor. "1test.example.com", should start with letter [rule vendor-name]
      vendor ends with dash     | 0.3.0 | test-/dev                     | x.json: invalid vendor. "test-", should end with a letter or digit [rule vendor-name]
      vendor bad character      | 0.3.0 | te+st.com/dev                 | x.json: invalid vendor. invalid character '+' in name "te+st.com" [rule vendor-name]
      no slash in kind          | 0.3.0 | device                        | x.json: invalid vendor. empty name [rule vendor-name]
      class with a slash        | 0.3.0 | vendor.com/a/b                | x.json: invalid class. invalid character '/' in name "a/b" [rule class-name]
      class ends with dot       | 0.6.0 | vendor.com/a.                 | x.json: invalid class. "a.", should end with a letter or digit [rule class-name]
      """)
  void kindAndVersionRules(String caseName, String version, String kind, String expected) throws CdiParseException {
    assertThat(problems(spec(version, kind, device("d", "{\"env\":[\"A=1\"]}")))).containsExactly(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      name ends with colon   | foo:  | {"env":["A=1"]}                                                  | x.json: device "foo:": invalid name "foo:", should end with a letter or digit [rule device-name]
      name starts with dash  | -foo  | {"env":["A=1"]}                                                  | x.json: device "-foo": invalid class "-foo", should start with a letter or digit [rule device-name]
      name with slash        | a/b   | {"env":["A=1"]}                                                  | x.json: device "a/b": invalid character '/' in device name "a/b" [rule device-name]
      env without =          | d     | {"env":["CDI_A"]}                                                | x.json: device "d": invalid container edits: invalid environment variable "CDI_A" [rule env]
      env with empty key     | d     | {"env":["=1"]}                                                   | x.json: device "d": invalid container edits: invalid environment variable "=1" [rule env]
      node type char         | d     | {"deviceNodes":[{"path":"/dev/x","type":"char"}]}                | x.json: device "d": device "/dev/x": invalid type "char" [rule device-node]
      node permissions rx    | d     | {"deviceNodes":[{"path":"/dev/x","permissions":"rx"}]}           | x.json: device "d": device "/dev/x": invalid permissions "rx" [rule device-node]
      node permissions none  | d     | {"deviceNodes":[{"path":"/dev/x","permissions":"none"}]}         | x.json: device "d": device "/dev/x": invalid permissions "none" [rule device-node]
      node without path      | d     | {"deviceNodes":[{"type":"c","major":1,"minor":3}]}               | x.json: device "d": invalid (empty) device path [rule device-node]
      hook preStart          | d     | {"hooks":[{"hookName":"preStart","path":"/bin/true"}]}           | x.json: device "d": invalid hook name "preStart" [rule hook]
      hook without path      | d     | {"hooks":[{"hookName":"createContainer"}]}                       | x.json: device "d": invalid hook "createContainer" with empty path [rule hook]
      hook env               | d     | {"hooks":[{"hookName":"poststop","path":"/x","env":["X"]}]}      | x.json: device "d": invalid hook "poststop": invalid environment variable "X" [rule env]
      mount no host path     | d     | {"mounts":[{"containerPath":"/x"}]}                              | x.json: device "d": invalid mount, empty host path [rule mount]
      mount no ctr path      | d     | {"mounts":[{"hostPath":"/x","containerPath":""}]}                | x.json: device "d": invalid mount, empty container path [rule mount]
      empty device edits     | d     | {}                                                               | x.json: device "d": invalid device, empty device edits [rule empty-device-edits]
      closID with slash      | d     | {"intelRdt":{"closID":"a/b"}}                                    | x.json: device "d": invalid ClosID [rule intel-rdt]
      closID dot dot         | d     | {"intelRdt":{"closID":".."}}                                     | x.json: device "d": invalid ClosID [rule intel-rdt]
      net device no name     | d     | {"netDevices":[{"hostInterfaceName":"a"}]}                       | x.json: device "d": invalid linux net device, empty Name [rule net-device]
      net device dup name    | d     | {"netDevices":[{"hostInterfaceName":"a","name":"n"},{"hostInterfaceName":"b","name":"n"}]} | x.json: device "d": invalid linux net device, duplicate Name "n" with HostInterfaceName "b" and "a" [rule net-device]
      net device dup host    | d     | {"netDevices":[{"hostInterfaceName":"a","name":"n"},{"hostInterfaceName":"a","name":"m"}]} | x.json: device "d": invalid linux net device, duplicate HostInterfaceName "a" with names "m" and "n" [rule net-device]
      """)
  void deviceRules(String caseName, String name, String edits, String expected) throws CdiParseException {
    assertThat(problems(spec("1.1.0", "vendor.com/dev", device(name, edits)))).containsExactly(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      hostPath at 0.4.0         | 0.4.0 | vendor.com/dev | {"deviceNodes":[{"path":"/dev/x","hostPath":"/dev/null"}]}  | x.json: the spec version must be at least v0.5.0 (device d: hostPath of device node /dev/x) [rule minimum-version]
      mount type at 0.3.0       | 0.3.0 | vendor.com/dev | {"mounts":[{"hostPath":"nodev","containerPath":"/h","type":"hugetlbfs"}]} | x.json: the spec version must be at least v0.4.0 (device d: type of mount /h) [rule minimum-version]
      dotted class at 0.5.0     | 0.5.0 | vendor.com/a.b | {"env":["A=1"]}                                             | x.json: the spec version must be at least v0.6.0 (a '.' in the class of kind vendor.com/a.b) [rule minimum-version]
      additionalGids at 0.6.0   | 0.6.0 | vendor.com/dev | {"additionalGids":[5]}                                      | x.json: the spec version must be at least v0.7.0 (device d: additionalGids) [rule minimum-version]
      empty intelRdt at 0.6.0   | 0.6.0 | vendor.com/dev | {"intelRdt":{}}                                             | x.json: the spec version must be at least v0.7.0 (device d: intelRdt) [rule minimum-version]
      netDevices at 1.0.0       | 1.0.0 | vendor.com/dev | {"netDevices":[{"hostInterfaceName":"a","name":"b"}]}       | x.json: the spec version must be at least v1.1.0 (device d: netDevices) [rule minimum-version]
      empty schemata at 0.7.0   | 0.7.0 | vendor.com/dev | {"intelRdt":{"schemata":[]}}                                | x.json: the spec version must be at least v1.1.0 (device d: intelRdt.schemata) [rule minimum-version]
      """)
  void minimumVersionRule(String caseName, String version, String kind, String edits, String expected)
      throws CdiParseException {
    assertThat(problems(spec(version, kind, device("d", edits)))).containsExactly(expected);
  }

  @Test
  void digitFirstDeviceNamesNeed050() throws CdiParseException {
    assertThat(problems(spec("0.4.0", "vendor.com/dev", device("0", "{\"env\":[\"A=1\"]}"))))
        .containsExactly("x.json: the spec version must be at least v0.5.0 (device name 0 starts with a digit) [rule minimum-version]");
    assertThat(problems(spec("0.5.0", "vendor.com/dev", device("0000:03:00.0", "{\"env\":[\"A=1\"]}")))).isEmpty();
  }

  @Test
  void duplicateAndMissingDevices() throws CdiParseException {
    assertThat(problems(spec("0.3.0", "vendor.com/dev", device("d", "{\"env\":[\"A=1\"]}") + "," + device("d", "{\"env\":[\"B=1\"]}"))))
        .containsExactly("x.json: device \"d\": invalid spec, multiple device \"d\" [rule duplicate-device]");
    assertThat(problems(spec("0.3.0", "vendor.com/dev", "")))
        .containsExactly("x.json: invalid spec, no devices [rule no-devices]");
  }

  @Test
  void annotationKeysFollowTheIntendedRule() throws CdiParseException {
    String json = "{\"cdiVersion\":\"0.6.0\",\"kind\":\"vendor.com/dev\",\"annotations\":{\"bad key!\":\"v\",\"ok.example.com/Key_1\":\"v\"},"
        + "\"devices\":[" + device("d", "{\"env\":[\"A=1\"]}") + "]}";
    assertThat(problems(json)).containsExactly("x.json: vendor.com/dev.annotations.bad key! is invalid: name part must consist "
        + "of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character [rule annotations]");
  }

  @Test
  void topLevelEditsMayBeEmptyButAreValidated() throws CdiParseException {
    String json = "{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/dev\",\"containerEdits\":{\"env\":[\"=x\"]},"
        + "\"devices\":[" + device("d", "{\"env\":[\"A=1\"]}") + "]}";
    assertThat(problems(json)).containsExactly("x.json: invalid container edits: invalid environment variable \"=x\" [rule env]");
  }

  @Test
  void everyProblemIsListedNotJustTheFirst() throws CdiParseException {
    String json = spec("0.9.0", "1v/c", device("d", "{\"env\":[\"X\"],\"deviceNodes\":[{\"path\":\"/dev/x\",\"type\":\"q\"}]}"));
    assertThat(problems(json)).hasSize(4);
  }

  @Test
  void strictDecodingRefusesUnknownFieldsAndWrongTypes() {
    assertThatThrownBy(() -> codec.read(spec("0.3.0", "v.com/c", device("d", "{\"env\":[\"A=1\"],\"bogus\":1}"))))
        .isInstanceOf(CdiParseException.class)
        .hasMessage("failed to unmarshal CDI Spec: json: unknown field \"bogus\" in devices[0].containerEdits");
    assertThatThrownBy(() -> codec.read(spec("0.3.0", "v.com/c", device("d", "{\"deviceNodes\":[{\"path\":\"/x\",\"major\":\"1\"}]}"))))
        .isInstanceOf(CdiParseException.class)
        .hasMessage("failed to unmarshal CDI Spec: devices[0].containerEdits.deviceNodes[0].major: expected an integer, got a string");
    assertThatThrownBy(() -> codec.read("{\"cdiVersion\": ")).isInstanceOf(CdiParseException.class)
        .hasMessageStartingWith("failed to unmarshal CDI Spec: ");
  }

  @Test
  void jsonNullsAreToleratedLikeTheLibraryDoes() throws CdiParseException {
    String json = "{\"cdiVersion\":\"0.3.0\",\"kind\":\"v.com/c\",\"annotations\":null,\"containerEdits\":null,"
        + "\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"env\":[\"A=1\"],\"mounts\":null}}]}";
    assertThat(problems(json)).isEmpty();
  }

  @Test
  void yamlIsReadLikeJson() throws CdiParseException {
    String yaml = """
        cdiVersion: "0.3.0"
        kind: vendor.com/dev
        devices:
          - name: "0"
            containerEdits:
              env: ["A=1"]
        """;
    // Digit-first name: needs 0.5.0, so a YAML spec is held to the same rules.
    assertThat(problems(yaml)).containsExactly(
        "x.json: the spec version must be at least v0.5.0 (device name 0 starts with a digit) [rule minimum-version]");
  }

  @Test
  void conflictsInOneDirectoryAreReportedWithBothFiles(@TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve("a.json"), spec("0.3.0", "v.com/c", device("d", "{\"env\":[\"A=1\"]}") + "," + device("e", "{\"env\":[\"A=1\"]}")));
    Files.writeString(dir.resolve("b.yaml"), spec("0.3.0", "v.com/c", device("d", "{\"env\":[\"B=1\"]}")));
    Files.writeString(dir.resolve("c.yml"), "not scanned by runtimes");
    Files.writeString(dir.resolve("bad.json"), spec("0.3.0", "v.com/x", device("d", "{}")));
    CdiValidator.Scan scan = validator.scan(List.of(dir));
    assertThat(scan.problems()).extracting(CdiProblem::toString).containsExactly(
        dir.resolve("bad.json") + ": device \"d\": invalid device, empty device edits [rule empty-device-edits]",
        dir.resolve("a.json") + ": device \"d\": conflicting device \"v.com/c=d\" (specs \"" + dir.resolve("a.json")
            + "\", \"" + dir.resolve("b.yaml") + "\") [rule conflict]");
    assertThat(scan.devices()).containsOnlyKeys("v.com/c=e");
  }

  @Test
  void aLaterDirectoryOverridesAnEarlierOneWithoutConflict(@TempDir Path root) throws IOException {
    Path etc = Files.createDirectories(root.resolve("etc"));
    Path run = Files.createDirectories(root.resolve("run"));
    Files.writeString(etc.resolve("a.json"), spec("0.3.0", "v.com/c", device("d", EDITS.substring(EDITS.indexOf('{')))));
    Files.writeString(run.resolve("a.json"), spec("0.3.0", "v.com/c", device("d", EDITS.substring(EDITS.indexOf('{')))));
    CdiValidator.Scan scan = validator.scan(List.of(etc, run));
    assertThat(scan.problems()).isEmpty();
    assertThat(scan.devices()).containsEntry("v.com/c=d", run.resolve("a.json"));
  }
}
