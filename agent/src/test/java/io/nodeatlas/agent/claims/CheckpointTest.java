package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointTest {

  @TempDir Path dir;

  static PreparedClaim claim(String uid) {
    return new PreparedClaim(new ClaimRef("default", "c-" + uid, uid),
        List.of(new PreparedDevice(List.of("gpus"), "node-a", "gpu-0", List.of("nodeatlas.io/claim=" + uid + "-gpu-0"))));
  }

  @Test
  void survivesReopening() throws Exception {
    Path file = dir.resolve("state/checkpoint.json");
    Checkpoint c = Checkpoint.open(file);
    c.put(claim("u1"));
    c.put(claim("u2"));
    c.remove("u1");

    Checkpoint again = Checkpoint.open(file);

    assertThat(again.all()).containsExactly(claim("u2"));
    assertThat(again.get("u2")).contains(claim("u2"));
    try (var files = Files.list(file.getParent())) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("checkpoint.json");
    }
  }

  @Test
  void theFileHasTheChecksumAJsonEncoderComputesAndOneClaimPerLine() throws Exception {
    List<PreparedClaim> claims = List.of(claim("a"), claim("b"), claim("c"));
    String text = new String(Checkpoint.encode(claims), StandardCharsets.UTF_8);
    assertThat(text).contains("\"checksum\" : \"" + Checkpoint.checksum(claims) + "\"");
    assertThat(text.lines().filter(l -> l.contains("\"uid\""))).hasSize(3);
    assertThat(Checkpoint.decode(Path.of("x"), Checkpoint.encode(List.of()))).isEmpty();
  }

  @Test
  void knowsWhichClaimHoldsADeviceAcrossChangesAndReopening() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    Checkpoint c = Checkpoint.open(file);
    c.put(claim("u1"));
    c.put(claim("u2")); // both hold gpu-0, as admin-access claims may
    assertThat(c.holderOf("gpu-0", "u1")).map(ClaimRef::uid).contains("u2");
    assertThat(c.holderOf("gpu-0", "u2")).map(ClaimRef::uid).contains("u1");
    c.remove("u2");
    assertThat(c.holderOf("gpu-0", "u2")).map(ClaimRef::uid).contains("u1");
    assertThat(c.holderOf("gpu-0", "u1")).isEmpty();
    assertThat(Checkpoint.open(file).holderOf("gpu-0", "x")).map(ClaimRef::uid).contains("u1");
    c.remove("u1");
    assertThat(c.holderOf("gpu-0", "x")).isEmpty();
    assertThat(c.holderOf("gpu-1", "x")).isEmpty();
  }

  @Test
  void aMissingFileIsEmpty() throws Exception {
    assertThat(Checkpoint.open(dir.resolve("none.json")).all()).isEmpty();
  }

  @Test
  void anEditedFileIsReportedAndLeftUntouched() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    Checkpoint.open(file).put(claim("u1"));
    String edited = Files.readString(file).replace("gpu-0\"", "gpu-1\"");
    Files.writeString(file, edited);

    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("checksum mismatch").hasMessageContaining(file.toString());
    assertThat(Files.readString(file)).isEqualTo(edited);
  }

  @Test
  void aTruncatedFileIsReported() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    Checkpoint.open(file).put(claim("u1"));
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));

    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("not a readable checkpoint");
  }

  @Test
  void aForeignFormatIsReported() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    Files.writeString(file, "{\"kind\":\"other\",\"version\":1,\"checksum\":\"x\",\"claims\":[]}");

    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("unknown format");
  }

  /** Any bytes either decode to claims whose checksum matched, or are reported as corrupt; nothing else escapes. */
  @FuzzTest
  void decodeNeverThrowsAnythingElse(byte[] data) {
    if (data == null) {
      return;
    }
    try {
      Checkpoint.decode(Path.of("fuzz.json"), data);
    } catch (CorruptCheckpointException expected) {
      // reported, as it should be
    }
  }

  @Test
  void encodeDecodeRoundTrip() throws Exception {
    byte[] bytes = Checkpoint.encode(List.of(claim("a"), claim("b")));
    assertThat(Checkpoint.decode(Path.of("x"), bytes)).containsOnlyKeys("a", "b");
    assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("\"checksum\" : \"sha256:");
  }
}
