package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.discovery.files.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import io.nodeatlas.discovery.share.Placement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointTest {

  private static final CheckpointCodec CODEC = new CheckpointCodec();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper SORTED = JsonMapper.builder()
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

  @TempDir Path dir;

  static PreparedClaim claim(String uid) {
    return new PreparedClaim(new ClaimRef("default", "c-" + uid, uid),
        List.of(new PreparedDevice(List.of("gpus"), "node-a", "gpu-0", List.of("nodeatlas.io/claim=" + uid + "-gpu-0"))));
  }

  static PreparedClaim shareClaim(String uid) {
    return new PreparedClaim(new ClaimRef("default", "c-" + uid, uid), List.of(
        new PreparedDevice(List.of("cpus"), "node-a", "cpu-numa0", List.of("nodeatlas.io/claim=" + uid + "-cpu-numa0-s0123456789ab"),
            "00000000-0000-4000-8000-000000000001", java.util.Map.of("nodeatlas.io/cpu", "3"), new Placement(1, "1-2,17")),
        new PreparedDevice(List.of("gpus"), "node-a", "gpu-0", List.of())));
  }

  @Test
  void aShareKeepsItsChoiceAcrossReopeningAndExclusiveEntriesReadAsBefore() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    Checkpoint.open(file).put(shareClaim("s1"));

    JsonNode written = JSON.readTree(Files.readAllBytes(file));
    assertThat(written.get("version").asText()).isEqualTo("v2.3");
    assertThat(written.at("/claims/s1/devices/0/placement").toString()).isEqualTo("{\"value\":\"1-2,17\",\"version\":1}");
    assertThat(written.at("/claims/s1/devices/0/consumedCapacity/nodeatlas.io~1cpu").asText()).isEqualTo("3");
    // An exclusive device's entry has no share members: the same bytes a v2.0 writer wrote.
    assertThat(written.at("/claims/s1/devices/1").toString())
        .isEqualTo("{\"cdiDeviceIds\":[],\"device\":\"gpu-0\",\"pool\":\"node-a\",\"requestNames\":[\"gpus\"]}");
    assertThat(Checkpoint.open(file).get("s1")).contains(shareClaim("s1"));
  }

  @Test
  void aFileOfVersion20IsStillRead() throws Exception {
    ObjectNode doc = (ObjectNode) JSON.readTree(Checkpoint.encode(List.of(claim("u1"))));
    doc.remove("checksum");
    doc.put("version", "v2.0");
    doc.put("checksum", CODEC.checksum(doc));
    Path file = Files.write(dir.resolve("checkpoint.json"), JSON.writeValueAsBytes(doc));

    Checkpoint c = Checkpoint.open(file);
    assertThat(c.all()).containsExactly(claim("u1"));
    assertThat(c.get("u1").orElseThrow().devices().get(0).isShare()).isFalse();
  }

  @Test
  void shareMembersThatMakeNoSenseMakeTheFileUnusable() throws Exception {
    // A placement is the family's opaque text, but its shape is the checkpoint's: a version of at least 1 with
    // bounded text, and never both the v2.2 member and its v2.3 successor.
    for (String[] bad : new String[][] {{"cpus", "7-3", "both placement and cpus"},
        {"placement", "{\"value\":\"x\",\"version\":0}", "a placement is a version of at least 1"},
        {"placement", "{\"value\":\"" + "1".repeat(5000) + "\",\"version\":1}", "at most 4096 characters"}}) {
      ObjectNode doc = (ObjectNode) JSON.readTree(Checkpoint.encode(List.of(shareClaim("s1"))));
      doc.remove("checksum");
      ObjectNode device = (ObjectNode) doc.at("/claims/s1/devices/0");
      if (bad[1].startsWith("{")) {
        device.set(bad[0], JSON.readTree(bad[1]));
      } else {
        device.put(bad[0], bad[1]);
      }
      doc.put("checksum", CODEC.checksum(doc));
      Path file = Files.write(dir.resolve("checkpoint.json"), JSON.writeValueAsBytes(doc));
      assertThatThrownBy(() -> Checkpoint.open(file)).as(bad[2]).isInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining("claim UID s1").hasMessageContaining(bad[2]);
    }
    ObjectNode doc = (ObjectNode) JSON.readTree(Checkpoint.encode(List.of(shareClaim("s1"))));
    doc.remove("checksum");
    ((ObjectNode) doc.at("/claims/s1/devices/0/consumedCapacity")).put("nodeatlas.io/cpu", "-1");
    doc.put("checksum", CODEC.checksum(doc));
    Path file = Files.write(dir.resolve("checkpoint.json"), JSON.writeValueAsBytes(doc));
    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("consumedCapacity nodeatlas.io/cpu is not a decimal amount");
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
  void everyCommitOfAChangingCheckpointCarriesTheChecksumOfItsWholeContent() throws Exception {
    // A commit hashes only from its first changed claim on: whatever changed (claims anywhere in UID
    // order, more claims than kept digest states, the boot), each file's checksum is still the SHA-256
    // of all its content, as any JSON tool redoes it, and the file reads back as written.
    Path file = dir.resolve("checkpoint.json");
    Checkpoint checkpoint = Checkpoint.open(file);
    checkpoint.startBoot("boot-1");
    java.util.Random random = new java.util.Random(14);
    java.util.SortedMap<String, PreparedClaim> recorded = new java.util.TreeMap<>();
    int first = CheckpointDigest.MAX_STATES + 16;
    List<Integer> order = new java.util.ArrayList<>(java.util.stream.IntStream.range(0, first).boxed().toList());
    java.util.Collections.shuffle(order, random);
    int most = 0;
    for (int i = 0; i < first + 100; i++) {
      String uid = String.format("u%03d", i < first ? order.get(i) : random.nextInt(first + 20));
      if (i == first + 50) {
        checkpoint.startBoot("boot-2");
      } else if (recorded.containsKey(uid) && random.nextInt(3) == 0) {
        checkpoint.remove(uid);
        recorded.remove(uid);
      } else if (checkpoint.isUnconfirmed(uid)) {
        checkpoint.confirm(uid);
      } else {
        PreparedClaim c = i % 5 == 0 ? shareClaim(uid) : claim(uid);
        checkpoint.put(c);
        recorded.put(uid, c);
      }
      JsonNode written = JSON.readTree(Files.readAllBytes(file));
      ObjectNode content = ((ObjectNode) written).deepCopy();
      content.remove("checksum");
      String canonical = SORTED.writeValueAsString(SORTED.treeToValue(content, Object.class));
      assertThat(written.get("checksum").asText()).as("commit %d", i).isEqualTo("sha256:" + HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8))));
      most = Math.max(most, recorded.size());
      if (i % 60 == 59) {
        assertThat(Checkpoint.open(file).all()).containsExactlyElementsOf(recorded.values());
      }
    }
    assertThat(most).as("more claims than digest states kept").isGreaterThan(CheckpointDigest.MAX_STATES);
    assertThat(Checkpoint.open(file).unconfirmed()).isEqualTo(checkpoint.unconfirmed()).isNotEmpty();
  }

  @Test
  void aVersion22FileReadsItsCpusAsTheFamilysPlacement() throws Exception {
    // Exactly what the v2.2 writer wrote (its checksum included): the share's CPUs in "cpus".
    String v22 = """
        {"checksum":"sha256:1609c60eb7b1d63bbda72f9f50772e44678bd51045ff02e371be5e4ef4f6ab95",
        "boot":{"id":"boot-1","unconfirmed":["b"]},
        "claims":{
        "a":{"claim":{"name":"c-a","namespace":"default","uid":"a"},"devices":[{"cdiDeviceIds":["nodeatlas.io/claim=a-gpu-0"],\
        "device":"gpu-0","pool":"node-a","requestNames":["gpus"]}]},
        "b":{"claim":{"name":"c-b","namespace":"default","uid":"b"},"devices":[{"cdiDeviceIds":\
        ["nodeatlas.io/claim=b-cpu-numa0-s0123456789ab"],"consumedCapacity":{"nodeatlas.io/cpu":"3"},"cpus":"1-2,17",\
        "device":"cpu-numa0","pool":"node-a","requestNames":["cpus"],"shareId":"00000000-0000-4000-8000-000000000001"}]}},
        "kind":"nodeatlas.io/checkpoint",
        "version":"v2.2"
        }
        """;
    Path file = Files.writeString(dir.resolve("checkpoint.json"), v22);
    Checkpoint c = Checkpoint.open(file);
    PreparedDevice share = c.get("b").orElseThrow().devices().get(0);
    assertThat(share.placementOrNone()).isEqualTo(new Placement(1, "1-2,17"));
    // Written back, the entry keeps the member it was read with, so a v2.2 agent rolled back to reads it again.
    c.put(claim("c"));
    assertThat(JSON.readTree(Files.readAllBytes(file)).at("/claims/b/devices/0/cpus").asText()).isEqualTo("1-2,17");
    assertThat(Checkpoint.open(file).get("b").orElseThrow().devices().get(0).placementOrNone()).isEqualTo(new Placement(1, "1-2,17"));
  }

  @Test
  void theFileLayoutIsByteForByteTheOneEarlierVersionsWrote() throws Exception {
    // A commit writes the file in one array, from bytes made earlier: the layout (checksum first, one member
    // per line, one claim per line) and every byte stay those of the earlier writer, whose output this is.
    PreparedClaim share = new PreparedClaim(new ClaimRef("default", "c-b", "b"), List.of(
        new PreparedDevice(List.of("cpus"), "node-a", "cpu-numa0", List.of("nodeatlas.io/claim=b-cpu-numa0-s0123456789ab"),
            "00000000-0000-4000-8000-000000000001", java.util.Map.of("nodeatlas.io/cpu", "3"), new Placement(1, "1-2,17"))));
    java.util.SortedMap<String, CheckpointCodec.Entry> claims = new java.util.TreeMap<>();
    claims.put("a", CODEC.entry(claim("a")));
    claims.put("b", CODEC.entry(share));
    byte[] file = CODEC.encode(claims, java.util.Map.of(), new CheckpointCodec.Boot("boot-1", new java.util.TreeSet<>(List.of("b"))));
    assertThat(new String(file, StandardCharsets.UTF_8)).isEqualTo("""
        {"checksum":"sha256:790f5c25b2fce0407c10c4e292c33d9b85a4f54d4a0e122816a560d55bed69cf",
        "boot":{"id":"boot-1","unconfirmed":["b"]},
        "claims":{
        "a":{"claim":{"name":"c-a","namespace":"default","uid":"a"},"devices":[{"cdiDeviceIds":["nodeatlas.io/claim=a-gpu-0"],\
        "device":"gpu-0","pool":"node-a","requestNames":["gpus"]}]},
        "b":{"claim":{"name":"c-b","namespace":"default","uid":"b"},"devices":[{"cdiDeviceIds":\
        ["nodeatlas.io/claim=b-cpu-numa0-s0123456789ab"],"consumedCapacity":{"nodeatlas.io/cpu":"3"},\
        "device":"cpu-numa0","placement":{"value":"1-2,17","version":1},"pool":"node-a","requestNames":["cpus"],"shareId":"00000000-0000-4000-8000-000000000001"}]}},
        "kind":"nodeatlas.io/checkpoint",
        "version":"v2.3"
        }
        """);
    assertThat(CODEC.decode(Path.of("x"), file).claims().get("b").claim()).isEqualTo(share);
  }

  @Test
  void namesThatJsonEscapesAndMembersOfANewerVersionKeepTheChecksumExact() throws Exception {
    // UIDs are RFC 4122 text, but the file's own rules hold for any name: escaped quotes, control and
    // non-ASCII characters, and top-level members before and after "claims".
    java.util.SortedMap<String, CheckpointCodec.Entry> claims = new java.util.TreeMap<>();
    for (String uid : List.of("q\"uote\\back", "tab\tnew\nline", "gr\u00fc\u00dfe \u2603", "plain")) {
      claims.put(uid, CODEC.entry(claim(uid)));
    }
    ObjectNode aaa = JSON.createObjectNode().put("z", new java.math.BigDecimal("1.50")).put("a", "x");
    java.util.Map<String, JsonNode> unknown = new java.util.TreeMap<>(java.util.Map.of("aaa", aaa, "zzz", JSON.createArrayNode().add(3)));
    byte[] file = CODEC.encode(claims, unknown, new CheckpointCodec.Boot("b\u00e9\"1", new java.util.TreeSet<>(List.of("plain"))));
    // The reader recomputes the checksum from what it parsed, and refuses the file when it differs.
    CheckpointCodec.Content read = CODEC.decode(Path.of("x"), file);
    assertThat(read.claims()).containsOnlyKeys(claims.keySet());
    assertThat(read.unknownMembers()).containsOnlyKeys("aaa", "zzz");
    assertThat(read.boot().id()).isEqualTo("b\u00e9\"1");
    assertThat(read.boot().unconfirmed()).containsExactly("plain");
    assertThat(CODEC.encode(read.claims(), read.unknownMembers(), read.boot())).isEqualTo(file);
  }

  @Test
  void anEntryIsTheCanonicalEncodingOfTheClaim() throws Exception {
    // Entries are written from the record without a tree; the checksum needs them canonical.
    PreparedClaim several = new PreparedClaim(new ClaimRef("ns", "n", "u9"), List.of(
        new PreparedDevice(List.of("b", "a"), "node-a", "cpu-numa1", List.of("x=1", "x=2"), "share-1",
            java.util.Map.of("z.io/mem", "1.50", "a.io/cpu", "2", "M", "0"), new Placement(1, "3,5-6")),
        new PreparedDevice(List.of("gpus"), "node-a", "gpu-7", List.of())));
    for (PreparedClaim c : List.of(claim("u1"), shareClaim("s1"), several)) {
      assertThat(new String(CODEC.entry(c).canonicalBytes(), StandardCharsets.UTF_8))
          .isEqualTo(new String(CODEC.canonicalEntryBytes(c), StandardCharsets.UTF_8));
    }
  }

  @Test
  void theFileIsAVersionedRecordWhoseChecksumCoversItsContentNotItsLayout() throws Exception {
    List<PreparedClaim> claims = List.of(claim("a"), claim("b"), claim("c"));
    JsonNode file = JSON.readTree(Checkpoint.encode(claims));
    assertThat(file.get("kind").asText()).isEqualTo("nodeatlas.io/checkpoint");
    assertThat(file.get("version").asText()).isEqualTo(CheckpointCodec.CURRENT.toString());
    assertThat(file.get("claims").fieldNames()).toIterable().containsExactly("a", "b", "c");
    assertThat(file.at("/claims/b/devices/0/device").asText()).isEqualTo("gpu-0");
    // SHA-256 of the document without its checksum, compact, members sorted (what any JSON tool can redo).
    ObjectNode content = ((ObjectNode) file).deepCopy();
    content.remove("checksum");
    String canonical = SORTED.writeValueAsString(SORTED.treeToValue(content, Object.class));
    assertThat(file.get("checksum").asText()).isEqualTo("sha256:" + HexFormat.of().formatHex(
        MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8))));
    // Another layout of the same content (one line, members reversed) reads the same.
    ObjectNode reversed = JSON.createObjectNode();
    List<String> names = new java.util.ArrayList<>();
    file.fieldNames().forEachRemaining(names::add);
    java.util.Collections.reverse(names);
    names.forEach(n -> reversed.set(n, file.get(n)));
    assertThat(CODEC.decode(Path.of("x"), JSON.writeValueAsBytes(reversed)).claims()).containsOnlyKeys("a", "b", "c");
    assertThat(CODEC.decode(Path.of("x"), Checkpoint.encode(List.of())).claims()).isEmpty();
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
      CODEC.decode(Path.of("fuzz.json"), data);
    } catch (CorruptCheckpointException expected) {
      // reported, as it should be
    }
  }

  @Test
  void theBootIdIsRecordedAndANewOneMakesEveryRecordedClaimUnconfirmedUntilPreparedOrRemoved() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    Checkpoint first = Checkpoint.open(file);
    assertThat(first.startBoot("boot-1")).contains("");
    first.put(claim("a"));
    first.put(claim("b"));
    assertThat(first.unconfirmed()).isEmpty();
    assertThat(JSON.readTree(Files.readAllBytes(file)).at("/boot/id").asText()).isEqualTo("boot-1");

    // The same boot (an agent restart): nothing changes.
    Checkpoint again = Checkpoint.open(file);
    assertThat(again.startBoot("boot-1")).isEmpty();
    assertThat(again.unconfirmed()).isEmpty();

    // A reboot: both claims are of an earlier boot until the kubelet asks again or they go.
    Checkpoint rebooted = Checkpoint.open(file);
    assertThat(rebooted.startBoot("boot-2")).contains("boot-1");
    assertThat(rebooted.unconfirmed()).containsExactly("a", "b");
    rebooted.confirm("a");
    rebooted.remove("b");
    Checkpoint reread = Checkpoint.open(file);
    assertThat(reread.bootId()).isEqualTo("boot-2");
    assertThat(reread.unconfirmed()).isEmpty();
    assertThat(reread.all()).containsExactly(claim("a"));
  }

  @Test
  void aV21FileWithoutBootReadsAsBootUnknownAndAStartMarksItsClaimsUnconfirmed() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    ObjectNode doc = (ObjectNode) JSON.readTree(Checkpoint.encode(List.of(claim("old"))));
    doc.remove("checksum");
    doc.remove("boot");
    doc.put("version", "v2.1");
    doc.put("checksum", CODEC.checksum(doc));
    Files.write(file, JSON.writeValueAsBytes(doc));

    Checkpoint c = Checkpoint.open(file);
    assertThat(c.bootId()).isEmpty();
    assertThat(c.startBoot("boot-9")).contains("");
    assertThat(c.unconfirmed()).containsExactly("old");
    assertThat(JSON.readTree(Files.readAllBytes(file)).get("version").asText()).isEqualTo("v2.3");
  }

  @Test
  void aBootMemberThatMakesNoSenseIsACorruptCheckpoint() throws Exception {
    ObjectNode doc = (ObjectNode) JSON.readTree(Checkpoint.encode(List.of(claim("a"))));
    doc.remove("checksum");
    doc.putObject("boot").put("id", 7);
    doc.put("checksum", CODEC.checksum(doc));
    assertThatThrownBy(() -> CODEC.decode(Path.of("x"), JSON.writeValueAsBytes(doc)))
        .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("boot");
  }

  @Test
  void encodeDecodeRoundTrip() throws Exception {
    byte[] bytes = Checkpoint.encode(List.of(claim("a"), claim("b")));
    CheckpointCodec.Content content = CODEC.decode(Path.of("x"), bytes);
    assertThat(content.claims()).containsOnlyKeys("a", "b");
    assertThat(content.claims().get("a").claim()).isEqualTo(claim("a"));
    assertThat(content.version()).isEqualTo(CheckpointCodec.CURRENT);
  }

  /** A file as a newer minor version of the format might write it: unknown members at three levels. */
  private static byte[] newerMinorVersion(String version) throws Exception {
    ObjectNode doc = (ObjectNode) JSON.readTree(Checkpoint.encode(List.of(claim("u1"))));
    doc.remove("checksum");
    doc.put("version", version);
    doc.putObject("shares").put("gpu-0", 2).put("ratio", 0.50);
    ObjectNode entry = (ObjectNode) doc.at("/claims/u1");
    entry.put("preparedAt", "2026-01-02T03:04:05Z");
    ((ObjectNode) entry.at("/devices/0")).put("shareID", "7d3f").putArray("consumed").add(1.0);
    doc.put("checksum", CODEC.checksum(doc));
    return JSON.writeValueAsBytes(doc);
  }

  @Test
  void aNewerMinorVersionWithUnknownMembersIsReadAndTheyAreKept() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    Files.write(file, newerMinorVersion("v2.7"));

    Checkpoint c = Checkpoint.open(file);
    assertThat(c.all()).containsExactly(claim("u1"));
    c.put(claim("u2"));

    JsonNode written = JSON.readTree(Files.readAllBytes(file));
    assertThat(written.get("version").asText()).isEqualTo(CheckpointCodec.CURRENT.toString());
    assertThat(written.at("/shares/gpu-0").asInt()).isEqualTo(2);
    assertThat(written.at("/claims/u1/preparedAt").asText()).isEqualTo("2026-01-02T03:04:05Z");
    assertThat(written.at("/claims/u1/devices/0/shareID").asText()).isEqualTo("7d3f");
    assertThat(written.at("/claims/u2/preparedAt").isMissingNode()).isTrue();
    assertThat(Checkpoint.open(file).all()).containsExactly(claim("u1"), claim("u2"));
  }

  @Test
  void aNewerMajorVersionIsRefusedAndLeftUntouched() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    byte[] newer = newerMinorVersion("v4.0");
    Files.write(file, newer);

    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("written in format v4.0, which this version of nodeatlas cannot read (it reads v2.x to v3.x)")
        .hasMessageContaining(file.toString());
    assertThat(Files.readAllBytes(file)).isEqualTo(newer);
    // A damaged minor version is still a checksum mismatch, not a version problem.
    Files.write(file, new String(newerMinorVersion("v2.1"), StandardCharsets.UTF_8).replace("7d3f", "7d3e")
        .getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("checksum mismatch");
  }

  @Test
  void formatOneOfEarlierReleasesIsReadAndRewrittenInTheCurrentFormat() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    try (var in = CheckpointTest.class.getResourceAsStream("checkpoint-format-1.json")) {
      Files.write(file, in.readAllBytes());
    }
    Checkpoint c = Checkpoint.open(file);
    assertThat(c.all()).extracting(p -> p.claim().uid()).containsExactly("u1", "u2");
    assertThat(c.get("u2").orElseThrow().devices()).extracting(PreparedDevice::device).containsExactly("rdma-mlx5-0", "cpu-numa0");
    c.put(claim("u3"));
    assertThat(JSON.readTree(Files.readAllBytes(file)).get("version").asText()).isEqualTo(CheckpointCodec.CURRENT.toString());
    assertThat(Checkpoint.open(file).all()).extracting(p -> p.claim().uid()).containsExactly("u1", "u2", "u3");
  }

  @Test
  void theFileIsOwnerOnlyInAStateDirectoryCreatedOwnerOnly() throws Exception {
    Path file = dir.resolve("var/lib/nodeatlas/checkpoint.json");
    Checkpoint.open(file).put(claim("u1"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent()))).isEqualTo("rwx------");
  }

  @Test
  void aLinkAtTheCheckpointPathIsNeverFollowed() throws Exception {
    Path victim = dir.resolve("victim.json");
    Files.write(victim, Checkpoint.encode(List.of(claim("other"))));
    byte[] before = Files.readAllBytes(victim);
    Path file = Files.createSymbolicLink(dir.resolve("checkpoint.json"), victim);

    assertThatThrownBy(() -> Checkpoint.open(file)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("symbolic link");
    assertThat(Files.isSymbolicLink(file)).isTrue();
    assertThat(Files.readAllBytes(victim)).isEqualTo(before);
  }

  @Test
  void aLinkAtATemporaryPathIsRemovedNotFollowed() throws Exception {
    Path victim = Files.writeString(dir.resolve("victim"), "precious");
    Path planted = Files.createSymbolicLink(dir.resolve(".checkpoint.json" + AtomicFiles.TEMP_MARKER + "0123456789ab"), victim);
    Path legacy = Files.createSymbolicLink(dir.resolve(".checkpoint.json.tmp"), victim);
    Path crashed = Files.writeString(dir.resolve(".checkpoint.json" + AtomicFiles.TEMP_MARKER + "ba9876543210"), "{ partial");
    Path othersTemp = Files.writeString(dir.resolve(".other.json" + AtomicFiles.TEMP_MARKER + "0123456789ab"), "not ours");

    Checkpoint c = Checkpoint.open(dir.resolve("checkpoint.json"));
    c.put(claim("u1"));

    assertThat(Files.exists(planted, LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.exists(legacy, LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(crashed).doesNotExist();
    assertThat(othersTemp).exists();
    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(Checkpoint.open(dir.resolve("checkpoint.json")).all()).containsExactly(claim("u1"));
  }

  @Test
  void aStateDirectoryThatIsALinkIsRefused() throws Exception {
    Path real = Files.createDirectory(dir.resolve("real"));
    Path link = Files.createSymbolicLink(dir.resolve("state"), real);
    assertThatThrownBy(() -> Checkpoint.open(link.resolve("checkpoint.json"))).isInstanceOf(IOException.class)
        .hasMessageContaining("is a symbolic link");
    assertThat(real).isEmptyDirectory();
  }

  /**
   * Issue 35 item 1, the case a full or read-only disk does not reach: the new file was renamed into
   * place and only the directory's fsync failed. The commit is a failure (the caller answers "failed"),
   * so the file must not keep the change either: it is written back to what memory holds.
   */
  @Test
  void aCommitWhoseRenameLandedButWhoseFsyncFailedLeavesTheFileAsMemory() throws Exception {
    Path file = dir.resolve("checkpoint.json");
    java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();
    Checkpoint c = Checkpoint.open(file, (f, content) -> {
      AtomicFiles.write(f, content, AtomicFiles.OWNER_ONLY);
      if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new AtomicFiles.NotDurableException(f, new IOException("Input/output error"));
      }
    });
    c.put(claim("a"));
    failures.set(1);
    assertThatThrownBy(() -> c.put(claim("x"))).isInstanceOf(IOException.class).hasMessageContaining("cannot make it durable");
    assertThat(c.get("x")).isEmpty();
    assertThat(Checkpoint.open(file).all()).as("the file, as a restarted agent reads it").containsExactly(claim("a"));

    c.put(claim("b"));
    failures.set(1);
    assertThatThrownBy(() -> c.remove("a")).isInstanceOf(IOException.class);
    assertThat(c.get("a")).isPresent();
    assertThat(Checkpoint.open(file).all()).containsExactly(claim("a"), claim("b"));
  }
}
