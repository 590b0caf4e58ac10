package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.discovery.files.AtomicFiles;
import io.nodeatlas.discovery.model.Names;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The checkpoint's journal (format v3.0): the changes made since the snapshot that names it, one
 * checksummed record per line, so that a Prepare writes and hashes only its own claim. Lines are
 * appended in groups, one {@code fdatasync} per group; a torn tail (a power cut during an append that
 * was never acknowledged) ends the journal and is cut off before the next append.
 *
 * <p>A line is {@code {"checksum":"sha256:<hex>",<members>}\n}, the checksum being that of {@code
 * {<members>}}, canonical ({@link CanonicalJson}). The first line names the journal's kind, version and
 * generation; every other line is one change: {@code put} (a claim's entry), {@code remove}, {@code
 * confirm} (a claim prepared again in this boot) or {@code boot} (a new boot: every claim recorded so far
 * becomes unconfirmed).
 */
final class CheckpointJournal implements Closeable {

  static final String KIND = Names.ours("checkpoint-journal");
  /** Longest line read: a claim entry of many devices is tens of KB. */
  static final int MAX_LINE_BYTES = 4 << 20;

  private final Path file;
  private final long generation;
  private final FileChannel channel;
  /** Bytes of whole, durable lines: an append that fails is cut back to here. */
  private long length;

  private CheckpointJournal(Path file, long generation, FileChannel channel, long length) {
    this.file = file;
    this.generation = generation;
    this.channel = channel;
    this.length = length;
  }

  /** Where the journal of {@code generation} of the checkpoint {@code checkpoint} lives: beside it. */
  static Path path(Path checkpoint, long generation) {
    return checkpoint.resolveSibling(checkpoint.getFileName() + ".journal-" + generation);
  }

  /** Whether {@code name} is a journal of the checkpoint named {@code checkpointName}. */
  static boolean isJournal(String checkpointName, String name) {
    String prefix = checkpointName + ".journal-";
    return name.startsWith(prefix) && name.length() > prefix.length()
        && name.substring(prefix.length()).chars().allMatch(c -> c >= '0' && c <= '9');
  }

  /** Creates the journal of {@code generation} with its first line, durable (file and directory entry). */
  static CheckpointJournal create(Path checkpoint, long generation, ObjectMapper json) throws IOException {
    Path file = path(checkpoint, generation);
    FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(AtomicFiles.OWNER_ONLY));
    try {
      byte[] header = line(json, header(json, generation));
      write(ch, List.of(header));
      ch.force(true);
      AtomicFiles.syncDirectory(file.toAbsolutePath().getParent());
      return new CheckpointJournal(file, generation, ch, header.length);
    } catch (IOException | RuntimeException e) {
      ch.close();
      AtomicFiles.delete(file);
      throw e;
    }
  }

  /** Opens a journal read before for appending after its {@code length} whole bytes; a torn tail is cut off. */
  static CheckpointJournal reopen(Path file, long generation, long length) throws IOException {
    FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    try {
      if (ch.size() != length) {
        ch.truncate(length);
        ch.force(true);
      }
      ch.position(length);
      return new CheckpointJournal(file, generation, ch, length);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  Path file() {
    return file;
  }

  long generation() {
    return generation;
  }

  /** Bytes of the journal, its first line included. */
  long length() {
    return length;
  }

  /**
   * Appends {@code lines} in one write and makes them durable with one {@code fdatasync}. On failure the
   * journal is cut back to what it held before; when even that fails, the exception says so ({@link
   * Torn}) and the journal must not be appended to again.
   */
  void append(List<byte[]> lines) throws IOException {
    try {
      write(channel, lines);
      channel.force(false);
    } catch (IOException | RuntimeException e) {
      try {
        channel.truncate(length);
        channel.position(length);
        channel.force(false);
      } catch (IOException | RuntimeException again) {
        Torn torn = new Torn(file, e);
        torn.addSuppressed(again);
        throw torn;
      }
      throw e instanceof IOException io ? io : new IOException(e.toString(), e);
    }
    for (byte[] l : lines) {
      length += l.length;
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  /** An append failed and the journal could not be cut back: it may hold changes the caller was told failed. */
  static final class Torn extends IOException {
    private static final long serialVersionUID = 1L;

    Torn(Path file, Throwable cause) {
      super("cannot append to the checkpoint journal " + file + ": " + cause.getMessage(), cause);
    }
  }

  private static void write(FileChannel ch, List<byte[]> lines) throws IOException {
    ByteBuffer[] buffers = new ByteBuffer[lines.size()];
    long total = 0;
    for (int i = 0; i < buffers.length; i++) {
      buffers[i] = ByteBuffer.wrap(lines.get(i));
      total += buffers[i].remaining();
    }
    while (total > 0) {
      total -= ch.write(buffers);
    }
  }

  // ---- Lines ----

  /** A line's typed content: the first line has kind, version and generation; a change has op and uid, entry or boot. */
  record Line(String kind, String version, Long generation, String op, String uid, JsonNode entry, String boot) {}

  private static byte[] header(ObjectMapper json, long generation) {
    ObjectNode h = CanonicalJson.NODES.objectNode();
    h.put("generation", generation);
    h.put("kind", KIND);
    h.put("version", CheckpointCodec.JOURNALED.toString());
    return CanonicalJson.bytes(json, h);
  }

  /** The line of a {@code put}: {@code {"entry":<entry>,"op":"put","uid":<uid>}}. */
  static byte[] put(ObjectMapper json, CheckpointCodec.Entry entry) {
    byte[] value = entry.canonicalBytes();
    byte[] rest = bytes(json, ",\"op\":\"put\",\"uid\":", entry.claim().claim().uid(), "}");
    byte[] canonical = new byte[9 + value.length + rest.length];
    System.arraycopy("{\"entry\":".getBytes(StandardCharsets.US_ASCII), 0, canonical, 0, 9);
    System.arraycopy(value, 0, canonical, 9, value.length);
    System.arraycopy(rest, 0, canonical, 9 + value.length, rest.length);
    return line(json, canonical);
  }

  /** The line of a {@code remove} or {@code confirm} of {@code uid}. */
  static byte[] of(ObjectMapper json, String op, String uid) {
    return line(json, bytes(json, "{\"op\":\"" + op + "\",\"uid\":", uid, "}"));
  }

  /** The line of a new boot. */
  static byte[] boot(ObjectMapper json, String bootId) {
    return line(json, bytes(json, "{\"boot\":", bootId, ",\"op\":\"boot\"}"));
  }

  /** {@code before}, {@code text} as a JSON string, {@code after}. */
  private static byte[] bytes(ObjectMapper json, String before, String text, String after) {
    try {
      byte[] a = before.getBytes(StandardCharsets.US_ASCII);
      byte[] t = json.writeValueAsBytes(text);
      byte[] b = after.getBytes(StandardCharsets.US_ASCII);
      byte[] out = new byte[a.length + t.length + b.length];
      System.arraycopy(a, 0, out, 0, a.length);
      System.arraycopy(t, 0, out, a.length, t.length);
      System.arraycopy(b, 0, out, a.length + t.length, b.length);
      return out;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code {"checksum":"sha256:<hex>",} + the members of {@code canonical} + a newline. */
  private static byte[] line(ObjectMapper json, byte[] canonical) {
    MessageDigest d = CanonicalJson.sha256();
    byte[] sum = ("{\"checksum\":\"" + CanonicalJson.hex(d.digest(canonical)) + "\",").getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[sum.length + canonical.length];
    System.arraycopy(sum, 0, out, 0, sum.length);
    System.arraycopy(canonical, 1, out, sum.length, canonical.length - 1);
    out[out.length - 1] = '\n';
    return out;
  }

  /** What reading a journal found: its changes in order, the bytes of whole lines, and lines dropped after damage. */
  record Read(List<Line> changes, long length, int dropped) {}

  /**
   * The changes of the journal in {@code bytes}, whose first line must name {@code generation}. The first
   * torn or damaged line ends the journal: it and every line after it are counted as dropped (an append
   * is acknowledged only once whole and durable, so they were never acknowledged... unless the disk
   * damaged an older line, which is then reported by the count).
   */
  static Read read(ObjectMapper json, Path file, byte[] bytes, long generation) throws CorruptCheckpointException {
    List<Line> changes = new ArrayList<>();
    int start = 0;
    boolean first = true;
    while (start < bytes.length) {
      int end = indexOf(bytes, (byte) '\n', start);
      Line line = end < 0 || end - start > MAX_LINE_BYTES ? null : parse(json, bytes, start, end);
      if (first) {
        if (line == null || !KIND.equals(line.kind()) || line.generation() == null || line.generation() != generation) {
          throw new CorruptCheckpointException(file, "the journal " + path(file, generation).getFileName()
              + " does not start with the first line of generation " + generation, null);
        }
        if (!CheckpointCodec.JOURNALED.toString().equals(line.version())) {
          throw new CorruptCheckpointException(file, "its journal is of format " + line.version() + ", which this version "
              + "of nodeatlas cannot read", null);
        }
        first = false;
      } else if (line == null) {
        return new Read(changes, start, countLines(bytes, start));
      } else {
        changes.add(line);
      }
      start = end + 1;
    }
    if (first) {
      throw new CorruptCheckpointException(file, "its journal " + path(file, generation).getFileName() + " is empty", null);
    }
    return new Read(changes, bytes.length, 0);
  }

  /** The line {@code bytes[start, end)} if whole and its checksum matches; null otherwise. */
  private static Line parse(ObjectMapper json, byte[] bytes, int start, int end) {
    try {
      JsonNode node = json.readTree(bytes, start, end - start);
      if (node == null || !node.isObject()) {
        return null;
      }
      ObjectNode members = ((ObjectNode) node).deepCopy();
      JsonNode stated = members.remove("checksum");
      if (stated == null || !CanonicalJson.sha256(CanonicalJson.bytes(json, members)).equals(stated.asText())) {
        return null;
      }
      return json.treeToValue(members, Line.class);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static int countLines(byte[] bytes, int from) {
    int n = 0;
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == '\n' || i == bytes.length - 1) {
        n++;
      }
    }
    return n;
  }
}
