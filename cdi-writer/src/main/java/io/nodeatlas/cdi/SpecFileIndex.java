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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The spec files of CDI directories as last read, so that a write can check for conflicts (a device defined by two files is dropped by the runtime)
 * without re-reading and re-validating every file of the directory each time: with hundreds of
 * prepared claims in {@code /var/run/cdi} that re-read was most of the cost of a Prepare and grew with
 * every claim.
 *
 * <p>Each scan still lists the directory and stats every spec file, so files added, removed or
 * changed by anyone (a runtime, {@code nvidia-ctk}, an admin) are seen on the next write; only the
 * parse and validation of a file whose stat is unchanged is skipped. The stamp is the file's
 * identity and stat (device, inode, size, mtime, ctime): an atomic rename brings a new inode and any
 * write in place moves mtime and ctime, so a reused entry is what a runtime would read now. The stat
 * comes before the read, so a file changed between the two is re-read on the next scan. Thread-safe.
 */
final class SpecFileIndex {

  /** What identifies one version of a file. */
  record Stamp(Object fileKey, long size, FileTime modified, Object changed) {}

  /** A file as last read: its qualified device names when it is valid, else empty (runtimes skip it whole). */
  private record Entry(Stamp stamp, Optional<List<String>> qualifiedNames) {}

  private final ConcurrentHashMap<Path, ConcurrentHashMap<String, Entry>> dirs = new ConcurrentHashMap<>();

  /**
   * The qualified device names of every valid spec file of {@code dir} (file → names, in file name
   * order), except the names in {@code skip}. {@code loadValid} reads, parses and validates one file;
   * it is called only for files not seen before or changed since.
   */
  Map<Path, List<String>> validFiles(Path dir, Set<String> skip, Function<Path, Optional<CdiSpec>> loadValid)
      throws IOException {
    Map<Path, List<String>> out = new LinkedHashMap<>();
    if (!Files.isDirectory(dir)) {
      dirs.remove(dir);
      return out;
    }
    ConcurrentHashMap<String, Entry> known = dirs.computeIfAbsent(dir, d -> new ConcurrentHashMap<>());
    // By name, in name order; each with the path the listing made (a write scans the whole directory, so
    // nothing per file is made twice). A name that is not valid in the platform's encoding reads with
    // U+FFFD in it and stands for the path its text names, as a path made from the name would.
    SortedMap<String, Path> files = new TreeMap<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        if (SpecFormat.ofFileName(name).isPresent()) {
          files.put(name, name.indexOf('\uFFFD') < 0 ? p : dir.resolve(name));
        }
      }
    }
    known.keySet().removeIf(name -> !files.containsKey(name));
    for (Map.Entry<String, Path> f : files.entrySet()) {
      String name = f.getKey();
      if (skip.contains(name)) {
        continue;
      }
      Path file = f.getValue();
      Optional<Stamp> stamp = stamp(file);
      if (stamp.isEmpty()) {
        known.remove(name); // gone since the listing, or not a regular file: a runtime skips it too
        continue;
      }
      Entry e = known.get(name);
      if (e == null || !e.stamp().equals(stamp.get())) {
        e = new Entry(stamp.get(), loadValid.apply(file).map(SpecFileIndex::qualifiedNames));
        known.put(name, e);
      }
      if (e.qualifiedNames().isPresent()) {
        out.put(file, e.qualifiedNames().get());
      }
    }
    return out;
  }

  /**
   * Records that {@code dir/name} now holds {@code spec}, which the caller has just validated and
   * written (or found there with the same bytes) and no other writer writes: one stat of the file
   * there now, so the next scan re-reads it only when it changes.
   */
  void remember(Path dir, String name, CdiSpec spec) throws IOException {
    Optional<Stamp> stamp = stamp(dir.resolve(name));
    ConcurrentHashMap<String, Entry> known = dirs.computeIfAbsent(dir, d -> new ConcurrentHashMap<>());
    if (stamp.isPresent()) {
      known.put(name, new Entry(stamp.get(), Optional.of(qualifiedNames(spec))));
    } else {
      known.remove(name);
    }
  }

  void forget(Path dir, String name) {
    ConcurrentHashMap<String, Entry> known = dirs.get(dir);
    if (known != null) {
      known.remove(name);
    }
  }

  /** One stat (following links, as runtimes read); empty when missing or not a regular file. */
  static Optional<Stamp> stamp(Path file) throws IOException {
    try {
      try {
        Map<String, Object> a = Files.readAttributes(file, "unix:dev,ino,size,lastModifiedTime,ctime,isRegularFile");
        if (!Boolean.TRUE.equals(a.get("isRegularFile"))) {
          return Optional.empty();
        }
        return Optional.of(new Stamp(List.of(a.get("dev"), a.get("ino")), (Long) a.get("size"),
            (FileTime) a.get("lastModifiedTime"), a.get("ctime")));
      } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
        BasicFileAttributes b = Files.readAttributes(file, BasicFileAttributes.class);
        if (!b.isRegularFile()) {
          return Optional.empty();
        }
        // Without ctime or an inode a same-size rewrite within one mtime tick would go unseen; do not cache.
        return b.fileKey() == null ? Optional.of(new Stamp(new Object(), b.size(), b.lastModifiedTime(), null))
            : Optional.of(new Stamp(b.fileKey(), b.size(), b.lastModifiedTime(), null));
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
