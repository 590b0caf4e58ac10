package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The prepared claims of this node, kept in one JSON file so that a restart (or {@code kill -9})
 * loses nothing and Unprepare works from the file alone (the kubelet sends only namespace, name and
 * UID, dra-api.md §1.3).
 *
 * <p>Every change is durable when {@link #put} or {@link #remove} returns: the whole file is written
 * to a temporary file, fsynced, renamed over the old one and the directory fsynced. Concurrent
 * changes are committed together (whoever writes next writes everyone's changes), so hundreds of
 * parallel Prepare calls cost a handful of writes, not hundreds. A SHA-256 over the claims detects a
 * damaged file, which is reported and never overwritten.
 *
 * <p>The file is one claim per line, each claim's JSON encoded once when it is recorded (not on every
 * write), so a write with hundreds of claims is a concatenation, one SHA-256 and the fsyncs. Which
 * claim holds which device is kept as an index, so the "is this device free?" check of Prepare does not
 * walk every claim.
 */
public final class Checkpoint {

  static final String KIND = "nodeatlas.io/checkpoint";
  static final int VERSION = 1;

  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .build();

  private final Path file;
  private final Object stateLock = new Object();
  private final ReentrantLock writeLock = new ReentrantLock();
  private final Map<String, PreparedClaim> claims;
  /** The compact JSON of each claim in {@link #claims}, as it goes into the file and the checksum. */
  private final Map<String, byte[]> encoded = new TreeMap<>();
  /** Device name → UID of a claim holding it (the claim that recorded it last, when several do). */
  private final Map<String, String> holders = new java.util.HashMap<>();
  private long changeCount;
  private long durableCount;

  private Checkpoint(Path file, Map<String, PreparedClaim> claims) {
    this.file = file;
    this.claims = claims;
    claims.values().forEach(this::index);
  }

  private void index(PreparedClaim c) {
    encoded.put(c.claim().uid(), encodeClaim(c));
    c.devices().forEach(d -> holders.put(d.device(), c.claim().uid()));
  }

  private void unindex(PreparedClaim c) {
    encoded.remove(c.claim().uid());
    for (PreparedDevice d : c.devices()) {
      if (c.claim().uid().equals(holders.get(d.device()))) {
        holders.remove(d.device());
        // Another claim may hold the same device (admin access): let it be found again.
        for (PreparedClaim other : claims.values()) {
          if (other.devices().stream().anyMatch(o -> o.device().equals(d.device()))) {
            holders.put(d.device(), other.claim().uid());
            break;
          }
        }
      }
    }
  }

  /** Opens the checkpoint at {@code file}; a missing file is an empty checkpoint. */
  public static Checkpoint open(Path file) throws IOException, CorruptCheckpointException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return new Checkpoint(file, new TreeMap<>());
    }
    return new Checkpoint(file, decode(file, bytes));
  }

  static Map<String, PreparedClaim> decode(Path file, byte[] bytes) throws CorruptCheckpointException {
    FileFormat parsed;
    try {
      parsed = JSON.readValue(bytes, FileFormat.class);
    } catch (IOException | RuntimeException e) {
      throw new CorruptCheckpointException(file, "not a readable checkpoint: " + firstLine(e.getMessage()), e);
    }
    if (!KIND.equals(parsed.kind()) || parsed.version() != VERSION) {
      throw new CorruptCheckpointException(file,
          "unknown format " + parsed.kind() + " version " + parsed.version() + ", expected " + KIND + " version " + VERSION,
          null);
    }
    if (parsed.claims() == null) {
      throw new CorruptCheckpointException(file, "no claims list", null);
    }
    String expected;
    try {
      expected = checksum(parsed.claims());
    } catch (RuntimeException e) {
      throw new CorruptCheckpointException(file, "invalid claim entry: " + e.getMessage(), e);
    }
    if (!expected.equals(parsed.checksum())) {
      throw new CorruptCheckpointException(file,
          "checksum mismatch: file says " + parsed.checksum() + ", content hashes to " + expected, null);
    }
    Map<String, PreparedClaim> byUid = new TreeMap<>();
    for (PreparedClaim c : parsed.claims()) {
      if (c == null || c.claim() == null || c.devices() == null) {
        throw new CorruptCheckpointException(file, "incomplete claim entry", null);
      }
      if (byUid.put(c.claim().uid(), c) != null) {
        throw new CorruptCheckpointException(file, "claim UID " + c.claim().uid() + " appears twice", null);
      }
    }
    return byUid;
  }

  public Path file() {
    return file;
  }

  public Optional<PreparedClaim> get(String uid) {
    synchronized (stateLock) {
      return Optional.ofNullable(claims.get(uid));
    }
  }

  /** A recorded claim other than {@code exceptUid} that holds {@code device}. */
  public Optional<ClaimRef> holderOf(String device, String exceptUid) {
    synchronized (stateLock) {
      String uid = holders.get(device);
      if (uid == null) {
        return Optional.empty();
      }
      if (!uid.equals(exceptUid)) {
        return Optional.of(claims.get(uid).claim());
      }
      // The index names exceptUid; only the rare device held by two claims needs the walk.
      for (PreparedClaim c : claims.values()) {
        if (!c.claim().uid().equals(exceptUid) && c.devices().stream().anyMatch(d -> d.device().equals(device))) {
          return Optional.of(c.claim());
        }
      }
      return Optional.empty();
    }
  }

  public Collection<PreparedClaim> all() {
    synchronized (stateLock) {
      return List.copyOf(claims.values());
    }
  }

  /** Records a prepared claim; durable on return. */
  public void put(PreparedClaim claim) throws IOException {
    long change;
    synchronized (stateLock) {
      PreparedClaim old = claims.put(claim.claim().uid(), claim);
      if (old != null) {
        unindex(old);
      }
      index(claim);
      change = ++changeCount;
    }
    awaitDurable(change);
  }

  /** Forgets a claim; durable on return. Removing an unknown claim writes nothing. */
  public void remove(String uid) throws IOException {
    long change;
    synchronized (stateLock) {
      PreparedClaim old = claims.remove(uid);
      if (old == null) {
        return;
      }
      unindex(old);
      change = ++changeCount;
    }
    awaitDurable(change);
  }

  private void awaitDurable(long change) throws IOException {
    writeLock.lock();
    try {
      if (durableCount >= change) {
        return;
      }
      List<byte[]> snapshot;
      long snapshotCount;
      synchronized (stateLock) {
        snapshot = new ArrayList<>(encoded.values());
        snapshotCount = changeCount;
      }
      write(assemble(snapshot));
      durableCount = snapshotCount;
    } finally {
      writeLock.unlock();
    }
  }

  private void write(byte[] bytes) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
    // The rename is only durable once the directory entry is; a crash before that could bring back the old file.
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException ignored) {
      // Some file systems do not allow opening a directory; the rename itself is still atomic.
    }
  }

  /** The file for {@code snapshot} (in UID order, as the checkpoint keeps them). */
  static byte[] encode(List<PreparedClaim> snapshot) {
    return assemble(snapshot.stream().map(Checkpoint::encodeClaim).toList());
  }

  private static byte[] encodeClaim(PreparedClaim claim) {
    try {
      return JSON.writeValueAsBytes(claim);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode claim " + claim.claim(), e);
    }
  }

  /**
   * The file from the claims' compact JSON: the fields of {@link FileFormat} in alphabetical order, one
   * claim per line. The checksum covers {@code [claim,claim,...]} exactly as {@link #checksum} encodes
   * the list, so the reader (which re-encodes what it parsed) gets the same hash.
   */
  private static byte[] assemble(List<byte[]> claimJson) {
    MessageDigest sha = sha256();
    sha.update((byte) '[');
    int size = 0;
    for (int i = 0; i < claimJson.size(); i++) {
      if (i > 0) {
        sha.update((byte) ',');
      }
      sha.update(claimJson.get(i));
      size += claimJson.get(i).length + 6;
    }
    sha.update((byte) ']');
    String head = "{\n  \"checksum\" : \"sha256:" + HexFormat.of().formatHex(sha.digest()) + "\",\n  \"claims\" : [";
    String tail = (claimJson.isEmpty() ? "" : "\n  ") + "],\n  \"kind\" : \"" + KIND + "\",\n  \"version\" : " + VERSION + "\n}\n";
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(size + 256);
    out.writeBytes(head.getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < claimJson.size(); i++) {
      out.writeBytes((i == 0 ? "\n    " : ",\n    ").getBytes(StandardCharsets.UTF_8));
      out.writeBytes(claimJson.get(i));
    }
    out.writeBytes(tail.getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-256", e);
    }
  }

  static String checksum(List<PreparedClaim> claims) {
    try {
      byte[] canonical = JSON.writeValueAsBytes(claims);
      return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot hash checkpoint", e);
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unknown error";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** The file's layout; field order is alphabetical so the bytes are stable. */
  record FileFormat(
      @JsonProperty(value = "kind", required = true) String kind,
      @JsonProperty(value = "version", required = true) int version,
      @JsonProperty(value = "checksum", required = true) String checksum,
      @JsonProperty(value = "claims", required = true) List<PreparedClaim> claims) {}
}
