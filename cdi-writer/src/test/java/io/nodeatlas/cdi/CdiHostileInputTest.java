package io.nodeatlas.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cdi.spec.CdiSpecCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cdi validate}'s reader and rules against hostile files (issue 16): bounds, odd bytes, paths. */
class CdiHostileInputTest {

  private final CdiValidator validator = new CdiValidator();
  @TempDir Path dir;

  private List<CdiProblem> validate(String name, String json) throws Exception {
    return validator.validateFile(Files.writeString(dir.resolve(name), json));
  }

  private static String spec(String edits) {
    return "{\"cdiVersion\":\"0.5.0\",\"kind\":\"example.com/x\",\"devices\":[{\"name\":\"a\",\"containerEdits\":"
        + edits + "}]}";
  }

  @Test
  void devicesBeyondTheBoundAreOneLimitProblemWithPosition() throws Exception {
    StringBuilder json = new StringBuilder("{\"cdiVersion\":\"0.5.0\",\"kind\":\"example.com/x\",\"devices\":[\n");
    for (int i = 0; i <= CdiSpecCodec.MAX_DEVICES; i++) {
      json.append(i == 0 ? "" : ",\n").append("{\"name\":\"d").append(i).append("\",\"containerEdits\":{\"env\":[\"A=1\"]}}");
    }
    List<CdiProblem> problems = validate("many.json", json.append("]}").toString());
    assertThat(problems).singleElement().satisfies(p -> {
      assertThat(p.rule()).isEqualTo(CdiRule.LIMIT);
      assertThat(p.message()).isEqualTo("failed to unmarshal CDI Spec: line 8194, column 2: devices: more than 8192 "
          + "devices (the limit per spec)");
    });
  }

  @Test
  void annotationsAndListEntriesBeyondTheirBoundsAreLimitProblems() throws Exception {
    StringBuilder annotations = new StringBuilder("{");
    for (int i = 0; i <= CdiSpecCodec.MAX_ANNOTATIONS; i++) {
      annotations.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"v\"");
    }
    String json = "{\"cdiVersion\":\"0.6.0\",\"kind\":\"example.com/x\",\"devices\":[{\"name\":\"a\",\"annotations\":"
        + annotations + "},\"containerEdits\":{\"env\":[\"A=1\"]}}]}";
    assertThat(validate("ann.json", json)).singleElement().satisfies(p -> {
      assertThat(p.rule()).isEqualTo(CdiRule.LIMIT);
      assertThat(p.message()).endsWith("annotations: more than 4096 annotations (the limit per spec or device)");
    });
    String env = "[" + "\"A=1\",".repeat(CdiSpecCodec.MAX_LIST_ENTRIES) + "\"A=1\"]";
    assertThat(validate("env.json", spec("{\"env\":" + env + "}"))).singleElement()
        .satisfies(p -> assertThat(p.message()).endsWith("env: more than 4096 entries (the limit of one list)"));
  }

  @Test
  void nestingAndTokensBeyondTheBoundsAreLimitProblems() throws Exception {
    String deep = spec("{\"env\":[\"A=1\"]}").replace("\"kind\"", "\"x\":" + "[".repeat(100) + "]".repeat(100) + ",\"kind\"");
    assertThat(validate("deep.json", deep)).singleElement()
        .satisfies(p -> assertThat(p.message()).contains("nested deeper than the limit of 64 levels"));
    StringBuilder many = new StringBuilder("{\"cdiVersion\":\"0.5.0\",\"kind\":\"example.com/x\",\"devices\":[");
    for (int i = 0; i < 4_000; i++) {
      many.append(i == 0 ? "" : ",").append("{\"name\":\"d").append(i).append("\",\"containerEdits\":{\"env\":[")
          .append("\"A=1\",".repeat(150)).append("\"A=1\"]}}");
    }
    assertThat(validate("tokens.json", many.append("]}").toString())).singleElement()
        .satisfies(p -> assertThat(p.message()).endsWith("more than 500000 tokens (the limit per spec file)"));
  }

  @Test
  void yamlIsBoundedTheSameWay() throws Exception {
    StringBuilder yaml = new StringBuilder("cdiVersion: \"0.5.0\"\nkind: example.com/x\ndevices:\n");
    for (int i = 0; i <= CdiSpecCodec.MAX_DEVICES; i++) {
      yaml.append("- {name: d").append(i).append(", containerEdits: {env: [A=1]}}\n");
    }
    assertThat(validator.validateFile(Files.writeString(dir.resolve("many.yaml"), yaml))).singleElement()
        .satisfies(p -> assertThat(p.message()).endsWith("devices: more than 8192 devices (the limit per spec)"));
  }

  @Test
  void invalidUtf8IsReportedWithItsByteOffset() throws Exception {
    byte[] bytes = spec("{\"env\":[\"A=\u00e9\"]}").getBytes(StandardCharsets.UTF_8);
    int at = new String(bytes, StandardCharsets.UTF_8).indexOf('\u00e9');
    byte[] latin1 = spec("{\"env\":[\"A=\u00e9\"]}").getBytes(StandardCharsets.ISO_8859_1);
    List<CdiProblem> problems = validator.validateFile(Files.write(dir.resolve("latin1.json"), latin1));
    assertThat(problems).singleElement().satisfies(p -> {
      assertThat(p.rule()).isEqualTo(CdiRule.PARSE);
      assertThat(p.message()).isEqualTo("not UTF-8: invalid byte sequence at byte offset " + at + " (0xe9)");
    });
  }

  @Test
  void nulDotDotAndRelativePathsAreRefusedNamingDeviceFieldAndRule() throws Exception {
    List<CdiProblem> problems = validate("paths.json", spec("""
        {"deviceNodes": [{"path": "/dev/a\\u0000b"}, {"path": "/dev/../etc/shadow"}, {"path": "dev/x"},
                         {"path": "/dev/ok", "hostPath": "/dev/.."}, {"path": "/dev/ok2", "hostPath": "rel"},
                         {"path": "/dev/..ok"}],
         "hooks": [{"hookName": "poststart", "path": "/bin/h\\u0000"}],
         "mounts": [{"hostPath": "tmpfs", "containerPath": "tmp"}, {"hostPath": "/h\\u0000", "containerPath": "/c"},
                    {"hostPath": "nodev", "containerPath": "/a/.."}]}"""));
    assertThat(problems).allSatisfy(p -> {
      assertThat(p.rule()).isEqualTo(CdiRule.PATH);
      assertThat(p.device()).isEqualTo("a");
    });
    assertThat(problems).extracting(CdiProblem::message).containsExactly(
        "containerEdits.deviceNodes[0].path \"/dev/a\\x00b\" contains a NUL byte",
        "containerEdits.deviceNodes[1].path \"/dev/../etc/shadow\" has a \"..\" segment",
        "containerEdits.deviceNodes[2].path \"dev/x\" is not an absolute path",
        "containerEdits.deviceNodes[3].hostPath \"/dev/..\" has a \"..\" segment",
        "containerEdits.deviceNodes[4].hostPath \"rel\" is not an absolute path",
        "containerEdits.hooks[0].path \"/bin/h\\x00\" contains a NUL byte",
        "containerEdits.mounts[0].containerPath \"tmp\" is not an absolute path",
        "containerEdits.mounts[1].hostPath \"/h\\x00\" contains a NUL byte",
        "containerEdits.mounts[2].containerPath \"/a/..\" has a \"..\" segment");
  }

  @Test
  void controlCharactersInEnvNamesAndValuesAreRefused() throws Exception {
    List<CdiProblem> problems = validate("env.json", spec("""
        {"env": ["A\\u001bB=1", "TAB=a\\tb", "NL=a\\nb", "OK=caf\\u00e9"],
         "hooks": [{"hookName": "poststart", "path": "/bin/h", "env": ["X=\\u0085"]}]}"""));
    assertThat(problems).allSatisfy(p -> assertThat(p.rule()).isEqualTo(CdiRule.ENV));
    assertThat(problems).extracting(CdiProblem::message).containsExactly(
        "containerEdits.env[0] \"A\\x1bB=1\": the name has the control character U+001B at character 2",
        "containerEdits.env[2] \"NL=a\\nb\": the value has the control character U+000A at character 5",
        "containerEdits.hooks[0].env[0] \"X=\u0085\": the value has the control character U+0085 at character 3");
  }

  @Test
  void problemsOfOneSpecAreListedUpToTheBoundAndCounted() throws Exception {
    String env = "[" + "\"=bad\",".repeat(1_499) + "\"=bad\"]";
    List<CdiProblem> problems = validate("bad.json", spec("{\"env\":" + env + "}"));
    assertThat(problems).hasSize(CdiValidator.MAX_PROBLEMS_PER_SPEC + 1);
    assertThat(problems.get(problems.size() - 1).toString())
        .endsWith("500 more problems not listed (at most 1000 are listed per spec) [rule limit]");
  }
}
