package io.nodeatlas.agent.run;

import io.nodeatlas.agent.claims.CallBudget;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.CorruptCheckpointException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serialises Prepare and Unprepare with the other instance of a rolling update: an exclusive lock on
 * {@code <state>/serialize.lock} held for one call only, and the checkpoint read again first when the
 * other instance changed it (k8s.io/dynamic-resource-allocation {@code kubeletplugin} {@code RollingUpdate}
 * and {@code Serialize}: state is loaded at the start of a call and stored before its end).
 */
final class CallLock implements ClaimPreparer.CallGuard {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  /** The lock file's name in the state directory (the helper's is {@code serialize.lock} too). */
  static final String FILE = "serialize.lock";

  /** Reads the state again: the other instance wrote the checkpoint since this one last saw it. */
  interface Reload {
    void reload() throws IOException, CorruptCheckpointException;
  }

  /** A file as a call left it: a new file (inode) or another size or time means another writer. */
  private record Stat(Object fileKey, long size, Object modified) {}

  /**
   * The checkpoint file and the journal this instance appends to, as a call left them: the other instance
   * rewrites the file (or, with a journal of its own, starts a new one and names it there) or appends
   * lines to the journal (format v3.0), which leaves the file as it was.
   */
  private record Seen(Stat file, Path journal, Stat journalStat) {}

  private final Path lockFile;
  private final Path checkpointFile;
  /** The journal this instance's checkpoint appends to now; null when it has none. */
  private final Supplier<Path> journal;
  private final Reload reload;
  /** The JVM refuses a second lock on a file it holds, so this process's calls queue here first. */
  private final ReentrantLock inProcess = new ReentrantLock(true);
  private final AtomicInteger waiting = new AtomicInteger();
  private Seen seen;

  CallLock(Path stateDir, Path checkpointFile, Supplier<Path> journal, Reload reload) {
    this.lockFile = stateDir.resolve(FILE);
    this.checkpointFile = checkpointFile;
    this.journal = journal;
    this.reload = reload;
  }

  /** Calls of this instance waiting for the lock now (a probe for tests and operators). */
  int waiting() {
    return waiting.get();
  }

  /** Notes the checkpoint as this instance has it now (after it opened the file itself). */
  void seenNow() {
    seen = stat();
  }

  @Override
  public <T> T around(CallBudget budget, Supplier<T> call, Function<String, T> refused) {
    waiting.incrementAndGet();
    boolean counted = true;
    try {
      if (!inProcess.tryLock(budget.remainingNanos(), TimeUnit.NANOSECONDS)) {
        return refused.apply(busy(budget));
      }
      try (FileChannel channel = open()) {
        FileLock lock = lockWithin(channel, budget);
        if (lock == null) {
          return refused.apply(busy(budget));
        }
        waiting.decrementAndGet();
        counted = false;
        String stale = reloadIfChanged();
        try {
          return stale == null ? call.get() : refused.apply(stale);
        } finally {
          if (stale == null) {
            seen = stat(); // what this call wrote: the next call reads again only what another wrote
          }
          lock.release();
        }
      } finally {
        inProcess.unlock();
      }
    } catch (IOException e) {
      return refused.apply("cannot lock " + lockFile + " to serialise calls with the other instance: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return refused.apply("interrupted while waiting for " + lockFile);
    } finally {
      if (counted) {
        waiting.decrementAndGet();
      }
    }
  }

  private String busy(CallBudget budget) {
    return "the other instance of this driver (rolling update) held " + lockFile + " for the whole call's time"
        + (budget.over() ? " (" + budget.why() + ")" : "") + "; the kubelet will ask again";
  }

  private FileChannel open() throws IOException {
    return FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
  }

  /**
   * The lock, polled until the budget is spent ({@code fcntl(F_SETLK)}, what {@link FileChannel#tryLock()}
   * does on Linux; the kernel drops it when the holder dies); null when the budget ran out first.
   */
  private static FileLock lockWithin(FileChannel channel, CallBudget budget) throws IOException, InterruptedException {
    long pause = 1;
    while (true) {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // the other instance is a part of this process (tests)
      }
      if (lock != null) {
        return lock;
      }
      if (budget.over() || budget.remainingNanos() <= 0) {
        return null;
      }
      Thread.sleep(Math.min(pause, TimeUnit.NANOSECONDS.toMillis(budget.remainingNanos()) + 1));
      pause = Math.min(pause * 2, 20);
    }
  }

  /** Reads the checkpoint again when another writer changed it; null, or why the call cannot be served. */
  private String reloadIfChanged() {
    Seen now = stat();
    if (Objects.equals(now, seen)) {
      return null;
    }
    try {
      reload.reload();
      LOG.debug("checkpoint read again: the other instance changed it file={}", checkpointFile);
      return null;
    } catch (IOException | CorruptCheckpointException | RuntimeException e) {
      LOG.error("cannot read the checkpoint the other instance wrote file={} err=\"{}\"", checkpointFile, e.getMessage());
      return "cannot read the checkpoint " + checkpointFile + " after the other instance changed it: " + e.getMessage();
    }
  }

  /**
   * The file and the journal this instance had after its last call: lines the other instance appended
   * to that journal change its size (a journal it compacted away is gone, and the file names another).
   */
  private Seen stat() {
    Path j = journal.get();
    return new Seen(stat(checkpointFile), j, j == null ? null : stat(j));
  }

  private static Stat stat(Path file) {
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return new Stat(a.fileKey(), a.size(), a.lastModifiedTime());
    } catch (NoSuchFileException e) {
      return new Stat(null, -1, null);
    } catch (IOException e) {
      return new Stat(new Object(), -2, null); // equal to no other: the next call reads the file again
    }
  }
}
