package io.nodeatlas.agent.run;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exclusive lock on the state directory ({@code <state>/agent.lock}): only the instance holding it
 * writes the checkpoint and claim specs. During a rolling update (DaemonSet {@code maxSurge: 1}) the new
 * pod starts while the old one still serves; it asks for a hand-over ({@link #HANDOVER}), waits for the
 * lock, and reads the checkpoint only once it holds it, so it takes over every claim the old one
 * recorded. The lock is {@code fcntl(F_SETLK)} (what {@link FileChannel#tryLock()} does on Linux): the
 * kernel drops it when the holder dies, {@code kill -9} included. The file is created {@code 0600} and
 * never opened through a symbolic link.
 */
final class StateLock implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StateLock.class);

  /** Created by an instance that waits for the lock; the holder hands over when it sees it. */
  static final String HANDOVER = "handover-requested";

  private final FileChannel channel;
  private final FileLock lock;
  private final Path file;

  private StateLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock, waiting at most {@code wait} for its holder to hand over; {@code stopped} ends the
   * wait early (SIGTERM). Logs once when it has to wait and every 10 s after.
   */
  static StateLock acquire(Path file, Duration wait, Clock clock, BooleanSupplier stopped)
      throws IOException, InterruptedException {
    Path dir = file.toAbsolutePath().getParent();
    if (Files.isSymbolicLink(dir)) {
      throw new IOException("state directory " + dir + " is a symbolic link; nodeatlas does not follow links to its state");
    }
    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    FileChannel channel = FileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Instant deadline = clock.instant().plus(wait);
    Instant nextLog = Instant.MIN;
    boolean asked = false;
    FileChannel request = null;
    try {
      while (true) {
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null;
        }
        if (lock != null) {
          if (request != null) {
            Files.deleteIfExists(dir.resolve(HANDOVER));
            request.close();
            request = null;
            LOG.info("took over the state directory from the previous instance dir={}", dir);
          }
          return new StateLock(file, channel, lock);
        }
        if (!asked) {
          // Ask the holder (the previous pod of a rolling update) to hand over: a file this waiter keeps
          // locked while it waits, so a request whose waiter died is seen as such (its lock is gone).
          asked = true;
          request = FileChannel.open(dir.resolve(HANDOVER), java.util.Set.of(StandardOpenOption.CREATE,
              StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
          if (request.tryLock() == null) {
            request.close(); // another waiter asked already; the first to get the lock wins
            request = null;
          }
        }
        Instant now = clock.instant();
        if (stopped.getAsBoolean()) {
          throw new IOException("stopped while waiting for the lock " + file);
        }
        if (now.isAfter(deadline)) {
          throw new IOException("another nodeatlas instance still holds " + file + " after " + wait.toSeconds()
              + " s; only one instance may write the checkpoint (raise --lock-wait, or stop the other instance)");
        }
        if (!now.isBefore(nextLog)) {
          LOG.info("waiting for the instance that holds the state directory to hand over lock={} waitedS={} maxWaitS={}",
              file, wait.minus(Duration.between(now, deadline)).toSeconds(), wait.toSeconds());
          nextLog = now.plusSeconds(10);
        }
        Thread.sleep(100);
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      channel.close();
      if (request != null) {
        request.close();
      }
      throw e;
    }
  }

  /**
   * Whether another instance waits for this lock: the hand-over request exists and its waiter still
   * holds it locked. A request left by a waiter that died is removed.
   */
  boolean handoverRequested() {
    Path request = file.toAbsolutePath().getParent().resolve(HANDOVER);
    if (!Files.exists(request, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    try (FileChannel c = FileChannel.open(request, java.util.Set.of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS))) {
      FileLock probe = c.tryLock();
      if (probe == null) {
        return true;
      }
      probe.release();
      Files.deleteIfExists(request);
      return false;
    } catch (OverlappingFileLockException e) {
      return true; // the waiter is a thread of this process (tests)
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      if (lock.isValid()) {
        lock.release();
      }
    } finally {
      channel.close();
    }
  }
}
