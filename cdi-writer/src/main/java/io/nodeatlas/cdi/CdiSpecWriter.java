package io.nodeatlas.cdi;

import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.CdiSpecCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes CDI spec files so that a runtime never sees a partial or invalid one (shared/reference/cdi.md
 * §3.6): validate first (content and conflicts with the directory's other files), write a temporary
 * file <em>in the target directory</em> whose name starts with {@code .} and ends in {@code .tmp} (never
 * scanned), fsync it, make it 0644, rename it over the target, fsync the directory. Renaming inside a
 * watched directory is what fires the rename event that refreshes containerd's and CRI-O's caches; an
 * unchanged spec is not rewritten, so they do not rescan for nothing.
 *
 * <p>Stable public API (used by the agent):
 * <ul>
 *   <li>{@link #write(Path, CdiSpecFile)}: one file, atomically; {@link Outcome#UNCHANGED} when the bytes
 *       are already there;</li>
 *   <li>{@link #remove(Path, String)}: one file (e.g. a claim's spec on unprepare);</li>
 *   <li>{@link #reconcile(Path, Collection, SpecOwnership)}: make the directory hold exactly the wanted
 *       files among those we own: write the wanted ones, remove our stale ones and our crashed writers'
 *       temporary files, never touch anyone else's.</li>
 * </ul>
 * Thread-safe as long as two writers do not write the same file name at once. The conflict check
 * keeps the directory's other files as last read ({@link SpecFileIndex}: re-read only when their stat
 * changed, and this writer's own files are known without reading them back), so a write costs a
 * directory listing and a stat per file rather than a parse and validation of every file; use one
 * writer per process for that to pay off.
 */
public final class CdiSpecWriter {

  /** Suffix of temporary files; with the leading dot it keeps them invisible to runtimes. */
  public static final String TEMP_SUFFIX = ".tmp";

  private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-r--r--");

  /** What happened to one file. */
  public enum Outcome { WRITTEN, UNCHANGED, REMOVED }

  /** One file's outcome. */
  public record Change(Path file, Outcome outcome) {}

  private final CdiSpecCodec codec;
  private final CdiValidator validator;
  private final SpecFileIndex index = new SpecFileIndex();

  public CdiSpecWriter() {
    this(new CdiSpecCodec());
  }

  public CdiSpecWriter(CdiSpecCodec codec) {
    this.codec = codec;
    this.validator = new CdiValidator(codec);
  }

  /** The text {@code file} is written as. */
  public String renderText(CdiSpecFile file) {
    return codec.write(file.spec(), file.format());
  }

  /** The bytes {@code file} is written as. */
  public byte[] render(CdiSpecFile file) {
    return codec.write(file.spec(), file.format()).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Validates {@code file} (content and conflicts with the other valid files of {@code dir}) and writes
   * it atomically, creating {@code dir} when missing. Throws {@link CdiValidationException} and writes
   * nothing when the spec is invalid.
   */
  public Change write(Path dir, CdiSpecFile file) throws IOException, CdiValidationException {
    List<CdiProblem> problems = new ArrayList<>(validator.validate(file.spec(), file.fileName()));
    if (problems.isEmpty()) {
      problems.addAll(validator.conflicts(dir, Map.of(file.fileName(), file.spec()), Set.of(), index));
    }
    if (!problems.isEmpty()) {
      throw new CdiValidationException(problems);
    }
    return writeValidated(dir, file);
  }

  /** Removes {@code dir/fileName} if present (durably); true when it was there. */
  public boolean remove(Path dir, String fileName) throws IOException {
    Path target = dir.resolve(fileName);
    if (!target.getParent().equals(dir) || fileName.isEmpty()) {
      throw new IllegalArgumentException("not a plain file name: " + fileName);
    }
    boolean removed = Files.deleteIfExists(target);
    index.forget(dir, fileName);
    if (removed) {
      fsyncDirectory(dir);
    }
    return removed;
  }

  /**
   * Makes {@code dir} hold exactly {@code wanted} among the files {@code ownership} owns. Everything is
   * validated before anything changes: if one wanted spec is invalid or conflicts with a file we do not
   * own (or with another wanted spec), nothing is written or removed. Returns the changes in order.
   */
  public List<Change> reconcile(Path dir, Collection<CdiSpecFile> wanted, SpecOwnership ownership)
      throws IOException, CdiValidationException {
    Map<String, CdiSpec> byName = new LinkedHashMap<>();
    List<CdiProblem> problems = new ArrayList<>();
    for (CdiSpecFile f : wanted) {
      if (byName.put(f.fileName(), f.spec()) != null) {
        problems.add(new CdiProblem(f.fileName(), null, CdiRule.FILE_NAME, "two specs for the same file name"));
      }
      problems.addAll(validator.validate(f.spec(), f.fileName()));
    }
    List<String> stale = staleFiles(dir, byName.keySet(), ownership);
    if (problems.isEmpty()) {
      problems.addAll(validator.conflicts(dir, byName, new HashSet<>(stale), index));
    }
    if (!problems.isEmpty()) {
      throw new CdiValidationException(problems);
    }
    List<Change> changes = new ArrayList<>();
    for (CdiSpecFile f : wanted) {
      changes.add(writeValidated(dir, f));
    }
    for (String name : stale) {
      if (remove(dir, name)) {
        changes.add(new Change(dir.resolve(name), Outcome.REMOVED));
      }
    }
    for (String name : temporaryFiles(dir, ownership)) {
      Files.deleteIfExists(dir.resolve(name));
    }
    return changes;
  }

  /** Our files in {@code dir} that are not {@code keep}: owned by name and by content. */
  public List<String> staleFiles(Path dir, Set<String> keep, SpecOwnership ownership) throws IOException {
    List<String> out = new ArrayList<>();
    for (Path p : CdiValidator.specFiles(dir)) {
      String name = p.getFileName().toString();
      if (keep.contains(name) || !ownership.ownsName(name)) {
        continue;
      }
      CdiValidator.LoadedFile loaded = validator.load(p);
      // An unreadable file with our prefix is not proven ours: leave it (and its problem) to a human.
      if (loaded.spec() != null && ownership.ownsContent(loaded.spec())) {
        out.add(name);
      }
    }
    return out;
  }

  private static List<String> temporaryFiles(Path dir, SpecOwnership ownership) throws IOException {
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        if (ownership.ownsTemporaryName(name) && Files.isRegularFile(p)) {
          out.add(name);
        }
      }
    }
    return out;
  }

  private Change writeValidated(Path dir, CdiSpecFile file) throws IOException {
    byte[] bytes = render(file);
    Path target = dir.resolve(file.fileName());
    if (sameContent(target, bytes)) {
      index.remember(dir, file.fileName(), file.spec(), SpecFileIndex.fileKey(target));
      return new Change(target, Outcome.UNCHANGED);
    }
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    }
    // ".<name>.<random>.tmp": in the same directory (a rename from elsewhere is only a Create event, which
    // the runtimes' watchers ignore) and never ending in .json/.yaml (dotfiles are scanned too).
    Path temp = Files.createTempFile(dir, "." + file.fileName() + ".", TEMP_SUFFIX);
    Object written;
    try {
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      // createTempFile makes 0600 files; runtimes (and nvidia-ctk's readers) expect 0644.
      Files.setPosixFilePermissions(temp, FILE_MODE);
      written = SpecFileIndex.fileKey(temp);
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("cannot rename atomically inside " + dir + ": " + e.getMessage(), e);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
    fsyncDirectory(dir);
    index.remember(dir, file.fileName(), file.spec(), written);
    return new Change(target, Outcome.WRITTEN);
  }

  private static boolean sameContent(Path target, byte[] bytes) throws IOException {
    try {
      if (!Files.isRegularFile(target) || Files.size(target) != bytes.length) {
        return false;
      }
      return Arrays.equals(Files.readAllBytes(target), bytes)
          && Files.getPosixFilePermissions(target).equals(FILE_MODE);
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /** Makes a rename or unlink in {@code dir} durable: fsync on the directory itself (Linux allows it). */
  private static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
