package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.discovery.share.Placement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files of earlier writers, read through each version's record and upgraded; and what the reader refuses. */
class CheckpointUpgradeTest {

  private static final CheckpointCodec CODEC = new CheckpointCodec();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static byte[] golden(String name) throws IOException {
    try (InputStream in = CheckpointUpgradeTest.class.getResourceAsStream("golden/" + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void filesTheByteWritingCodecWroteStillVerifyReadAndAreWrittenAgainByteForByte() throws Exception {
    // Written by the codec of commit 8d58513, the last that wrote JSON byte by byte: a node's claims with a
    // share, its boot and an unconfirmed claim; names JSON escapes with members of a newer minor version
    // before and after "claims"; and no claims at all.
    byte[] file = golden("checkpoint-v2.3.json");
    CheckpointCodec.Content read = CODEC.decode(Path.of("golden"), file);
    assertThat(read.version()).isEqualTo(new CheckpointVersion(2, 3));
    assertThat(read.claims()).hasSize(3);
    PreparedDevice share = read.claims().get("5f0e9d8c-7b6a-4594-8372-615f4e3d2c1b").claim().devices().get(0);
    assertThat(share.shareId()).isEqualTo("00000000-0000-4000-8000-000000000001");
    assertThat(share.consumedCapacity()).containsEntry("nodeatlas.io/hugepages-2Mi", "1.5").containsEntry("nodeatlas.io/cpu", "3");
    assertThat(share.placementOrNone()).isEqualTo(new Placement(1, "1-2,17"));
    assertThat(read.boot().id()).isEqualTo("8f3a1c52-2b7d-4e0f-9a61-3c5d7e9b1f20");
    assertThat(read.boot().unconfirmed()).containsExactly("c3d4e5f6-0718-4293-a4b5-c6d7e8f90a1b");
    assertThat(text(CODEC.encode(read.claims(), read.unknownMembers(), read.boot()))).isEqualTo(text(file));

    byte[] escapes = golden("checkpoint-v2.3-escapes.json");
    CheckpointCodec.Content odd = CODEC.decode(Path.of("golden"), escapes);
    assertThat(odd.claims()).containsOnlyKeys("q\"uote\\back", "tab\tnew\nline", "gr\u00fc\u00dfe \u2603");
    assertThat(odd.unknownMembers()).containsOnlyKeys("aaa", "zzz");
    assertThat(odd.boot().id()).isEqualTo("b\u00e9\"1");
    assertThat(text(CODEC.encode(odd.claims(), odd.unknownMembers(), odd.boot()))).isEqualTo(text(escapes));

    byte[] empty = golden("checkpoint-v2.3-empty.json");
    CheckpointCodec.Content none = CODEC.decode(Path.of("golden"), empty);
    assertThat(none.claims()).isEmpty();
    assertThat(CODEC.encode(none.claims(), none.unknownMembers(), none.boot())).isEqualTo(empty);
  }

  @Test
  void anAgentOpensAnOldWritersFileAndKeepsItsClaimsThroughTheNextCommit() throws Exception {
    Path file = Files.write(dir.resolve("checkpoint.json"), golden("checkpoint-v2.3.json"));
    Checkpoint c = Checkpoint.open(file);
    assertThat(c.bootId()).isEqualTo("8f3a1c52-2b7d-4e0f-9a61-3c5d7e9b1f20");
    assertThat(c.holderOf("gpu-0", "x")).isPresent();
    c.remove("0b6c1f3e-5a2d-4c1e-9f0a-1d2e3f405162");
    Checkpoint again = Checkpoint.open(file);
    assertThat(again.all()).extracting(p -> p.claim().uid())
        .containsExactly("5f0e9d8c-7b6a-4594-8372-615f4e3d2c1b", "c3d4e5f6-0718-4293-a4b5-c6d7e8f90a1b");
    assertThat(again.unconfirmed()).containsExactly("c3d4e5f6-0718-4293-a4b5-c6d7e8f90a1b");
  }

  @Test
  void eachVersionsRecordUpgradesStepByStepToTheCurrentOne() {
    ObjectMapper json = CanonicalJson.mapper();
    PreparedClaim claim = CheckpointTest.claim("u1");
    CheckpointDocument.Format1 format1 = new CheckpointDocument.Format1(CheckpointCodec.KIND, 1, "sha256:x", List.of(claim));
    CheckpointDocument.V2_1 v21 = format1.upgrade(json);
    assertThat(v21.claims()).containsOnlyKeys("u1");
    CheckpointDocument.V2_2 v22 = v21.upgrade(json);
    assertThat(v22.boot()).as("a file before v2.2 does not know its boot").isNull();
    CheckpointDocument.V2_3 v23 = v22.upgrade(json);
    CheckpointDocument.V3_0 v30 = v23.upgrade(json);
    assertThat(v30.journal()).as("a file before v3.0 has no journal").isNull();
    assertThat(v30.upgrade(json)).isSameAs(v30);
    assertThat(format1.current(json)).isEqualTo(v30);
    assertThat(format1.written()).isEqualTo(new CheckpointVersion(1, 0));
    assertThatThrownBy(() -> new CheckpointDocument.Format1(CheckpointCodec.KIND, 1, "sha256:x", List.of(claim, claim)).upgrade(json))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("claim UID u1 appears twice");
  }

  @Test
  void aPlacementThatARolledBackV22WriterKeptIsStillTheSharesPlacement() throws Exception {
    // v2.3 recorded the share, a v2.2 agent (rolled back) kept its entry and wrote the file as v2.2: the
    // placement is the share's, not a member to skip, or its CPUs would be handed out again.
    ObjectNode doc = (ObjectNode) JSON.readTree(Checkpoint.encode(List.of(CheckpointTest.shareClaim("s1"))));
    doc.remove("checksum");
    doc.put("version", "v2.2");
    doc.put("checksum", CODEC.checksum(doc));
    Path file = Files.write(dir.resolve("checkpoint.json"), JSON.writeValueAsBytes(doc));
    assertThat(Checkpoint.open(file).get("s1").orElseThrow().devices().get(0).placementOrNone()).isEqualTo(new Placement(1, "1-2,17"));
  }

  @Test
  void aNewerMajorVersionSaysToRunANewerReleaseNotToMoveTheFileAside() throws Exception {
    ObjectNode doc = (ObjectNode) JSON.readTree(Checkpoint.encode(List.of(CheckpointTest.claim("u1"))));
    doc.put("version", "v4.1");
    Path file = Files.write(dir.resolve("checkpoint.json"), JSON.writeValueAsBytes(doc));
    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("written in format v4.1, which this version of nodeatlas cannot read (it reads v2.x to v3.x)")
        .hasMessageContaining("Run a nodeatlas release that reads format v4.1")
        .hasMessageNotContaining("move it aside to start");
    // A file this release cannot use otherwise may be a newer release's (a rollback): the advice says so first.
    doc.put("version", "v2.3");
    doc.put("claims", "not a list");
    Files.write(file, JSON.writeValueAsBytes(doc));
    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("If a newer nodeatlas release wrote it (a rollback), run that release again and let it "
            + "unprepare the claims this one cannot read before rolling back")
        .hasMessageContaining("otherwise inspect it, then move it aside");
    // An older major version in the v<major>.<minor> form was never written: unknown, not "newer".
    doc.put("version", "v1.4");
    Files.write(file, JSON.writeValueAsBytes(doc));
    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("unknown format version v1.4");
  }

  @Test
  void nestingBeyondTheLimitIsRefusedBeforeAnythingIsBuiltFromIt() throws Exception {
    // A member of a "newer minor version" nested deeper than any checkpoint needs: refused as unreadable.
    int depth = CanonicalJson.MAX_NESTING + 8;
    String deep = "[".repeat(depth) + "]".repeat(depth);
    String text = new String(Checkpoint.encode(List.of(CheckpointTest.claim("u1"))), StandardCharsets.UTF_8)
        .replace("\"kind\":", "\"deep\":" + deep + ",\n\"kind\":");
    assertThatThrownBy(() -> CODEC.decode(Path.of("deep.json"), text.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("not a readable checkpoint")
        .hasMessageContaining("nesting depth");
  }

  @Test
  void textWhereAStringBelongsIsNotConvertedFromANumber() throws Exception {
    ObjectNode doc = (ObjectNode) JSON.readTree(Checkpoint.encode(List.of(CheckpointTest.claim("u1"))));
    doc.remove("checksum");
    ((ObjectNode) doc.at("/claims/u1/devices/0")).put("pool", 7);
    doc.put("checksum", CODEC.checksum(doc));
    assertThatThrownBy(() -> CODEC.decode(Path.of("x"), JSON.writeValueAsBytes(doc))).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("invalid entry of claim UID u1").hasMessageContaining("/devices/0/pool");
  }

  @Test
  void anEntryUnderAnotherClaimsUidIsNotWritten() {
    java.util.SortedMap<String, CheckpointCodec.Entry> claims = new java.util.TreeMap<>(Map.of("u2", CODEC.entry(CheckpointTest.claim("u1"))));
    assertThatThrownBy(() -> CODEC.encode(claims, Map.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("under UID u2");
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
