package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.discovery.files.AtomicFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The prepared claims of this node, kept in one file so that a restart (or {@code kill -9}) loses
 * nothing and Unprepare works from the file alone (the kubelet's {@code NodeUnprepareResources} sends
 * only namespace, name and UID). The format is {@link CheckpointCodec}'s: versioned, checksummed, and
 * never overwritten when it cannot be trusted ({@link CorruptCheckpointException}).
 *
 * <p>Every change is durable when {@link #put} or {@link #remove} returns: the whole file is replaced
 * with {@link AtomicFiles} (temporary file, fsync, rename, directory fsync), or, with a journal ({@link
 * #open(Path, boolean)}, {@link CheckpointJournal}), the change's own line is appended. Concurrent changes are
 * committed together (whoever writes next writes everyone's changes), so hundreds of parallel Prepare
 * calls cost a handful of writes, not hundreds. Each claim is encoded once, when it is recorded. Which
 * claim holds which device is kept as an index, so the "is this device free?" check of Prepare does
 * not walk every claim.
 *
 * <p>The file names claims and devices of every tenant of the node, so it is {@code 0600} in a state
 * directory created {@code 0700}. It is never followed through a symbolic link: a link at its path
 * stops the agent, and the atomic replace renames over a link rather than writing through it.
 */
public final class Checkpoint {

  /** Larger files are refused rather than read (a checkpoint of 100,000 claims is ~40 MiB). */
  static final long MAX_FILE_BYTES = 64L << 20;

  private static final Set<PosixFilePermission> STATE_DIR_MODE = PosixFilePermissions.fromString("rwx------");

  /** Journal bytes below which a commit appends rather than writes the whole file (while the file is smaller). */
  static final long JOURNAL_BYTES = 1L << 20;

  /** How the file is replaced: {@link AtomicFiles#write}, or a fault of a test's own. */
  interface Writer {
    void write(Path file, byte[] content) throws IOException;
  }

  /** How lines are appended to the journal: {@link CheckpointJournal#append}, or a fault of a test's own. */
  interface Appender {
    void append(CheckpointJournal journal, List<byte[]> lines) throws IOException;
  }

  private final Path file;
  private final Writer writer;
  private final Appender appender;
  /** Journal bytes that make the next commit write the whole file; negative: no journal, every commit does. */
  private final long journalLimit;
  private final CheckpointCodec codec;
  /** The journal commits append to (null: the next commit writes the whole file), guarded by {@link #writeLock}. */
  private CheckpointJournal journal;
  /** Whether an append to {@link #journal} failed and could not be cut back: the next commit writes the whole file. */
  private boolean journalTorn;
  /** The journal generation the file names (0: none), and the file's size, guarded by {@link #writeLock}. */
  private long generation;
  private long fileBytes;
  /** Journal lines a power cut tore (or the disk damaged), dropped when the checkpoint was opened. */
  private final int droppedLines;
  private final Object stateLock = new Object();
  private final ReentrantLock writeLock = new ReentrantLock();
  /** The checksum's state of the last commit (guarded by {@link #writeLock}): a commit hashes only what changed. */
  private final CheckpointDigest digests = new CheckpointDigest();
  private final Map<String, CheckpointCodec.Entry> claims;
  /** Top-level members of a newer minor version of the format, written back as read. */
  private final SortedMap<String, JsonNode> unknownMembers;
  /** Device name → UID of a claim holding it (the claim that recorded it last, when several do). */
  private final Map<String, String> holders = new HashMap<>();
  /**
   * Device name → how many device entries of recorded claims name it, so that forgetting a claim looks
   * for another holder of its device only when there is one (a device held by one claim, the common
   * case, would otherwise cost a walk of every claim).
   */
  private final Map<String, Integer> entriesByDevice = new HashMap<>();
  /**
   * Changes made in memory and not yet committed, oldest first (guarded by {@link #stateLock}): a
   * failed commit takes every one of them back, so memory never holds what the file does not.
   */
  private final java.util.ArrayDeque<Change> pending = new java.util.ArrayDeque<>();
  /** Whether a file was there when opened (a missing file while claim specs exist is a lost checkpoint). */
  private final boolean existed;
  /** The boot recorded last, and the claims of an earlier boot the kubelet has not prepared again. */
  private String bootId;
  private final java.util.SortedSet<String> unconfirmed;

  private Checkpoint(Path file, Writer writer, Appender appender, long journalLimit, CheckpointCodec codec,
      CheckpointCodec.Replayed read, boolean existed, CheckpointJournal journal, long fileBytes) {
    CheckpointCodec.Content content = read.content();
    this.file = file;
    this.writer = writer;
    this.appender = appender;
    this.journalLimit = journalLimit;
    this.codec = codec;
    this.existed = existed;
    this.journal = journal;
    this.generation = content.journal();
    this.fileBytes = fileBytes;
    this.droppedLines = read.droppedLines();
    this.claims = new TreeMap<>(content.claims());
    this.unknownMembers = content.unknownMembers();
    this.bootId = content.boot().id();
    this.unconfirmed = new java.util.TreeSet<>(content.boot().unconfirmed());
    claims.values().forEach(e -> index(e.claim()));
  }

  private void index(PreparedClaim c) {
    for (PreparedDevice d : c.devices()) {
      holders.put(d.device(), c.claim().uid());
      entriesByDevice.merge(d.device(), 1, Integer::sum);
    }
  }

  private void unindex(PreparedClaim c) {
    for (PreparedDevice d : c.devices()) {
      Integer left = entriesByDevice.merge(d.device(), -1, Integer::sum);
      if (left == null || left <= 0) {
        // No other entry names the device: nothing to look for.
        entriesByDevice.remove(d.device());
        holders.remove(d.device());
        continue;
      }
      if (c.claim().uid().equals(holders.get(d.device()))) {
        holders.remove(d.device());
        // Another claim may hold the same device (admin access, a shared device): let it be found again.
        for (CheckpointCodec.Entry other : claims.values()) {
          if (other.claim().devices().stream().anyMatch(o -> o.device().equals(d.device()))) {
            holders.put(d.device(), other.claim().claim().uid());
            break;
          }
        }
      }
    }
  }

  /**
   * Opens the checkpoint at {@code file}; a missing file is an empty checkpoint. Creates the state
   * directory ({@code 0700}) when missing and removes the temporary files a killed writer left there.
   */
  public static Checkpoint open(Path file) throws IOException, CorruptCheckpointException {
    return open(file, false);
  }

  /**
   * {@link #open(Path)}; with {@code journal}, a change appends its own line to a journal beside the file
   * (format v3.0, {@link CheckpointJournal}) and the whole file is written only once the journal outgrows
   * it. Without, every commit writes the whole file in v2.3, which agents reading only v2 can still read.
   * Either reads both.
   */
  public static Checkpoint open(Path file, boolean journal) throws IOException, CorruptCheckpointException {
    return open(file, Checkpoint::replace, CheckpointJournal::append, journal ? JOURNAL_BYTES : -1);
  }

  /** {@link #open(Path)} without a journal, with {@code writer} replacing the file (tests: a disk that fails). */
  static Checkpoint open(Path file, Writer writer) throws IOException, CorruptCheckpointException {
    return open(file, writer, CheckpointJournal::append, -1);
  }

  private static void replace(Path file, byte[] content) throws IOException {
    AtomicFiles.write(file, content, AtomicFiles.OWNER_ONLY);
  }

  /**
   * {@link #open(Path)} with {@code writer} replacing the file, {@code appender} appending to the journal,
   * and a journal of at most about {@code journalLimit} bytes (negative: none).
   */
  static Checkpoint open(Path file, Writer writer, Appender appender, long journalLimit)
      throws IOException, CorruptCheckpointException {
    Path dir = file.toAbsolutePath().getParent();
    prepareStateDirectory(dir);
    String name = file.getFileName().toString();
    AtomicFiles.removeStaleTemps(dir, name::equals);
    // The fixed temporary name of format 1's writer, left by a crash before an upgrade.
    Files.deleteIfExists(dir.resolve("." + name + ".tmp"));
    CheckpointCodec codec = new CheckpointCodec();
    Optional<byte[]> bytes = read(file);
    CheckpointCodec.Content content = bytes.isEmpty() ? CheckpointCodec.Content.empty() : codec.decode(file, bytes.get());
    Optional<Path> journalFile = codec.journalFile(file, content);
    CheckpointCodec.Replayed replayed = codec.replay(file, content, journalFile.isEmpty() ? Optional.empty() : read(journalFile.get()));
    // Journals the file does not name were left by a crash before or after a whole write: the file holds their changes.
    removeJournals(dir, name, journalFile);
    CheckpointJournal journal = journalFile.isEmpty() ? null
        : CheckpointJournal.reopen(journalFile.get(), content.journal(), replayed.journalBytes());
    return new Checkpoint(file, writer, appender, journalLimit, codec, replayed, bytes.isPresent(), journal,
        bytes.map(b -> b.length).orElse(0));
  }

  private static void removeJournals(Path dir, String name, Optional<Path> except) throws IOException {
    String kept = except.map(e -> e.getFileName().toString()).orElse("");
    try (var entries = Files.newDirectoryStream(dir, p -> CheckpointJournal.isJournal(name, p.getFileName().toString()))) {
      for (Path p : entries) {
        if (!p.getFileName().toString().equals(kept)) {
          AtomicFiles.delete(p);
        }
      }
    }
  }

  private static void prepareStateDirectory(Path dir) throws IOException {
    if (Files.isSymbolicLink(dir)) {
      throw new IOException("state directory " + dir + " is a symbolic link; nodeatlas does not follow links to its state");
    }
    if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(STATE_DIR_MODE));
    // The umask only narrows the mode; set it exactly, and make the new entry durable in its parent.
    Files.setPosixFilePermissions(dir, STATE_DIR_MODE);
    if (dir.getParent() != null) {
      AtomicFiles.syncDirectory(dir.getParent());
    }
  }

  /** The file's bytes, never through a link; empty when there is no file. */
  private static Optional<byte[]> read(Path file) throws IOException, CorruptCheckpointException {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    if (a.isSymbolicLink()) {
      throw new CorruptCheckpointException(file, "it is a symbolic link, and nodeatlas never follows links to its state", null);
    }
    if (!a.isRegularFile()) {
      throw new CorruptCheckpointException(file, "it is not a regular file", null);
    }
    if (a.size() > MAX_FILE_BYTES) {
      throw new CorruptCheckpointException(file, "it has " + a.size() + " bytes, more than the " + MAX_FILE_BYTES
          + " a checkpoint may have", null);
    }
    // O_NOFOLLOW: a link swapped in since the stat fails the open instead of being read.
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] bytes = in.readNBytes((int) MAX_FILE_BYTES + 1);
      if (bytes.length > MAX_FILE_BYTES) {
        throw new CorruptCheckpointException(file, "it has more than the " + MAX_FILE_BYTES + " bytes a checkpoint may have", null);
      }
      return Optional.of(bytes);
    }
  }

  public Path file() {
    return file;
  }

  /**
   * The journal commits append to now; empty without one. A commit of another process changes it or
   * the file (a rolling update's other instance: {@code CallLock} compares both).
   */
  public Optional<Path> journalFile() {
    writeLock.lock();
    try {
      return journal == null ? Optional.empty() : Optional.of(journal.file());
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Lets go of the journal (a rolling update read the checkpoint again: the new object appends); a later
   * commit of this object writes the whole file.
   */
  public void close() {
    writeLock.lock();
    try {
      closeQuietly(journal);
      journal = null;
    } finally {
      writeLock.unlock();
    }
  }

  /** Journal lines dropped when the checkpoint was opened: torn by a power cut during an append, or damaged. */
  public int droppedJournalLines() {
    return droppedLines;
  }

  /** Changes made in memory and not yet committed (tests). */
  int pendingChanges() {
    synchronized (stateLock) {
      return pending.size();
    }
  }

  /** Whether the file existed when the checkpoint was opened. */
  public boolean existed() {
    return existed;
  }

  /** The boot ID recorded last; empty when none was (a file older than format v2.2, or a new file). */
  public String bootId() {
    synchronized (stateLock) {
      return bootId;
    }
  }

  /** UIDs of claims recorded in an earlier boot that the kubelet has not prepared again since. */
  public java.util.SortedSet<String> unconfirmed() {
    synchronized (stateLock) {
      return new java.util.TreeSet<>(unconfirmed);
    }
  }

  /**
   * Records the boot this process runs in; durable on return. When it is not the recorded one (a
   * reboot, or a file that recorded none), every claim recorded so far becomes unconfirmed: its CDI
   * spec may be gone with the tmpfs it was on, and the kubelet may never ask for it again. Returns the
   * boot ID recorded before ({@code ""} when none was) when the boot changed; empty when it did not.
   */
  public Optional<String> startBoot(String currentBootId) throws IOException {
    Change change;
    String before;
    byte[] line = journalLimit < 0 ? null : codec.bootLine(currentBootId);
    synchronized (stateLock) {
      if (currentBootId.equals(bootId)) {
        if (existed) {
          return Optional.empty();
        }
        // A new checkpoint is written at once, so that its absence later means it was lost.
        change = change(null, () -> { });
        before = null;
      } else {
        String prior = bootId;
        before = prior;
        java.util.SortedSet<String> unconfirmedBefore = new java.util.TreeSet<>(unconfirmed);
        bootId = currentBootId;
        unconfirmed.addAll(claims.keySet());
        change = change(line, () -> {
          bootId = prior;
          unconfirmed.clear();
          unconfirmed.addAll(unconfirmedBefore);
        });
      }
    }
    awaitDurable(change);
    return Optional.ofNullable(before);
  }

  /** Whether {@code uid} was recorded in an earlier boot and not prepared again since. */
  public boolean isUnconfirmed(String uid) {
    synchronized (stateLock) {
      return unconfirmed.contains(uid);
    }
  }

  /** The kubelet asked for this claim again in this boot; durable on return. */
  public void confirm(String uid) throws IOException {
    Change change;
    byte[] line = journalLimit < 0 ? null : codec.changeLine("confirm", uid);
    synchronized (stateLock) {
      if (!unconfirmed.remove(uid)) {
        return;
      }
      change = change(line, () -> unconfirmed.add(uid));
    }
    awaitDurable(change);
  }

  public Optional<PreparedClaim> get(String uid) {
    synchronized (stateLock) {
      return Optional.ofNullable(claims.get(uid)).map(CheckpointCodec.Entry::claim);
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
        return Optional.of(claims.get(uid).claim().claim());
      }
      // The index names exceptUid; only the rare device held by two claims needs the walk.
      for (CheckpointCodec.Entry c : claims.values()) {
        if (!c.claim().claim().uid().equals(exceptUid)
            && c.claim().devices().stream().anyMatch(d -> d.device().equals(device))) {
          return Optional.of(c.claim().claim());
        }
      }
      return Optional.empty();
    }
  }

  public Collection<PreparedClaim> all() {
    synchronized (stateLock) {
      return claims.values().stream().map(CheckpointCodec.Entry::claim).toList();
    }
  }

  /** Records a prepared claim; durable on return. */
  public void put(PreparedClaim claim) throws IOException {
    CheckpointCodec.Entry entry = codec.entry(claim);
    // Encoded and hashed before any lock is taken: a commit only writes it.
    byte[] line = journalLimit < 0 ? null : codec.putLine(entry);
    Change change;
    String uid = claim.claim().uid();
    synchronized (stateLock) {
      CheckpointCodec.Entry old = claims.put(uid, entry);
      if (old != null) {
        unindex(old.claim());
      }
      index(claim);
      boolean wasUnconfirmed = unconfirmed.remove(uid);
      change = change(line, () -> {
        if (old == null) {
          claims.remove(uid);
        } else {
          claims.put(uid, old);
        }
        unindex(claim);
        if (old != null) {
          index(old.claim());
        }
        if (wasUnconfirmed) {
          unconfirmed.add(uid);
        }
      });
    }
    awaitDurable(change);
  }

  /** Forgets a claim; durable on return. Removing an unknown claim writes nothing. */
  public void remove(String uid) throws IOException {
    Change change;
    byte[] line = journalLimit < 0 ? null : codec.changeLine("remove", uid);
    synchronized (stateLock) {
      CheckpointCodec.Entry old = claims.remove(uid);
      if (old == null) {
        return;
      }
      unindex(old.claim());
      boolean wasUnconfirmed = unconfirmed.remove(uid);
      change = change(line, () -> {
        claims.put(uid, old);
        index(old.claim());
        if (wasUnconfirmed) {
          unconfirmed.add(uid);
        }
      });
    }
    awaitDurable(change);
  }

  /**
   * A change made in memory, with how to take it back; its outcome is set under {@link #writeLock}
   * once a commit wrote it (durable) or failed with it (taken back, {@code failure} set).
   */
  private static final class Change {
    /** Its journal line; null when the change must be committed by writing the whole file. */
    final byte[] line;
    final Runnable undo;
    boolean settled;
    IOException failure;

    Change(byte[] line, Runnable undo) {
      this.line = line;
      this.undo = undo;
    }
  }

  /** Registers a change just made in memory (called with {@link #stateLock} held). */
  private Change change(byte[] line, Runnable undo) {
    Change c = new Change(line, undo);
    pending.addLast(c);
    return c;
  }

  /**
   * Returns once {@code change} is on disk; throws when the commit that carried it failed, and then
   * the change, and every other change not yet on disk, is no longer in memory either: the kubelet is
   * answered "failed" for exactly what the file does not hold (a retried Prepare is then prepared
   * again, not answered from memory, and a claim answered "failed" is never written by a later
   * commit).
   */
  private void awaitDurable(Change change) throws IOException {
    writeLock.lock();
    try {
      if (!change.settled) {
        commit();
      }
      if (change.failure != null) {
        throw new IOException(change.failure.getMessage(), change.failure);
      }
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Commits every pending change (called with {@link #writeLock} held): appends their lines to the journal
   * when there is one of less than the limit's size (or the file's, when that is larger), else writes the
   * whole file and starts a new journal.
   */
  private void commit() {
    List<Change> carried;
    synchronized (stateLock) {
      carried = List.copyOf(pending);
    }
    if (journalLimit >= 0 && journal != null && !journalTorn && journal.length() <= Math.max(journalLimit, fileBytes)
        && carried.stream().allMatch(c -> c.line != null)) {
      append(carried);
    } else {
      writeWhole();
    }
  }

  /** Appends {@code carried}'s lines to the journal in one write and one fsync. */
  private void append(List<Change> carried) {
    List<byte[]> lines = new java.util.ArrayList<>(carried.size());
    carried.forEach(c -> lines.add(c.line));
    try {
      appender.append(journal, lines);
    } catch (IOException | RuntimeException e) {
      // A torn journal may hold lines of changes about to be taken back: the next commit writes the whole file.
      journalTorn = e instanceof CheckpointJournal.Torn;
      fail(e);
      return;
    }
    settle(carried);
  }

  /** Writes the whole file, naming a new, empty journal when journaling; the old journal is then removed. */
  private void writeWhole() {
    SortedMap<String, CheckpointCodec.Entry> snapshot;
    CheckpointCodec.Boot boot;
    List<Change> carried;
    synchronized (stateLock) {
      snapshot = new TreeMap<>(claims);
      boot = new CheckpointCodec.Boot(bootId, unconfirmed);
      carried = List.copyOf(pending);
    }
    long next = journalLimit < 0 ? 0 : generation + 1;
    CheckpointJournal created = null;
    try {
      // The journal exists before the file that names it does.
      created = next == 0 ? null : codec.createJournal(file, next);
      byte[] content = codec.encode(snapshot, unknownMembers, boot, digests, next);
      writer.write(file, content);
      fileBytes = content.length;
    } catch (IOException | RuntimeException e) {
      IOException failure = fail(e);
      if (e instanceof AtomicFiles.NotDurableException) {
        rewrite(created, next, failure);
      } else if (created != null) {
        closeQuietly(created);
        deleteQuietly(created.file());
      }
      return;
    }
    switchJournal(created, next);
    settle(carried);
  }

  /**
   * After a whole write whose rename landed but whose directory fsync failed: the failed changes reached
   * the file, which must go back to what memory and the answers say. Whatever happens, the file now names
   * generation {@code next}.
   */
  private void rewrite(CheckpointJournal created, long next, IOException failure) {
    try {
      byte[] content;
      synchronized (stateLock) {
        content = codec.encode(new TreeMap<>(claims), unknownMembers, new CheckpointCodec.Boot(bootId, unconfirmed), digests, next);
      }
      writer.write(file, content);
      fileBytes = content.length;
      switchJournal(created, next);
    } catch (IOException | RuntimeException again) {
      failure.addSuppressed(again);
      switchJournal(null, next);
      closeQuietly(created);
    }
  }

  /** Makes {@code created} (of generation {@code next}) the journal, removing the one it replaces. */
  private void switchJournal(CheckpointJournal created, long next) {
    CheckpointJournal old = journal;
    journal = created;
    journalTorn = false;
    generation = next;
    if (old != null) {
      closeQuietly(old);
      deleteQuietly(old.file());
    }
  }

  /** The carried changes are durable: they leave the pending ones, oldest first. */
  private void settle(List<Change> carried) {
    synchronized (stateLock) {
      for (Change c : carried) {
        c.settled = true;
        pending.removeFirst();
      }
    }
  }

  /**
   * A commit failed: every pending change is taken back, newest first, back to the state of the last
   * commit (also the changes made since the commit began, which were made on top of the failed ones).
   */
  private IOException fail(Exception e) {
    IOException failure = e instanceof IOException io ? io : new IOException(e.toString(), e);
    synchronized (stateLock) {
      for (java.util.Iterator<Change> it = pending.descendingIterator(); it.hasNext(); ) {
        Change c = it.next();
        c.undo.run();
        c.settled = true;
        c.failure = failure;
      }
      pending.clear();
    }
    return failure;
  }

  private static void closeQuietly(CheckpointJournal j) {
    if (j != null) {
      try {
        j.close();
      } catch (IOException ignored) {
        // Closing a journal no longer used loses nothing.
      }
    }
  }

  /** Removes a journal the file no longer names; one left behind is removed at the next open. */
  private static void deleteQuietly(Path journalFile) {
    try {
      AtomicFiles.delete(journalFile);
    } catch (IOException ignored) {
      // Left for the next open, which removes every journal the file does not name.
    }
  }

  /**
   * The checkpoint at {@code file} as one document of version {@link CheckpointCodec#CURRENT} (its journal
   * applied), read without writing or removing anything: what a restarted agent would hold (tools, tests).
   */
  public static byte[] document(Path file) throws IOException, CorruptCheckpointException {
    CheckpointCodec codec = new CheckpointCodec();
    byte[] bytes = read(file).orElseThrow(() -> new NoSuchFileException(file.toString()));
    CheckpointCodec.Content content = codec.decode(file, bytes);
    Optional<Path> journalFile = codec.journalFile(file, content);
    content = codec.replay(file, content, journalFile.isEmpty() ? Optional.empty() : read(journalFile.get())).content();
    return codec.encode(new TreeMap<>(content.claims()), content.unknownMembers(), content.boot());
  }

  /** The file this checkpoint would write for {@code claims} (tests, benchmarks). */
  static byte[] encode(List<PreparedClaim> claims) {
    CheckpointCodec codec = new CheckpointCodec();
    SortedMap<String, CheckpointCodec.Entry> byUid = new TreeMap<>();
    claims.forEach(c -> byUid.put(c.claim().uid(), codec.entry(c)));
    return codec.encode(byUid, Map.of());
  }
}
