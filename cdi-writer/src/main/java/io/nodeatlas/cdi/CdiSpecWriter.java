package io.nodeatlas.cdi;

import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.CdiSpecCodec;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.files.AtomicFiles;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes CDI spec files so that a runtime never sees a partial or invalid one: validate first (content,
 * file names, and conflicts with the directory's other files, which a runtime would otherwise resolve
 * by dropping the device from both files), then replace each file with {@link AtomicFiles} (a hidden
 * temporary file in the same directory, fsync, rename, directory fsync; world-readable, as runtimes may
 * not run as our user). Renaming inside a watched directory is what fires the event that refreshes
 * containerd's and CRI-O's caches; an unchanged spec is not rewritten, so they do not rescan for
 * nothing. Spec files are never followed through symbolic links: a link where our spec goes is
 * replaced, not written through.
 *
 * <p>Every change goes through a {@link Plan}: {@link #planWrite} and {@link #planReconcile} run all the
 * checks and change nothing, {@link #apply} carries a plan out. {@code cdi generate --dry-run} prints a
 * plan, so it reports exactly the problems a real write would.
 *
 * <p>Stable public API (used by the agent):
 * <ul>
 *   <li>{@link #write(Path, CdiSpecFile)}: one file, atomically; {@link Outcome#UNCHANGED} when the bytes
 *       are already there;</li>
 *   <li>{@link #remove(Path, String)}: one file (e.g. a claim's spec on unprepare);</li>
 *   <li>{@link #reconcile(Path, Collection, SpecOwnership)}: make the directory hold exactly the wanted
 *       files among those we own: write the wanted ones, remove our stale ones, never touch anyone
 *       else's;</li>
 *   <li>{@link #removeStaleTemporaryFiles(Path, SpecOwnership)}: the temporary files a crashed writer of
 *       ours left (done by the first reconcile of each directory, and by the agent at start-up).</li>
 * </ul>
 * Thread-safe as long as two writers do not write the same file name at once. The conflict check
 * keeps the CDI names of the directory's files ({@link SpecFileIndex}: this writer's own files are known
 * from what it wrote, the others' files are stat'ed and re-read when changed, and the directory is
 * listed only when its own stat says it changed), so a write costs a few stats rather than a listing
 * and a stat of every file; use one writer per process for that to pay off.
 */
public final class CdiSpecWriter {

  /** What happened to one file. */
  public enum Outcome { WRITTEN, UNCHANGED, REMOVED }

  /** One file's outcome. */
  public record Change(Path file, Outcome outcome) {}

  /**
   * What a write or reconcile will do, after every check passed: the files to write (in order) and our
   * stale files to remove. Only this writer makes plans, so a plan in hand has been validated.
   */
  public static final class Plan {
    private final Path dir;
    private final List<CdiSpecFile> writes;
    private final List<String> removals;
    private final SpecOwnership cleanTemporaryFiles;

    private Plan(Path dir, List<CdiSpecFile> writes, List<String> removals, SpecOwnership cleanTemporaryFiles) {
      this.dir = dir;
      this.writes = List.copyOf(writes);
      this.removals = List.copyOf(removals);
      this.cleanTemporaryFiles = cleanTemporaryFiles;
    }

    public Path dir() {
      return dir;
    }

    /** The specs to write, in the order given. */
    public List<CdiSpecFile> writes() {
      return writes;
    }

    /** File names of our stale specs to remove. */
    public List<String> removals() {
      return removals;
    }
  }

  private final CdiSpecCodec codec;
  private final CdiValidator validator;
  /** Whether a write is {@code fsync}ed (file and directory) before it returns. */
  private final boolean durable;
  private final SpecFileIndex index;
  /** Directories whose stale temporary files this writer has removed already. */
  private final Set<Path> cleaned = ConcurrentHashMap.newKeySet();

  public CdiSpecWriter() {
    this(new CdiSpecCodec());
  }

  public CdiSpecWriter(CdiSpecCodec codec) {
    this(codec, true);
  }

  private CdiSpecWriter(CdiSpecCodec codec, boolean durable) {
    this(codec, durable, new SpecFileIndex());
  }

  /** A writer whose conflict check keeps its directories in {@code index} (tests inject its clock and read its counts). */
  CdiSpecWriter(CdiSpecCodec codec, boolean durable, SpecFileIndex index) {
    this.codec = codec;
    this.validator = new CdiValidator(codec);
    this.durable = durable;
    this.index = index;
  }

  /**
   * A writer for specs its caller re-creates after a power cut from a durable record of its own (the
   * per-claim specs: the agent's checkpoint records each prepared claim, and after a reboot the
   * kubelet prepares its claims again, KEP-4381): every write is the same validated, atomic
   * temporary-file-and-rename, so a runtime never sees half a spec and a killed process leaves the old
   * or the new one, but without the two {@code fsync}s ({@link AtomicFiles#replace}). Removals stay
   * durable.
   */
  public static CdiSpecWriter withoutFsync() {
    return new CdiSpecWriter(new CdiSpecCodec(), false);
  }

  /** The text {@code file} is written as. */
  public String renderText(CdiSpecFile file) {
    return codec.write(file.spec(), file.format());
  }

  /** The bytes {@code file} is written as. */
  public byte[] render(CdiSpecFile file) {
    return codec.writeBytes(file.spec(), file.format());
  }

  /**
   * Validates {@code file} (content and conflicts with the other valid files of {@code dir}) and writes
   * it atomically, creating {@code dir} when missing. Throws {@link CdiValidationException} and writes
   * nothing when the spec is invalid.
   */
  public Change write(Path dir, CdiSpecFile file) throws IOException, CdiValidationException {
    return apply(planWrite(dir, List.of(file))).get(0);
  }

  /**
   * {@link #write} for a spec no other file can conflict with by construction (a kind of the caller's
   * own and device names that carry a claim UID, one file per claim): the content and file name are
   * validated, the directory is not scanned for conflicts, and the file is remembered like every file
   * this writer writes, so its other writes' scans do not read it back.
   */
  public Change writeUnique(Path dir, CdiSpecFile file) throws IOException, CdiValidationException {
    List<CdiProblem> problems = new ArrayList<>();
    if (!file.fileName().equals(dir.resolve(file.fileName()).getFileName().toString())) {
      problems.add(new CdiProblem(file.fileName(), null, CdiRule.FILE_NAME, "not a plain file name"));
    }
    problems.addAll(validator.validate(file.spec(), file.fileName()));
    if (!problems.isEmpty()) {
      throw new CdiValidationException(problems);
    }
    return writeValidated(dir, file);
  }

  /**
   * Makes {@code dir} hold exactly {@code wanted} among the files {@code ownership} owns. Everything is
   * validated before anything changes: if one wanted spec is invalid or conflicts with a file we do not
   * own (or with another wanted spec), nothing is written or removed. Returns the changes in order.
   */
  public List<Change> reconcile(Path dir, Collection<CdiSpecFile> wanted, SpecOwnership ownership)
      throws IOException, CdiValidationException {
    return apply(planReconcile(dir, wanted, ownership));
  }

  /**
   * The checks of {@link #write}, for several files at once and without writing: each spec's content,
   * its file name, two specs for one file name, and conflicts with the other valid files of {@code dir}
   * and among the specs. Throws {@link CdiValidationException} listing every problem.
   */
  public Plan planWrite(Path dir, Collection<CdiSpecFile> files) throws IOException, CdiValidationException {
    return plan(dir, files, null);
  }

  /** The checks of {@link #reconcile}, without changing anything; the plan names our stale files too. */
  public Plan planReconcile(Path dir, Collection<CdiSpecFile> wanted, SpecOwnership ownership)
      throws IOException, CdiValidationException {
    return plan(dir, wanted, ownership);
  }

  private Plan plan(Path dir, Collection<CdiSpecFile> wanted, SpecOwnership ownership)
      throws IOException, CdiValidationException {
    Map<String, CdiSpec> byName = new LinkedHashMap<>();
    List<CdiProblem> problems = new ArrayList<>();
    for (CdiSpecFile f : wanted) {
      if (byName.put(f.fileName(), f.spec()) != null) {
        problems.add(new CdiProblem(f.fileName(), null, CdiRule.FILE_NAME, "two specs for the same file name"));
      }
      if (!f.fileName().equals(dir.resolve(f.fileName()).getFileName().toString())
          || SpecFormat.ofFileName(f.fileName()).isEmpty()) {
        problems.add(new CdiProblem(f.fileName(), null, CdiRule.FILE_NAME,
            "not a plain file name ending in .json or .yaml, which runtimes would not read"));
      }
      problems.addAll(validator.validate(f.spec(), f.fileName()));
    }
    List<String> stale = ownership == null ? List.of() : staleFiles(dir, byName.keySet(), ownership);
    if (problems.isEmpty()) {
      problems.addAll(validator.conflicts(dir, byName, new HashSet<>(stale), index));
    }
    if (!problems.isEmpty()) {
      throw new CdiValidationException(problems);
    }
    return new Plan(dir, List.copyOf(wanted), stale, ownership);
  }

  /** Carries out {@code plan}: writes its files, then removes its stale ones. Returns the changes in order. */
  public List<Change> apply(Plan plan) throws IOException {
    List<Change> changes = new ArrayList<>();
    for (CdiSpecFile f : plan.writes()) {
      changes.add(writeValidated(plan.dir(), f));
    }
    for (String name : plan.removals()) {
      if (remove(plan.dir(), name)) {
        changes.add(new Change(plan.dir().resolve(name), Outcome.REMOVED));
      }
    }
    if (plan.cleanTemporaryFiles != null && cleaned.add(plan.dir().toAbsolutePath())) {
      removeStaleTemporaryFiles(plan.dir(), plan.cleanTemporaryFiles);
    }
    return changes;
  }

  /**
   * Removes the temporary files that a writer of ours killed mid-write left in {@code dir}, for the
   * file names {@code ownership} owns (other writers' temporary files, and those of files we do not own,
   * are left alone). Call it when no other writer of the same files runs, e.g. at start-up.
   */
  public List<Path> removeStaleTemporaryFiles(Path dir, SpecOwnership ownership) throws IOException {
    return AtomicFiles.removeStaleTemps(dir, ownership::ownsName);
  }

  /** Removes {@code dir/fileName} if present (durably, never following a link); true when it was there. */
  public boolean remove(Path dir, String fileName) throws IOException {
    Path target = dir.resolve(fileName);
    if (fileName.isEmpty() || !target.getParent().equals(dir) || fileName.equals("..") || fileName.equals(".")) {
      throw new IllegalArgumentException("not a plain file name: " + fileName);
    }
    boolean removed = AtomicFiles.delete(target);
    index.forget(dir, fileName, removed);
    return removed;
  }

  /** Our files in {@code dir} that are not {@code keep}: owned by name and by content. */
  public List<String> staleFiles(Path dir, Set<String> keep, SpecOwnership ownership) throws IOException {
    List<String> out = new ArrayList<>();
    for (Path p : CdiValidator.specFiles(dir)) {
      String name = p.getFileName().toString();
      // A link is not a file we wrote (we only rename regular files into place): never ours to remove.
      if (keep.contains(name) || !ownership.ownsName(name) || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
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

  private Change writeValidated(Path dir, CdiSpecFile file) throws IOException {
    byte[] bytes = render(file);
    Path target = dir.resolve(file.fileName());
    if (sameContent(target, bytes)) {
      index.remember(dir, file.fileName(), file.spec(), false);
      return new Change(target, Outcome.UNCHANGED);
    }
    // Marked first, so that a concurrent check listing the directory between the rename and remember does
    // not read back (parse and validate) the spec it knows.
    index.writing(dir, file.fileName());
    try {
      try {
        atomicWrite(target, bytes);
      } catch (IOException e) {
        // The directory is there on every write but the first: made (links followed, as before) only when
        // the write found it missing, so a write costs no stat of its own.
        if (Files.isDirectory(dir)) {
          throw e;
        }
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        atomicWrite(target, bytes);
      }
    } catch (IOException | RuntimeException e) {
      index.forget(dir, file.fileName(), true); // what is there now is unknown: the next check lists and reads it
      throw e;
    }
    // What is there now is ours: no other writer writes this file name (see the class comment).
    index.remember(dir, file.fileName(), file.spec(), true);
    return new Change(target, Outcome.WRITTEN);
  }

  private void atomicWrite(Path target, byte[] bytes) throws IOException {
    if (durable) {
      AtomicFiles.write(target, bytes, AtomicFiles.WORLD_READABLE);
    } else {
      AtomicFiles.replace(target, bytes, AtomicFiles.WORLD_READABLE);
    }
  }

  /** Whether writing {@code file} into {@code dir} would leave it as it is (the same bytes and mode already there). */
  public boolean isUnchanged(Path dir, CdiSpecFile file) throws IOException {
    return sameContent(dir.resolve(file.fileName()), render(file));
  }

  /** Whether {@code target} is a regular file (not a link) with exactly these bytes and the spec mode. */
  private static boolean sameContent(Path target, byte[] bytes) throws IOException {
    if (!Files.exists(target)) {
      // A new file (every Prepare's spec): answered by access(2), without the exception (and its stack trace)
      // the lstat below would throw on JDK 17. Files.exists follows links, so a dangling link is "not there"
      // too, and is replaced like a missing file; anything else gets the checks below.
      return false;
    }
    try {
      BasicFileAttributes a = Files.readAttributes(target, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!a.isRegularFile() || a.size() != bytes.length
          || !Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS).equals(AtomicFiles.WORLD_READABLE)) {
        return false;
      }
      byte[] have = new byte[bytes.length];
      try (SeekableByteChannel ch = Files.newByteChannel(target, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(have);
        while (buf.hasRemaining() && ch.read(buf) >= 0) {
          // read until full or end of file
        }
        return !buf.hasRemaining() && ch.read(java.nio.ByteBuffer.allocate(1)) < 0 && Arrays.equals(have, bytes);
      }
    } catch (IOException e) {
      // Gone, a link swapped in since the stat (O_NOFOLLOW fails with ELOOP), or unreadable: rewrite it.
      return false;
    }
  }
}
