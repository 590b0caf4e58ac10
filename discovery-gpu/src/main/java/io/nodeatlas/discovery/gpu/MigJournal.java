package io.nodeatlas.discovery.gpu;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The MIG instances the gpu family created or is creating, kept in a file of its own
 * ({@code <state dir>/gpu-mig-instances.json}) so that a crash between creating an instance and the
 * agent's checkpoint commit leaves a trace: at start what no live claim records is destroyed, and what
 * is not in here is never touched. Written whole to a temporary file, synced and renamed.
 */
final class MigJournal {

  /** One instance: its claim, device, GPU, profile and placement; {@code gi}/{@code ci} -1 until created. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Entry(String claimUid, String device, String gpuUuid, int gpuMinor, int profileId, int start, int size,
      int gi, int ci, List<Integer> before) {
    Entry {
      Objects.requireNonNull(claimUid, "claimUid");
      Objects.requireNonNull(device, "device");
      Objects.requireNonNull(gpuUuid, "gpuUuid");
      before = before == null ? List.of() : List.copyOf(before);
    }

    Entry withGi(int id) {
      return new Entry(claimUid, device, gpuUuid, gpuMinor, profileId, start, size, id, ci, before);
    }

    Entry withCi(int id) {
      return new Entry(claimUid, device, gpuUuid, gpuMinor, profileId, start, size, gi, id, before);
    }

    /** The same instance: same claim, device, GPU and placement. */
    boolean sameSlot(Entry o) {
      return claimUid.equals(o.claimUid) && device.equals(o.device) && gpuUuid.equals(o.gpuUuid)
          && profileId == o.profileId && start == o.start && size == o.size;
    }
  }

  record Content(int version, List<Entry> instances) {
    Content {
      instances = instances == null ? List.of() : List.copyOf(instances);
    }
  }

  static final String FILE = "gpu-mig-instances.json";
  private static final int MAX_BYTES = 1 << 20;
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  private final Path file;

  MigJournal(Path dir) {
    this.file = dir.resolve(FILE);
  }

  Path file() {
    return file;
  }

  /** The entries; none when the file does not exist. A file that cannot be read is an error (never overwritten blindly). */
  synchronized List<Entry> read() throws IOException {
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) > MAX_BYTES) {
      throw new IOException(file + " is not a regular file of at most " + MAX_BYTES + " bytes");
    }
    try {
      Content c = JSON.readValue(Files.readAllBytes(file), Content.class);
      if (c.version() != 1) {
        throw new IOException(file + ": version " + c.version() + " is not 1");
      }
      return c.instances();
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw new IOException(file + " is not a journal of MIG instances: " + e.getOriginalMessage(), e);
    }
  }

  /** Adds or replaces (same claim, device and placement) an entry; durable on return. */
  synchronized void put(Entry e) throws IOException {
    List<Entry> all = new ArrayList<>(read());
    all.removeIf(x -> x.sameSlot(e));
    all.add(e);
    write(all);
  }

  /** Drops an entry; durable on return. */
  synchronized void remove(Entry e) throws IOException {
    List<Entry> all = new ArrayList<>(read());
    if (all.removeIf(x -> x.sameSlot(e))) {
      write(all);
    }
  }

  private void write(List<Entry> all) throws IOException {
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling(FILE + ".tmp");
    byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(new Content(1, all));
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException ignored) {
      // A directory that cannot be opened for sync (some file systems): the rename is still atomic.
    }
  }
}
