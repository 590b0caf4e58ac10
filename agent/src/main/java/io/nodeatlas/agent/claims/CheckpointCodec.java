package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.discovery.model.Names;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The checkpoint file's format, and the only code that knows it. A file is one JSON object:
 *
 * <pre>
 * {
 *   "checksum" : "sha256:&lt;hex&gt;",
 *   "claims" : { "&lt;claim UID&gt;" : { "claim" : {...}, "devices" : [...] }, ... },
 *   "kind" : "nodeatlas.io/checkpoint",
 *   "boot" : { "id" : "&lt;boot ID&gt;", "unconfirmed" : [ "&lt;claim UID&gt;", ... ] },
 *   "version" : "v2.3"
 * }
 * </pre>
 *
 * <p>{@code v2.3} records a share's {@code placement}: its device family's opaque choice, {@code
 * {"value": <text>, "version": <n>}} ({@link io.nodeatlas.discovery.share.Placement}), which only the
 * family reads. A {@code v2.1} or {@code v2.2} entry's {@code cpus} reads as placement version 1 (the
 * CPU list it always was) and is written back as read; a {@code v2.2} reader keeps {@code placement} as
 * a member of a newer minor version.
 *
 * <p>{@code v2.2} added {@code boot}: the kernel's boot ID ({@code /proc/sys/kernel/random/boot_id},
 * {@code Documentation/admin-guide/sysctl/kernel.rst}) of the boot the checkpoint was last written in,
 * and the claims recorded in an earlier boot that the kubelet has not prepared again since. The CDI
 * directory is usually tmpfs, so a new boot ID means the specs of recorded claims may be gone; a file
 * without {@code boot} (v2.0, v2.1) reads as "boot unknown".
 *
 * <p>{@code v2.1} added, on a device entry that is a share of a device allowing multiple allocations
 * (KEP-5075), {@code shareId}, {@code consumedCapacity} (capacity name → decimal amount) and, for a share
 * whose family chose something, {@code cpus} (since {@code v2.3}: {@code placement}): the choice Prepare made, so a restart hands out nothing
 * twice. A {@code v2.0} file reads as claims without shares; a {@code v2.0} reader keeps the new members
 * as members of a newer minor version.
 *
 * <p><b>Integrity.</b> {@code checksum} is the SHA-256 of the canonical encoding of the document
 * without its {@code checksum} member: JSON without insignificant white space, object members sorted
 * by name at every level (as RFC 8785 does), strings as Jackson escapes them, integers in decimal and
 * other numbers as their shortest exact decimal ({@link java.math.BigDecimal#stripTrailingZeros()}).
 * A reader recomputes it from what it parsed, so the layout of the file (indentation, member order)
 * does not matter, and every member counts, also those the reader does not understand.
 *
 * <p><b>Versions.</b> {@code version} is the writer's {@link CheckpointVersion}. A reader accepts its
 * own major version with any minor version: members a newer minor version added are kept as read
 * (at the top level and inside each claim's entry) and written back unchanged with that claim, so
 * rolling the agent back and forward again loses nothing. Another major version, another
 * {@code kind}, a checksum that does not match, or entries that do not make sense make the file
 * unusable ({@link CorruptCheckpointException}); it is then never overwritten.
 *
 * <p>Format 1 (before versions were {@code v<major>.<minor>}: {@code "version" : 1} and a list of
 * claims hashed as one compact JSON array) is still read, so an upgrade keeps its prepared claims; the
 * next write turns the file into the current format.
 */
public final class CheckpointCodec {

  static final String KIND = Names.ours("checkpoint");
  /** The version this code writes. */
  public static final CheckpointVersion CURRENT = new CheckpointVersion(2, 3);
  private static final Set<String> KNOWN_MEMBERS = Set.of("boot", "checksum", "claims", "kind", "version");
  /** The kernel writes the boot ID as a UUID in 36 characters; anything longer is not one. */
  private static final int MAX_BOOT_ID_CHARS = 64;
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  /** Tree and record mapping; unknown members of an entry are skipped (kept in its tree, not in the record). */
  private final ObjectMapper json = JsonMapper.builder()
      .nodeFactory(NODES)
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
      .build();
  /** Format 1 read claims strictly and hashed Jackson's encoding of the list. */
  private final ObjectMapper format1 = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .build();

  /**
   * One recorded claim: what this version understands of it, and its entry's canonical encoding as
   * stored (with any members of a newer minor version), made once when the claim is recorded or read so
   * that a commit only joins bytes.
   */
  public record Entry(PreparedClaim claim, byte[] canonicalBytes) {}

  /**
   * A checkpoint's content: the version it was written in, the claims by UID, and the top-level members
   * of a newer minor version, which this version keeps but does not read.
   */
  public record Content(CheckpointVersion version, SortedMap<String, Entry> claims, SortedMap<String, JsonNode> unknownMembers,
      Boot boot) {
    public Content {
      claims = Collections.unmodifiableSortedMap(new TreeMap<>(claims));
      unknownMembers = Collections.unmodifiableSortedMap(new TreeMap<>(unknownMembers));
      boot = boot == null ? Boot.UNKNOWN : boot;
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
  public record Boot(String id, java.util.SortedSet<String> unconfirmed) {
    public static final Boot UNKNOWN = new Boot("", new java.util.TreeSet<>());

    public Boot {
      id = id == null ? "" : id;
      unconfirmed = Collections.unmodifiableSortedSet(new java.util.TreeSet<>(unconfirmed));
    }
  }

  /**
   * The entry this version writes for {@code claim}. Every Prepare records one, so it is written straight
   * from the record, without a tree: its encoding is canonical already (members sorted by name, the
   * mapper's {@link MapperFeature#SORT_PROPERTIES_ALPHABETICALLY}; consumedCapacity a sorted map; text
   * only, no numbers), which {@code CheckpointTest} checks against the canonical form of its tree.
   */
  public Entry entry(PreparedClaim claim) {
    try {
      return new Entry(claim, json.writeValueAsBytes(claim));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the checkpoint entry of " + claim.claim(), e);
    }
  }

  /** The canonical encoding of {@code claim}'s tree: what {@link #entry(PreparedClaim)} must equal (tests). */
  byte[] canonicalEntryBytes(PreparedClaim claim) throws JsonProcessingException {
    return json.writeValueAsBytes(canonical(json.valueToTree(claim)));
  }

  private Entry entry(PreparedClaim claim, ObjectNode canonicalTree) {
    try {
      return new Entry(claim, json.writeValueAsBytes(canonicalTree));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the checkpoint entry of " + claim.claim(), e);
    }
  }

  /**
   * The file for {@code claims} (by UID) and the kept {@code unknownMembers}, in the current version.
   *
   * <p>A commit runs on every Prepare and Unprepare, so it joins bytes made earlier instead of
   * building and hashing a tree of every claim: each member's canonical encoding (each claim's made
   * once, in {@link #entry}) is joined in member order into exactly the bytes the checksum is defined
   * over (the reader's {@link #checksum} of what it parses gives the same digest), and the file is
   * the same bytes with {@code checksum} first and one claim per line (white space between tokens is
   * not significant, and the reader does not depend on the layout).
   */
  public byte[] encode(SortedMap<String, Entry> claims, Map<String, JsonNode> unknownMembers) {
    return encode(claims, unknownMembers, Boot.UNKNOWN);
  }

  /** As {@link #encode(SortedMap, Map)}, with {@code boot} recorded (left out while it says nothing). */
  public byte[] encode(SortedMap<String, Entry> claims, Map<String, JsonNode> unknownMembers, Boot boot) {
    return encode(claims, unknownMembers, boot, new Digests());
  }

  private static final byte[] SHA256_PREFIX = "sha256:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  /** {@code "sha256:<64 hex digits>"}: the checksum's value has a fixed length, so the file's size is known before it is hashed. */
  private static final int CHECKSUM_VALUE_BYTES = 1 + SHA256_PREFIX.length + 64 + 1;
  private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private final byte[] kindBytes = jsonString(KIND);
  private final byte[] versionBytes = jsonString(CURRENT.toString());

  private byte[] jsonString(String value) {
    try {
      return json.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * As {@link #encode(SortedMap, Map, Boot)}, hashing only from the first claim that changed since the
   * last encode through {@code digests} (the same bytes as without it).
   *
   * <p>A commit runs on every Prepare and Unprepare, and the agent's heap is small: the file is written
   * once, into an array of its exact size (every part's length is known beforehand, the checksum's too),
   * and the hashed document is taken from that array (each claim's {@code "uid":<entry>} is the same
   * bytes in both), so a commit allocates little more than the file itself.
   */
  byte[] encode(SortedMap<String, Entry> claims, Map<String, JsonNode> unknownMembers, Boot boot, Digests digests) {
    try {
      // The members other than claims, by name; claims goes where its name sorts.
      SortedMap<String, byte[]> members = new TreeMap<>();
      for (Map.Entry<String, JsonNode> m : unknownMembers.entrySet()) {
        members.put(m.getKey(), json.writeValueAsBytes(canonical(m.getValue())));
      }
      if (!boot.id().isEmpty() || !boot.unconfirmed().isEmpty()) {
        members.put("boot", digests.bootBytes(boot, this));
      }
      members.put("kind", kindBytes);
      members.put("version", versionBytes);

      // The file: {"checksum":"sha256:<hex>",\n<member>,\n<member>...\n}\n with "claims":{\n"uid":<entry>,\n...}.
      int size = 1 + nameBytes("checksum") + CHECKSUM_VALUE_BYTES + 3;
      int headSize = 1 + nameBytes("claims") + 1;
      boolean afterClaims = false;
      for (Map.Entry<String, byte[]> m : members.entrySet()) {
        int member = nameBytes(m.getKey()) + m.getValue().length;
        size += 2 + member;
        if (m.getKey().compareTo("claims") < 0) {
          headSize += member + 1;
        } else {
          afterClaims = true;
        }
      }
      size += 2 + nameBytes("claims") + 2;
      int n = claims.size();
      for (Map.Entry<String, Entry> e : claims.entrySet()) {
        size += 2 + nameBytes(e.getKey()) + e.getValue().canonicalBytes().length;
      }
      if (n > 0) {
        size--; // no comma before the first claim
      }
      byte[] file = new byte[size];
      int[] claimStart = new int[n];
      int[] claimEnd = new int[n];
      int pos = 0;
      file[pos++] = '{';
      pos = putName(file, pos, "checksum");
      int checksumAt = pos;
      pos += CHECKSUM_VALUE_BYTES;
      // The head of the hashed document: {<members before claims>,"claims":{ (compact, as hashed).
      byte[] head = new byte[headSize];
      int h = 0;
      head[h++] = '{';
      boolean claimsDone = false;
      int[] tail = new int[2 * members.size()];
      int tails = 0;
      for (Map.Entry<String, byte[]> m : members.entrySet()) {
        if (!claimsDone && m.getKey().compareTo("claims") > 0) {
          pos = putClaims(file, pos, claims, claimStart, claimEnd);
          claimsDone = true;
        }
        file[pos++] = ',';
        file[pos++] = '\n';
        int from = pos;
        pos = putName(file, pos, m.getKey());
        System.arraycopy(m.getValue(), 0, file, pos, m.getValue().length);
        pos += m.getValue().length;
        if (!claimsDone) {
          System.arraycopy(file, from, head, h, pos - from);
          h += pos - from;
          head[h++] = ',';
        } else {
          tail[tails++] = from;
          tail[tails++] = pos;
        }
      }
      if (!claimsDone) {
        pos = putClaims(file, pos, claims, claimStart, claimEnd);
      }
      h = putName(head, h, "claims");
      head[h++] = '{';
      file[pos++] = '\n';
      file[pos++] = '}';
      file[pos++] = '\n';
      if (pos != size || h != headSize || afterClaims != (tails > 0)) {
        throw new IllegalStateException("checkpoint size miscounted: " + pos + " of " + size);
      }

      MessageDigest digest = digests.afterClaims(head, claims, file, claimStart, claimEnd);
      digest.update((byte) '}');
      for (int t = 0; t < tails; t += 2) {
        digest.update((byte) ',');
        digest.update(file, tail[t], tail[t + 1] - tail[t]);
      }
      digest.update((byte) '}');
      byte[] sum = digest.digest();
      file[checksumAt++] = '"';
      System.arraycopy(SHA256_PREFIX, 0, file, checksumAt, SHA256_PREFIX.length);
      checksumAt += SHA256_PREFIX.length;
      for (byte b : sum) {
        file[checksumAt++] = HEX[(b >> 4) & 0xf];
        file[checksumAt++] = HEX[b & 0xf];
      }
      file[checksumAt] = '"';
      return file;
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode the checkpoint", e);
    }
  }

  /** {@code "claims":{\n"uid":<entry>,\n...}} at {@code pos}, noting where each {@code "uid":<entry>} lies. */
  private static int putClaims(byte[] file, int pos, SortedMap<String, Entry> claims, int[] start, int[] end) {
    file[pos++] = ',';
    file[pos++] = '\n';
    pos = putName(file, pos, "claims");
    file[pos++] = '{';
    int k = 0;
    for (Map.Entry<String, Entry> e : claims.entrySet()) {
      if (k > 0) {
        file[pos++] = ',';
      }
      file[pos++] = '\n';
      start[k] = pos;
      pos = putName(file, pos, e.getKey());
      byte[] entry = e.getValue().canonicalBytes();
      System.arraycopy(entry, 0, file, pos, entry.length);
      pos += entry.length;
      end[k++] = pos;
    }
    file[pos++] = '}';
    return pos;
  }

  /**
   * Whether Jackson writes {@code name} as its own characters: printable ASCII other than the quote and
   * the backslash (JSON escapes control characters, {@code "} and {@code \\}; claim UIDs are RFC 4122 text).
   */
  private static boolean plain(String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  /** The length of {@code "name":} as {@link #putName} writes it. */
  private static int nameBytes(String name) {
    return (plain(name) ? name.length() : com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance().quoteAsUTF8(name).length) + 3;
  }

  /** {@code "name":} as Jackson writes a member name, at {@code pos}; returns the position after it. */
  private static int putName(byte[] out, int pos, String name) {
    out[pos++] = '"';
    if (plain(name)) {
      for (int i = 0; i < name.length(); i++) {
        out[pos++] = (byte) name.charAt(i);
      }
    } else {
      byte[] quoted = com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance().quoteAsUTF8(name);
      System.arraycopy(quoted, 0, out, pos, quoted.length);
      pos += quoted.length;
    }
    out[pos++] = '"';
    out[pos++] = ':';
    return pos;
  }

  /** The canonical encoding of {@code boot}'s member value. */
  private byte[] bootBytes(Boot boot) throws JsonProcessingException {
    ObjectNode b = NODES.objectNode();
    b.put("id", boot.id());
    ArrayNode unconfirmed = b.putArray("unconfirmed");
    boot.unconfirmed().forEach(unconfirmed::add);
    return json.writeValueAsBytes(canonical(b));
  }

  /**
   * The SHA-256 state after the claims of the last encode, so that the next one hashes only from its
   * first changed claim on: SHA-256 is sequential, a commit changes a few claims among many (a
   * checkpoint of 32 claims is ~33 KB, ~0.3 ms of hashing per commit with the agent's C1-only JIT), and
   * Prepare and Unprepare each commit. Keeps the head it was made for, the claims in order, and the
   * digest's state after every {@code stride}-th claim, at most about {@link #MAX_STATES} of them, so a
   * checkpoint of 100,000 claims keeps tens of states, not 100,000. Also keeps the encoding of the last
   * boot (it changes once per boot and when a claim is confirmed). One per {@link Checkpoint}, used under
   * its write lock; not thread-safe.
   */
  static final class Digests {
    static final int MAX_STATES = 64;

    private record State(int claims, MessageDigest digest) {}

    private byte[] head = new byte[0];
    /**
     * The UIDs and entries of the last encode, in order; {@link #count} of them are used (the rest are
     * null). Reused from commit to commit: safe, as every use of a Digests is under the Checkpoint's
     * write lock.
     */
    private String[] uids = new String[0];
    private Entry[] entries = new Entry[0];
    private int count;
    /** By number of claims hashed, ascending. */
    private final java.util.ArrayList<State> states = new java.util.ArrayList<>();
    private Boot boot;
    private byte[] bootBytes;

    /** {@code boot}'s member value, encoded again only when it changed. */
    byte[] bootBytes(Boot now, CheckpointCodec codec) throws JsonProcessingException {
      if (!now.equals(boot)) {
        bootBytes = codec.bootBytes(now);
        boot = now;
      }
      return bootBytes;
    }

    /**
     * A digest that has hashed {@code head} and then every claim of {@code claims}, in order, each as
     * {@code file[start[k], end[k])} with a comma between claims.
     */
    MessageDigest afterClaims(byte[] head, SortedMap<String, Entry> claims, byte[] file, int[] start, int[] end) {
      int n = claims.size();
      boolean sameHead = java.util.Arrays.equals(head, this.head);
      if (uids.length < n) {
        uids = java.util.Arrays.copyOf(uids, Math.max(n, 2 * uids.length));
        entries = java.util.Arrays.copyOf(entries, uids.length);
      }
      // Entries are immutable and made once per recorded claim: the same object is the same bytes.
      int same = 0;
      boolean unchanged = sameHead;
      int k = 0;
      for (Map.Entry<String, Entry> e : claims.entrySet()) {
        if (unchanged && k < count && e.getValue() == entries[k] && e.getKey().equals(uids[k])) {
          same++;
        } else {
          unchanged = false;
        }
        uids[k] = e.getKey();
        entries[k++] = e.getValue();
      }
      java.util.Arrays.fill(uids, n, Math.max(n, count), null);
      java.util.Arrays.fill(entries, n, Math.max(n, count), null);
      count = n;
      while (!states.isEmpty() && (same == 0 || states.get(states.size() - 1).claims() > same)) {
        states.remove(states.size() - 1);
      }
      MessageDigest d;
      int from;
      if (states.isEmpty()) {
        d = sha256();
        d.update(head);
        from = 0;
      } else {
        State last = states.get(states.size() - 1);
        d = copy(last.digest());
        from = d == null ? 0 : last.claims();
        if (d == null) {
          states.clear();
          d = sha256();
          d.update(head);
        }
      }
      int stride = Math.max(1, (n + MAX_STATES - 1) / MAX_STATES);
      for (k = from; k < n; k++) {
        if (k > 0) {
          d.update((byte) ',');
        }
        d.update(file, start[k], end[k] - start[k]);
        if ((k + 1) % stride == 0 && k + 1 < n) {
          MessageDigest saved = copy(d);
          if (saved != null) {
            states.add(new State(k + 1, saved));
          }
        }
      }
      if (states.size() > 2 * MAX_STATES) {
        // Strides grew with the checkpoint: keep every other state.
        for (int i = states.size() - 1; i >= 0; i -= 2) {
          states.remove(i);
        }
      }
      this.head = head;
      return d;
    }

    /** A copy of {@code d}'s state; null when the provider cannot copy one (then nothing is kept). */
    private static MessageDigest copy(MessageDigest d) {
      try {
        return (MessageDigest) d.clone();
      } catch (CloneNotSupportedException e) {
        return null;
      }
    }
  }

  /** Reads a checkpoint file; anything unusable is a {@link CorruptCheckpointException} naming {@code file}. */
  public Content decode(java.nio.file.Path file, byte[] bytes) throws CorruptCheckpointException {
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
      return decodeFormat1(file, bytes);
    }
    CheckpointVersion v = version == null || !version.isTextual() ? null : CheckpointVersion.parse(version.textValue()).orElse(null);
    if (v == null) {
      throw new CorruptCheckpointException(file, "unknown format version " + describe(version)
          + ", expected " + CURRENT, null);
    }
    if (!CURRENT.reads(v)) {
      throw new CorruptCheckpointException(file, "written in format " + v + ", which this version of nodeatlas cannot read "
          + "(it reads v" + CURRENT.major() + ".x); run a nodeatlas version that reads " + v, null);
    }
    ObjectNode document = ((ObjectNode) root).deepCopy();
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
    JsonNode claims = document.get("claims");
    if (claims == null || !claims.isObject()) {
      throw new CorruptCheckpointException(file, "no claims object", null);
    }
    SortedMap<String, Entry> byUid = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = claims.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      byUid.put(e.getKey(), entry(file, e.getKey(), e.getValue()));
    }
    SortedMap<String, JsonNode> unknown = new TreeMap<>();
    document.fields().forEachRemaining(m -> {
      if (!KNOWN_MEMBERS.contains(m.getKey())) {
        unknown.put(m.getKey(), canonical(m.getValue()));
      }
    });
    return new Content(v, byUid, unknown, boot(file, document.get("boot"), byUid));
  }

  private static Boot boot(java.nio.file.Path file, JsonNode node, SortedMap<String, Entry> claims)
      throws CorruptCheckpointException {
    if (node == null) {
      return Boot.UNKNOWN;
    }
    JsonNode id = node.get("id");
    JsonNode unconfirmed = node.get("unconfirmed");
    if (!node.isObject() || id == null || !id.isTextual() || id.textValue().length() > MAX_BOOT_ID_CHARS
        || unconfirmed == null || !unconfirmed.isArray()) {
      throw new CorruptCheckpointException(file, "boot is not {\"id\": <boot ID>, \"unconfirmed\": [<claim UID>...]}", null);
    }
    java.util.SortedSet<String> uids = new java.util.TreeSet<>();
    for (JsonNode u : unconfirmed) {
      // A UID of a claim the file no longer records is dropped: it can only have come from an older writer.
      if (u.isTextual() && claims.containsKey(u.textValue())) {
        uids.add(u.textValue());
      } else if (!u.isTextual()) {
        throw new CorruptCheckpointException(file, "boot.unconfirmed holds " + describe(u) + ", not a claim UID", null);
      }
    }
    return new Boot(id.textValue(), uids);
  }

  private Entry entry(java.nio.file.Path file, String uid, JsonNode node) throws CorruptCheckpointException {
    if (!node.isObject()) {
      throw new CorruptCheckpointException(file, "the entry of claim UID " + uid + " is not an object", null);
    }
    PreparedClaim claim;
    try {
      claim = json.treeToValue(node, PreparedClaim.class);
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(file, "invalid entry of claim UID " + uid + ": " + firstLine(e.getMessage()), e);
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
        throw new CorruptCheckpointException(file, "claim UID " + uid + ", device " + d.device() + ": " + bad, null);
      }
    }
    return entry(claim, (ObjectNode) canonical(node));
  }

  private Content decodeFormat1(java.nio.file.Path file, byte[] bytes) throws CorruptCheckpointException {
    Format1 parsed;
    try {
      parsed = format1.readValue(bytes, Format1.class);
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(file, "not a readable checkpoint: " + firstLine(e.getMessage()), e);
    }
    if (parsed.claims() == null) {
      throw new CorruptCheckpointException(file, "no claims list", null);
    }
    String expected;
    try {
      expected = "sha256:" + HexFormat.of().formatHex(sha256().digest(format1.writeValueAsBytes(parsed.claims())));
    } catch (JsonProcessingException | RuntimeException e) {
      throw new CorruptCheckpointException(file, "invalid claim entry: " + e.getMessage(), e);
    }
    if (!expected.equals(parsed.checksum())) {
      throw new CorruptCheckpointException(file,
          "checksum mismatch: file says " + parsed.checksum() + ", content hashes to " + expected, null);
    }
    SortedMap<String, Entry> byUid = new TreeMap<>();
    for (PreparedClaim c : parsed.claims()) {
      if (c == null || c.claim() == null || c.devices() == null) {
        throw new CorruptCheckpointException(file, "incomplete claim entry", null);
      }
      if (byUid.put(c.claim().uid(), entry(c)) != null) {
        throw new CorruptCheckpointException(file, "claim UID " + c.claim().uid() + " appears twice", null);
      }
    }
    return new Content(new CheckpointVersion(1, 0), byUid, new TreeMap<>());
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
        if (e.getValue() == null || e.getValue().length() > 64 || new java.math.BigDecimal(e.getValue()).signum() < 0) {
          return "consumedCapacity " + e.getKey() + " is not a decimal amount";
        }
      } catch (NumberFormatException bad) {
        return "consumedCapacity " + e.getKey() + " is not a decimal amount";
      }
    }
    return null;
  }

  /** Format 1's layout. */
  record Format1(String kind, int version, String checksum, List<PreparedClaim> claims) {}

  /** {@code sha256:<hex>} of the canonical encoding of {@code document}. */
  String checksum(ObjectNode document) {
    try {
      return "sha256:" + HexFormat.of().formatHex(sha256().digest(json.writeValueAsBytes(canonical(document))));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the checkpoint", e);
    }
  }

  /**
   * {@code node} with object members sorted at every level and numbers in their shortest exact form:
   * {@code node} itself when it is so already (a claim's tree as Jackson makes it from the record, every
   * Prepare), else a copy. Trees are not changed once made, so sharing one is safe.
   */
  static JsonNode canonical(JsonNode node) {
    return isCanonical(node) ? node : canonicalCopy(node);
  }

  /** Whether every object of {@code node} has its members in name order and it holds no non-integral number. */
  private static boolean isCanonical(JsonNode node) {
    if (node.isObject()) {
      String previous = null;
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (previous != null && previous.compareTo(e.getKey()) >= 0 || !isCanonical(e.getValue())) {
          return false;
        }
        previous = e.getKey();
      }
      return true;
    }
    if (node.isArray()) {
      for (JsonNode e : node) {
        if (!isCanonical(e)) {
          return false;
        }
      }
      return true;
    }
    return !node.isNumber() || node.isIntegralNumber();
  }

  private static JsonNode canonicalCopy(JsonNode node) {
    if (node.isObject()) {
      SortedMap<String, JsonNode> sorted = new TreeMap<>();
      node.fields().forEachRemaining(e -> sorted.put(e.getKey(), canonical(e.getValue())));
      ObjectNode out = NODES.objectNode();
      sorted.forEach(out::set);
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = NODES.arrayNode(node.size());
      node.forEach(e -> out.add(canonical(e)));
      return out;
    }
    if (node.isNumber() && !node.isIntegralNumber()) {
      return NODES.numberNode(node.decimalValue().stripTrailingZeros());
    }
    return node;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-256", e);
    }
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
