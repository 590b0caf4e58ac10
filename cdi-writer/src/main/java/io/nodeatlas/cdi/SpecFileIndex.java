package io.nodeatlas.cdi;

import io.nodeatlas.cdi.spec.CdiDevice;
import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.SpecFormat;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The CDI names that the spec files of a directory define (name → files), kept between writes so that
 * a write's conflict check (a device defined by two files is dropped by the runtime) neither re-reads
 * every file nor lists the directory and stats every file each time, and looks up only the names it
 * writes. Design and bounds: docs/design/cdi-index.md.
 *
 * <p>A check stats the directory (device, inode, size, mtime, ctime) and lists it only when that stamp
 * moved, when this writer changed the directory since the last listing, or when the stamp was "racy"
 * (taken within a timestamp tick of its mtime or ctime, so a later change could carry the same time).
 * Files this writer wrote are known without a stat; the others' files, which are few, are stat'ed on
 * every check, so a rewrite in place is seen too. Every {@code rescanPeriod} a full scan stats every
 * file, which bounds how long a change to one of our own files by someone else can go unseen.
 * Thread-safe.
 */
final class SpecFileIndex {

  /** How often every file, ours too, is stat'ed again. */
  static final Duration RESCAN_PERIOD = Duration.ofSeconds(5);
  /** A timestamp tick on a file system with sub-second times: the kernel's coarse clock moves each jiffy (≤ 10 ms). */
  static final Duration FINE_TICK = Duration.ofMillis(20);
  /** A timestamp tick when times carry no sub-second part (1 s file systems; FAT has 2 s). */
  static final Duration COARSE_TICK = Duration.ofSeconds(2);

  /** What identifies one version of a file or directory; {@code changed} is null where the platform has no ctime. */
  record Stamp(Object fileKey, long size, FileTime modified, FileTime changed) {}

  /**
   * A file as last read: its qualified device names when it is valid, else empty (runtimes skip it whole);
   * {@code gen}: the directory's {@link Dir#gen} when it was put.
   */
  private record Entry(Path path, Stamp stamp, Instant takenAt, boolean ours, Optional<List<String>> qualifiedNames, long gen) {}

  /** What is known of one directory; guarded by its own monitor. */
  private static final class Dir {
    Stamp stamp;
    Instant takenAt;
    Instant fullScanAt;
    /** This writer renamed or removed a file here since the last listing. */
    boolean ownChange;
    /** Counts this writer's changes (remember, forget): what a listing made outside the lock may not know. */
    long gen;
    /** The start number of the newest listing applied: an older one that comes later is not applied over it. */
    long appliedListing;
    /** Names this writer is renaming into place: a listing that shows them leaves them to {@link #remember}. */
    final Set<String> pending = new HashSet<>();
    final Map<String, Entry> files = new HashMap<>();
    /** Qualified device name → the valid files (by name) that define it. */
    final Map<String, SortedSet<String>> definers = new HashMap<>();

    void put(String name, Entry e) {
      drop(name);
      files.put(name, e);
      e.qualifiedNames().ifPresent(qs -> qs.forEach(q -> definers.computeIfAbsent(q, k -> new TreeSet<>()).add(name)));
    }

    void drop(String name) {
      Entry old = files.remove(name);
      if (old != null) {
        old.qualifiedNames().ifPresent(qs -> qs.forEach(q -> {
          SortedSet<String> f = definers.get(q);
          if (f != null && f.remove(name) && f.isEmpty()) {
            definers.remove(q);
          }
        }));
      }
    }
  }

  private final ConcurrentHashMap<Path, Dir> dirs = new ConcurrentHashMap<>();
  private final Clock clock;
  private final Duration rescanPeriod;
  /** Directory listings and file stats made, for tests that prove a check does not scan. */
  final AtomicLong listings = new AtomicLong();
  final AtomicLong fileStats = new AtomicLong();
  /** Numbers the listings in the order they start. */
  private final AtomicLong listingNumbers = new AtomicLong();

  SpecFileIndex() {
    this(Clock.systemUTC(), RESCAN_PERIOD);
  }

  SpecFileIndex(Clock clock, Duration rescanPeriod) {
    this.clock = clock;
    this.rescanPeriod = rescanPeriod;
  }

  /**
   * For each of {@code names} (qualified CDI device names), the valid spec files of {@code dir} that
   * define it, except the files named in {@code skip}; names no such file defines are left out. {@code
   * loadValid} reads, parses and validates one file; it is called only for files not seen before or
   * changed since.
   */
  Map<String, List<Path>> definers(Path dir, Set<String> skip, Collection<String> names,
      Function<Path, Optional<CdiSpec>> loadValid) throws IOException {
    Map<String, List<Path>> out = new HashMap<>();
    Instant now = clock.instant();
    // The stamp comes before the listing, so a change made during the listing moves it for the next check.
    Optional<Stamp> stamp = directoryStamp(dir);
    if (stamp.isEmpty()) {
      dirs.remove(dir);
      return out;
    }
    Dir d = dirs.computeIfAbsent(dir, k -> new Dir());
    boolean full;
    long gen;
    synchronized (d) {
      full = d.fullScanAt == null || stamp.get().changed() == null || isDue(d.fullScanAt, now);
      gen = d.gen;
      if (!(full || d.ownChange || !stamp.get().equals(d.stamp) || isRacy(d.stamp, d.takenAt))) {
        for (Map.Entry<String, Entry> e : List.copyOf(d.files.entrySet())) {
          if (!e.getValue().ours()) {
            refreshFile(d, e.getKey(), e.getValue().path(), now, loadValid, null);
          }
        }
        lookUp(d, skip, names, out);
        return out;
      }
    }
    // The listing (and a full scan's stats) outside the lock, so that concurrent checks do not queue on it;
    // applied under the lock unless a listing started later was applied first.
    long number = listingNumbers.incrementAndGet();
    Map<String, Path> listed = list(dir);
    Map<String, Optional<Stamp>> stats = new HashMap<>();
    if (full) {
      for (Map.Entry<String, Path> f : listed.entrySet()) {
        stats.put(f.getKey(), stamp(f.getValue()));
      }
    }
    synchronized (d) {
      if (number > d.appliedListing) {
        apply(d, stamp.get(), now, full, gen, number, listed, stats, loadValid);
      }
      lookUp(d, skip, names, out);
    }
    return out;
  }

  private static void lookUp(Dir d, Set<String> skip, Collection<String> names, Map<String, List<Path>> out) {
    for (String q : names) {
      SortedSet<String> files = d.definers.get(q);
      if (files != null) {
        for (String f : files) {
          if (!skip.contains(f)) {
            out.computeIfAbsent(q, k -> new ArrayList<>()).add(d.files.get(f).path());
          }
        }
      }
    }
  }

  /**
   * Applies a listing started at {@code gen} (and, for a full scan, the stats taken with it): names gone
   * are dropped unless this writer put them there since, the others' files and new names are stat'ed
   * (or take the full scan's stat) and re-read when changed. The stamp is trusted only when every stat
   * went through, and our own changes count as seen only when none came during the listing.
   */
  private void apply(Dir d, Stamp stamp, Instant now, boolean full, long gen, long number, Map<String, Path> listed,
      Map<String, Optional<Stamp>> stats, Function<Path, Optional<CdiSpec>> loadValid) throws IOException {
    d.stamp = null;
    List<String> gone = new ArrayList<>(0);
    for (Map.Entry<String, Entry> e : d.files.entrySet()) {
      if (!listed.containsKey(e.getKey()) && e.getValue().gen() <= gen) {
        gone.add(e.getKey());
      }
    }
    gone.forEach(d::drop);
    for (Map.Entry<String, Path> f : listed.entrySet()) {
      Entry e = d.files.get(f.getKey());
      if (e != null && e.gen() > gen || d.pending.contains(f.getKey())) {
        continue; // written by this writer during the listing, or being written: known without reading it back
      }
      if (full || e == null || !e.ours()) {
        refreshFile(d, f.getKey(), f.getValue(), now, loadValid, stats.get(f.getKey()));
      }
    }
    d.appliedListing = number;
    d.stamp = stamp;
    d.takenAt = now;
    d.ownChange = d.gen != gen;
    if (full) {
      d.fullScanAt = now;
    }
  }

  /**
   * Records that {@code dir/name} now holds {@code spec}, which the caller has just validated and
   * written ({@code renamed}: by a rename into the directory) or found there with the same bytes, and
   * no other writer writes: one stat of the file, so no check needs to stat or read it again.
   */
  void remember(Path dir, String name, CdiSpec spec, boolean renamed) throws IOException {
    Path file = dir.resolve(name);
    Instant now = clock.instant();
    Optional<Stamp> stamp = stamp(file);
    Dir d = dirs.computeIfAbsent(dir, k -> new Dir());
    synchronized (d) {
      d.gen++;
      d.pending.remove(name);
      if (stamp.isPresent()) {
        d.put(name, new Entry(file, stamp.get(), now, true, Optional.of(qualifiedNames(spec)), d.gen));
      } else {
        d.drop(name);
      }
      d.ownChange |= renamed;
    }
  }

  /**
   * Records that this writer is about to rename {@code dir/name} into place: a check that lists it before
   * {@link #remember} (or {@link #forget}, when the write failed) does not read it back.
   */
  void writing(Path dir, String name) {
    Dir d = dirs.computeIfAbsent(dir, k -> new Dir());
    synchronized (d) {
      d.gen++;
      d.pending.add(name);
    }
  }

  /** Records that this writer removed {@code dir/name} ({@code removed}: it was there). */
  void forget(Path dir, String name, boolean removed) {
    Dir d = dirs.get(dir);
    if (d != null) {
      synchronized (d) {
        d.gen++;
        d.pending.remove(name);
        d.drop(name);
        d.ownChange |= removed;
      }
    }
  }

  /**
   * Stats one file (or takes {@code taken}, a stat of the listing) and re-reads it when its stamp changed or
   * was racy; a file of ours stays ours while its names do.
   */
  private void refreshFile(Dir d, String name, Path file, Instant now, Function<Path, Optional<CdiSpec>> loadValid,
      Optional<Stamp> taken) throws IOException {
    Optional<Stamp> stamp = taken != null ? taken : stamp(file);
    if (stamp.isEmpty()) {
      d.drop(name); // gone since the listing, or not a regular file: a runtime skips it too
      return;
    }
    Entry e = d.files.get(name);
    if (e != null && e.stamp().equals(stamp.get()) && !isRacy(e.stamp(), e.takenAt())) {
      return;
    }
    Optional<List<String>> names = loadValid.apply(file).map(SpecFileIndex::qualifiedNames);
    boolean ours = e != null && e.ours() && names.equals(e.qualifiedNames());
    d.put(name, new Entry(file, stamp.get(), now, ours, names, d.gen));
  }

  private boolean isDue(Instant since, Instant now) {
    Duration elapsed = Duration.between(since, now);
    return elapsed.isNegative() || elapsed.compareTo(rescanPeriod) >= 0;
  }

  /**
   * Whether a change made after {@code takenAt} could carry the same times as {@code stamp}: it was
   * taken within one timestamp tick of its mtime or ctime (or before them, after a clock step).
   */
  static boolean isRacy(Stamp stamp, Instant takenAt) {
    if (stamp == null || stamp.changed() == null) {
      return true;
    }
    Instant modified = stamp.modified().toInstant();
    Instant changed = stamp.changed().toInstant();
    Instant latest = modified.isAfter(changed) ? modified : changed;
    Duration tick = modified.getNano() == 0 && changed.getNano() == 0 ? COARSE_TICK : FINE_TICK;
    return takenAt.isBefore(latest.plus(tick));
  }

  /**
   * The spec files of {@code dir} by name; a name not valid in the platform's encoding stands for the path
   * its text names. Unordered: claim specs' names share a long prefix, which a sorted map compares again
   * and again on every check of a burst.
   */
  private Map<String, Path> list(Path dir) throws IOException {
    listings.incrementAndGet();
    Map<String, Path> files = new HashMap<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        if (SpecFormat.ofFileName(name).isPresent()) {
          files.put(name, name.indexOf('\uFFFD') < 0 ? p : dir.resolve(name));
        }
      }
    } catch (NoSuchFileException gone) {
      // removed since its stat: nothing in it
    }
    return files;
  }

  /** The directory's stamp (following links, as runtimes do); empty when it is missing or not a directory. */
  static Optional<Stamp> directoryStamp(Path dir) throws IOException {
    try {
      try {
        Map<String, Object> a = Files.readAttributes(dir, "unix:dev,ino,size,lastModifiedTime,ctime,isDirectory");
        if (!Boolean.TRUE.equals(a.get("isDirectory"))) {
          return Optional.empty();
        }
        return Optional.of(new Stamp(List.of(a.get("dev"), a.get("ino")), (Long) a.get("size"),
            (FileTime) a.get("lastModifiedTime"), (FileTime) a.get("ctime")));
      } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
        // Without ctime a rename that keeps the mtime would go unseen: a stamp that never matches, so every check lists.
        return Files.isDirectory(dir) ? Optional.of(new Stamp(new Object(), 0, FileTime.fromMillis(0), null)) : Optional.empty();
      }
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** One stat (following links, as runtimes read); empty when missing or not a regular file. */
  Optional<Stamp> stamp(Path file) throws IOException {
    fileStats.incrementAndGet();
    try {
      try {
        Map<String, Object> a = Files.readAttributes(file, "unix:dev,ino,size,lastModifiedTime,ctime,isRegularFile");
        if (!Boolean.TRUE.equals(a.get("isRegularFile"))) {
          return Optional.empty();
        }
        return Optional.of(new Stamp(List.of(a.get("dev"), a.get("ino")), (Long) a.get("size"),
            (FileTime) a.get("lastModifiedTime"), (FileTime) a.get("ctime")));
      } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
        BasicFileAttributes b = Files.readAttributes(file, BasicFileAttributes.class);
        if (!b.isRegularFile()) {
          return Optional.empty();
        }
        // Without ctime or an inode a same-size rewrite within one mtime tick would go unseen: never trusted (racy).
        return Optional.of(new Stamp(b.fileKey() == null ? new Object() : b.fileKey(), b.size(), b.lastModifiedTime(), null));
      }
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  private static List<String> qualifiedNames(CdiSpec spec) {
    List<String> out = new ArrayList<>(spec.devices().size());
    Set<String> once = new HashSet<>();
    for (CdiDevice d : spec.devices()) {
      String q = spec.qualifiedName(d.name());
      if (once.add(q)) {
        out.add(q);
      }
    }
    return List.copyOf(out);
  }
}
