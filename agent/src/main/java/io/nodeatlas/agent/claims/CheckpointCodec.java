package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.discovery.model.Names;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The checkpoint file's format, and the only code that knows it. A file is one JSON object, read into
 * the typed record of its version ({@link CheckpointDocument}) and upgraded to the current one:
 *
 * <pre>
 * {"checksum":"sha256:&lt;hex&gt;",
 * "boot":{"id":"&lt;boot ID&gt;","unconfirmed":["&lt;claim UID&gt;",...]},
 * "claims":{
 * "&lt;claim UID&gt;":{"claim":{...},"devices":[...]},
 * ...},
 * "kind":"nodeatlas.io/checkpoint",
 * "version":"v2.3"
 * }
 * </pre>
 *
 * <p><b>Integrity.</b> {@code checksum} is the SHA-256 of the {@link CanonicalJson canonical encoding}
 * of the document without its {@code checksum} member. A reader recomputes it from what it parsed, so the
 * layout (indentation, member order) does not matter, and every member counts, also those the reader does
 * not understand.
 *
 * <p><b>Versions.</b> {@code version} is the writer's {@link CheckpointVersion}. A reader accepts its
 * own major version with any minor version: members a newer minor version added are kept as read (at the
 * top level and inside each claim's entry) and written back unchanged, so rolling the agent back and
 * forward again loses nothing. Another major version, another {@code kind}, a checksum that does not
 * match, or entries that make no sense make the file unusable ({@link CorruptCheckpointException}); it is
 * then never overwritten. Format 1 ({@code "version": 1}) is still read; the next write makes it current.
 */
public final class CheckpointCodec {

  static final String KIND = Names.ours("checkpoint");
  /** The version this code writes while it keeps no journal: every v2 reader reads it. */
  public static final CheckpointVersion CURRENT = new CheckpointVersion(2, 3);
  /** The version of a file whose journal holds the changes made since (the newest this code reads). */
  public static final CheckpointVersion JOURNALED = new CheckpointVersion(3, 0);
  private static final Set<String> KNOWN_MEMBERS = Set.of("boot", "checksum", "claims", "journal", "kind", "version");

  private final ObjectMapper json = CanonicalJson.mapper();
  /** Format 1 read claims strictly and hashed Jackson's encoding of the list. */
  private final ObjectMapper format1 = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .build();
  private final byte[] kindBytes = jsonString(KIND);
  private final byte[] versionBytes = jsonString(CURRENT.toString());
  private final byte[] journaledBytes = jsonString(JOURNALED.toString());

  {
    format1.getFactory().setStreamReadConstraints(CanonicalJson.limits());
  }

  /**
   * One recorded claim: what this version understands of it, and its member of the {@code claims} object
   * as stored, {@code "<uid>":<entry>} in canonical form (with any members of a newer minor version), made
   * once when the claim is recorded or read so that a commit only joins bytes.
   */
  public record Entry(PreparedClaim claim, byte[] memberBytes) {
    /** The entry's own canonical encoding, without its UID (tests). */
    byte[] canonicalBytes() {
      int colon = nameLength(claim.claim().uid());
      return Arrays.copyOfRange(memberBytes, colon, memberBytes.length);
    }
  }

  /**
   * A checkpoint's content: the version it was written in, the claims by UID, the top-level members of a
   * newer minor version, which this version keeps but does not read, the boot, and the generation of the
   * journal that continues it (0: none).
   */
  public record Content(CheckpointVersion version, SortedMap<String, Entry> claims, SortedMap<String, JsonNode> unknownMembers,
      Boot boot, long journal) {
    public Content {
      claims = Collections.unmodifiableSortedMap(new TreeMap<>(claims));
      unknownMembers = Collections.unmodifiableSortedMap(new TreeMap<>(unknownMembers));
      boot = boot == null ? Boot.UNKNOWN : boot;
    }

    public Content(CheckpointVersion version, SortedMap<String, Entry> claims, SortedMap<String, JsonNode> unknownMembers,
        Boot boot) {
      this(version, claims, unknownMembers, boot, 0);
    }

    public Content(CheckpointVersion version, SortedMap<String, Entry> claims, SortedMap<String, JsonNode> unknownMembers) {
      this(version, claims, unknownMembers, Boot.UNKNOWN);
    }

    /** An empty checkpoint of the current version. */
    public static Content empty() {
      return new Content(CURRENT, new TreeMap<>(), new TreeMap<>());
    }
  }

  /**
   * The boot a checkpoint was written in ({@code id}, empty when unknown: a file older than v2.2, or a
   * host without a boot ID) and the UIDs of claims recorded in an earlier boot and not prepared again since.
   */
  public record Boot(String id, SortedSet<String> unconfirmed) {
    public static final Boot UNKNOWN = new Boot("", new TreeSet<>());

    public Boot {
      id = id == null ? "" : id;
      unconfirmed = Collections.unmodifiableSortedSet(new TreeSet<>(unconfirmed));
    }

    /** Whether the file records it (v2.2): a boot that says nothing is left out. */
    boolean recorded() {
      return !id.isEmpty() || !unconfirmed.isEmpty();
    }
  }

  /**
   * The entry this version writes for {@code claim}, written by the mapper straight from the record:
   * canonical as written (members sorted by name, maps by key, text only), which {@code CheckpointTest}
   * checks against the canonical form of its tree.
   */
  public Entry entry(PreparedClaim claim) {
    try {
      return new Entry(claim, member(claim.claim().uid(), json.writeValueAsBytes(claim)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the checkpoint entry of " + claim.claim(), e);
    }
  }

  /** The canonical encoding of {@code claim}'s tree: what {@link #entry(PreparedClaim)} must equal (tests). */
  byte[] canonicalEntryBytes(PreparedClaim claim) {
    return CanonicalJson.bytes(json, json.valueToTree(claim));
  }

  /** The file for {@code claims} (by UID) and the kept {@code unknownMembers}, in the current version. */
  public byte[] encode(SortedMap<String, Entry> claims, Map<String, JsonNode> unknownMembers) {
    return encode(claims, unknownMembers, Boot.UNKNOWN);
  }

  /** As {@link #encode(SortedMap, Map)}, with {@code boot} recorded (left out while it says nothing). */
  public byte[] encode(SortedMap<String, Entry> claims, Map<String, JsonNode> unknownMembers, Boot boot) {
    return encode(claims, unknownMembers, boot, new CheckpointDigest());
  }

  /**
   * As {@link #encode(SortedMap, Map, Boot)}, hashing through {@code digest} only from the first claim
   * that changed since its last use. The canonical document is its members joined in name order; the file
   * is the same members with {@code checksum} first and one member and one claim per line.
   */
  byte[] encode(SortedMap<String, Entry> claims, Map<String, JsonNode> unknownMembers, Boot boot, CheckpointDigest digest) {
    return encode(claims, unknownMembers, boot, digest, 0);
  }

  /**
   * As {@link #encode(SortedMap, Map, Boot, CheckpointDigest)}; with a {@code journal} generation above 0,
   * the file is of version {@link #JOURNALED} and names that journal.
   */
  byte[] encode(SortedMap<String, Entry> claims, Map<String, JsonNode> unknownMembers, Boot boot, CheckpointDigest digest,
      long journal) {
    SortedMap<String, byte[]> members = new TreeMap<>();
    unknownMembers.forEach((name, value) -> members.put(name, member(name, CanonicalJson.bytes(json, value))));
    if (boot.recorded()) {
      members.put("boot", member("boot", bootBytes(boot)));
    }
    members.put("kind", member("kind", kindBytes));
    members.put("version", member("version", journal > 0 ? journaledBytes : versionBytes));
    if (journal > 0) {
      members.put("journal", member("journal", ("{\"generation\":" + journal + "}").getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    }
    List<Entry> entries = new ArrayList<>(claims.size());
    claims.forEach((uid, e) -> {
      if (!uid.equals(e.claim().claim().uid())) {
        throw new IllegalArgumentException("the entry under UID " + uid + " is claim " + e.claim().claim());
      }
      entries.add(e);
    });
    SortedMap<String, byte[]> before = members.headMap("claims");
    SortedMap<String, byte[]> after = members.tailMap("claims");
    byte[] claimsName = member("claims", new byte[0]);
    String checksum = digest.checksum(CheckpointLayout.head(before.values(), claimsName), entries,
        CheckpointLayout.tail(after.values()));
    return CheckpointLayout.file(member("checksum", jsonString(checksum)), before.values(), claimsName, entries, after.values());
  }

  /** {@code "name":value}, the name as Jackson writes it. */
  private byte[] member(String name, byte[] value) {
    byte[] quoted = jsonString(name);
    byte[] out = Arrays.copyOf(quoted, quoted.length + 1 + value.length);
    out[quoted.length] = ':';
    System.arraycopy(value, 0, out, quoted.length + 1, value.length);
    return out;
  }

  /** The length of {@code "name":} as {@link #member} writes it. */
  private static int nameLength(String name) {
    return com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance().quoteAsUTF8(name).length + 3;
  }

  private byte[] jsonString(String value) {
    try {
      return json.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private byte[] bootBytes(Boot boot) {
    try {
      return json.writeValueAsBytes(new CheckpointDocument.BootRecord(boot.id(), List.copyOf(boot.unconfirmed())));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the boot " + boot, e);
    }
  }

  /** Reads a checkpoint file; anything unusable is a {@link CorruptCheckpointException} naming {@code file}. */
  public Content decode(Path file, byte[] bytes) throws CorruptCheckpointException {
    JsonNode root;
    try {
      root = json.readTree(bytes);
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(file, "not a readable checkpoint: " + firstLine(e.getMessage()), e);
    }
    if (root == null || !root.isObject()) {
      throw new CorruptCheckpointException(file, "not a readable checkpoint: not a JSON object", null);
    }
    if (!KIND.equals(root.path("kind").asText(null))) {
      throw new CorruptCheckpointException(file, "unknown format: kind " + describe(root.get("kind")) + ", expected "
          + KIND, null);
    }
    JsonNode version = root.get("version");
    if (version != null && version.isInt() && version.intValue() == 1) {
      return content(file, format1(file, bytes), new TreeMap<>());
    }
    CheckpointVersion v = version == null || !version.isTextual() ? null : CheckpointVersion.parse(version.textValue()).orElse(null);
    if (v == null) {
      throw new CorruptCheckpointException(file, "unknown format version " + describe(version) + ", expected " + CURRENT, null);
    }
    if (v.major() > JOURNALED.major()) {
      throw CorruptCheckpointException.newerVersion(file, v, CURRENT, JOURNALED);
    }
    if (v.major() < CURRENT.major()) {
      throw new CorruptCheckpointException(file, "unknown format version " + v + ", expected " + CURRENT, null);
    }
    ObjectNode document = ((ObjectNode) root).deepCopy();
    verify(file, document);
    SortedMap<String, JsonNode> unknown = new TreeMap<>();
    document.fields().forEachRemaining(m -> {
      if (!KNOWN_MEMBERS.contains(m.getKey())) {
        unknown.put(m.getKey(), CanonicalJson.canonical(m.getValue()));
      }
    });
    return content(file, typed(file, document, v), unknown);
  }

  /** Removes {@code checksum} from {@code document} and checks it against the rest. */
  private void verify(Path file, ObjectNode document) throws CorruptCheckpointException {
    JsonNode stated = document.remove("checksum");
    String expected;
    try {
      expected = checksum(document);
    } catch (RuntimeException e) {
      throw new CorruptCheckpointException(file, "cannot hash its content: " + e.getMessage(), e);
    }
    if (stated == null || !stated.isTextual() || !expected.equals(stated.textValue())) {
      throw new CorruptCheckpointException(file, "checksum mismatch: file says " + describe(stated)
          + ", content hashes to " + expected, null);
    }
  }

  /** The record of version {@code v} read from {@code document}; a newer minor version reads as the current one. */
  private CheckpointDocument typed(Path file, ObjectNode document, CheckpointVersion v) throws CorruptCheckpointException {
    Class<? extends CheckpointDocument> type = v.major() == JOURNALED.major() ? CheckpointDocument.V3_0.class
        : v.minor() <= 1 ? CheckpointDocument.V2_1.class
        : v.minor() == 2 ? CheckpointDocument.V2_2.class : CheckpointDocument.V2_3.class;
    try {
      return json.treeToValue(document, type);
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(file, "not a checkpoint of format " + v + ": " + problem(e), e);
    }
  }

  /** Format 1's record, its checksum checked. */
  private CheckpointDocument.Format1 format1(Path file, byte[] bytes) throws CorruptCheckpointException {
    CheckpointDocument.Format1 parsed;
    try {
      parsed = format1.readValue(bytes, CheckpointDocument.Format1.class);
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(file, "not a readable checkpoint: " + firstLine(e.getMessage()), e);
    }
    if (parsed.claims() == null) {
      throw new CorruptCheckpointException(file, "no claims list", null);
    }
    String expected;
    try {
      expected = CanonicalJson.sha256(format1.writeValueAsBytes(parsed.claims()));
    } catch (JsonProcessingException | RuntimeException e) {
      throw new CorruptCheckpointException(file, "invalid claim entry: " + e.getMessage(), e);
    }
    if (!expected.equals(parsed.checksum())) {
      throw new CorruptCheckpointException(file,
          "checksum mismatch: file says " + parsed.checksum() + ", content hashes to " + expected, null);
    }
    return parsed;
  }

  /** {@code document} upgraded to the current version, its entries read and checked. */
  private Content content(Path file, CheckpointDocument document, SortedMap<String, JsonNode> unknown)
      throws CorruptCheckpointException {
    CheckpointDocument.V3_0 current;
    try {
      current = document.current(json);
    } catch (IllegalArgumentException e) {
      throw new CorruptCheckpointException(file, e.getMessage(), e);
    }
    if (current.claims() == null) {
      throw new CorruptCheckpointException(file, "no claims object", null);
    }
    SortedMap<String, Entry> byUid = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : current.claims().entrySet()) {
      byUid.put(e.getKey(), entry(file, e.getKey(), e.getValue()));
    }
    Boot boot = Boot.UNKNOWN;
    if (current.boot() != null) {
      // A UID of a claim the file no longer records is dropped: it can only have come from an older writer.
      SortedSet<String> unconfirmed = new TreeSet<>(current.boot().unconfirmed());
      unconfirmed.retainAll(byUid.keySet());
      boot = new Boot(current.boot().id(), unconfirmed);
    }
    return new Content(document.written(), byUid, unknown, boot, current.journal() == null ? 0 : current.journal().generation());
  }

  Entry entry(Path file, String uid, JsonNode node) throws CorruptCheckpointException {
    if (!node.isObject()) {
      throw new CorruptCheckpointException(file, "the entry of claim UID " + uid + " is not an object", null);
    }
    PreparedClaim claim;
    try {
      claim = json.treeToValue(node, PreparedClaim.class);
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(file, "invalid entry of claim UID " + uid + ": " + problem(e), e);
    }
    if (claim == null || claim.claim() == null || claim.devices() == null) {
      throw new CorruptCheckpointException(file, "incomplete entry of claim UID " + uid, null);
    }
    if (!uid.equals(claim.claim().uid())) {
      throw new CorruptCheckpointException(file, "the entry under UID " + uid + " is claim " + claim.claim(), null);
    }
    for (PreparedDevice d : claim.devices()) {
      String bad = shareProblem(d);
      if (bad != null) {
        throw new CorruptCheckpointException(file, "claim UID " + uid + ", device " + (d == null ? "?" : d.device()) + ": " + bad, null);
      }
    }
    return new Entry(claim, member(uid, CanonicalJson.bytes(json, node)));
  }

  /** A snapshot with its journal applied: the content, the journal's bytes of whole lines, and lines dropped after damage. */
  public record Replayed(Content content, long journalBytes, int droppedLines) {}

  /** Where the journal that continues {@code snapshot} lives, beside {@code file}; empty when there is none. */
  public Optional<Path> journalFile(Path file, Content snapshot) {
    return snapshot.journal() == 0 ? Optional.empty() : Optional.of(CheckpointJournal.path(file, snapshot.journal()));
  }

  /**
   * {@code snapshot} with the changes of its journal ({@code journal}: the bytes of {@link #journalFile},
   * empty when it is missing) applied in order: the checkpoint as a restarted agent holds it.
   */
  public Replayed replay(Path file, Content snapshot, Optional<byte[]> journal) throws CorruptCheckpointException {
    if (snapshot.journal() == 0) {
      return new Replayed(snapshot, 0, 0);
    }
    if (journal.isEmpty()) {
      throw new CorruptCheckpointException(file, "its journal " + CheckpointJournal.path(file, snapshot.journal()).getFileName()
          + " is missing, and with it the changes made since the file was written", null);
    }
    CheckpointJournal.Read read = CheckpointJournal.read(json, file, journal.get(), snapshot.journal());
    SortedMap<String, Entry> claims = new TreeMap<>(snapshot.claims());
    String bootId = snapshot.boot().id();
    SortedSet<String> unconfirmed = new TreeSet<>(snapshot.boot().unconfirmed());
    for (CheckpointJournal.Line l : read.changes()) {
      String op = l.op() == null ? "" : l.op();
      if (op.equals("boot") ? l.boot() == null || l.boot().length() > CheckpointDocument.BootRecord.MAX_ID_CHARS : l.uid() == null) {
        throw new CorruptCheckpointException(file, "its journal holds an incomplete " + op + " change", null);
      }
      switch (op) {
        case "put" -> {
          claims.put(l.uid(), entry(file, l.uid(), l.entry() == null ? CanonicalJson.NODES.nullNode() : l.entry()));
          unconfirmed.remove(l.uid());
        }
        case "remove" -> {
          claims.remove(l.uid());
          unconfirmed.remove(l.uid());
        }
        case "confirm" -> unconfirmed.remove(l.uid());
        case "boot" -> {
          bootId = l.boot();
          unconfirmed.addAll(claims.keySet());
        }
        default -> throw new CorruptCheckpointException(file, "its journal holds a change it does not know: " + describe(
            CanonicalJson.NODES.textNode(op)), null);
      }
    }
    Content content = new Content(snapshot.version(), claims, snapshot.unknownMembers(), new Boot(bootId, unconfirmed),
        snapshot.journal());
    return new Replayed(content, read.length(), read.dropped());
  }

  /** The journal line that records {@code entry}. */
  byte[] putLine(Entry entry) {
    return CheckpointJournal.put(json, entry);
  }

  /** The journal line of a {@code remove} or a {@code confirm} of {@code uid}. */
  byte[] changeLine(String op, String uid) {
    return CheckpointJournal.of(json, op, uid);
  }

  /** The journal line of a new boot. */
  byte[] bootLine(String bootId) {
    return CheckpointJournal.boot(json, bootId);
  }

  /** Creates the journal of {@code generation} beside {@code file}. */
  CheckpointJournal createJournal(Path file, long generation) throws java.io.IOException {
    return CheckpointJournal.create(file, generation, json);
  }

  /** Why a device entry's share members make no sense; null when they do (or it has none). */
  static String shareProblem(PreparedDevice d) {
    if (d == null) {
      return "empty device entry";
    }
    // A device held whole may carry a placement: what its family made real for the claim (DeviceRealiser).
    if (d.shareId().isEmpty() && !d.consumedCapacity().isEmpty()) {
      return "consumedCapacity without shareId";
    }
    for (Map.Entry<String, String> e : d.consumedCapacity().entrySet()) {
      try {
        if (e.getValue() == null || e.getValue().length() > 64 || new BigDecimal(e.getValue()).signum() < 0) {
          return "consumedCapacity " + e.getKey() + " is not a decimal amount";
        }
      } catch (NumberFormatException bad) {
        return "consumedCapacity " + e.getKey() + " is not a decimal amount";
      }
    }
    return null;
  }

  /** {@code sha256:<hex>} of the canonical encoding of {@code document}. */
  String checksum(ObjectNode document) {
    return CanonicalJson.sha256(CanonicalJson.bytes(json, document));
  }

  /** What Jackson found wrong, and where: its message without the source excerpt, and the member path. */
  private static String problem(Exception e) {
    if (e instanceof JsonMappingException m) {
      StringBuilder at = new StringBuilder();
      for (JsonMappingException.Reference r : m.getPath()) {
        at.append(r.getFieldName() != null ? "/" + r.getFieldName() : r.getIndex() >= 0 ? "/" + r.getIndex() : "");
      }
      String what = firstLine(m.getOriginalMessage());
      return at.length() == 0 ? what : what + " (at " + at + ")";
    }
    return firstLine(e.getMessage());
  }

  private static String describe(JsonNode n) {
    if (n == null) {
      return "(none)";
    }
    String text = n.toString();
    return text.length() > 80 ? text.substring(0, 80) + "…" : text;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unknown error";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
