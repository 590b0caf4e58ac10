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
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exclusive lock on the state directory ({@code <state>/agent.lock}, {@code fcntl(F_SETLK)}: the kernel
 * drops it when its holder dies) and the hand-over request beside it ({@link #HANDOVER}).
 */
final class StateLock implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StateLock.class);

  /** Created by an instance that waits for the lock; the holder hands over when it sees it. */
  static final String HANDOVER = "handover-requested";

  private final Path file;
  private final Path requestFile;
  private final FileChannel channel;
  private FileLock lock;
  /** Our own hand-over request, locked while we wait; null when we made none (or another waiter did). */
  private FileChannel request;

  private StateLock(Path file, FileChannel channel) {
    this.file = file;
    this.requestFile = file.toAbsolutePath().getParent().resolve(HANDOVER);
    this.channel = channel;
  }

  /** Opens the lock file (creating the state directory {@code 0700}) without taking the lock. */
  static StateLock open(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    if (Files.isSymbolicLink(dir)) {
      throw new IOException("state directory " + dir + " is a symbolic link; nodeatlas does not follow links to its state");
    }
    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    return new StateLock(file, openOwnerOnly(file));
  }

  private static FileChannel openOwnerOnly(Path file) throws IOException {
    return FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
  }

  /**
   * Takes the lock, waiting at most {@code wait} for its holder to hand over; {@code stopped} ends the
   * wait early (SIGTERM). Logs once when it has to wait and every 10 s after.
   */
  static StateLock acquire(Path file, Duration wait, Clock clock, BooleanSupplier stopped)
      throws IOException, InterruptedException {
    StateLock s = open(file);
    try {
      Instant deadline = clock.instant().plus(wait);
      Instant nextLog = Instant.MIN;
      while (!s.tryLock()) {
        s.requestHandover();
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
      return s;
    } catch (IOException | InterruptedException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** Takes the lock if no one holds it; true when this instance holds it now. Withdraws our request once held. */
  boolean tryLock() throws IOException {
    if (held()) {
      return true;
    }
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by another part of this process (tests)
    }
    if (lock != null && request != null) {
      Files.deleteIfExists(requestFile);
      request.close();
      request = null;
      LOG.info("took over the state directory from the previous instance dir={}", requestFile.getParent());
    }
    return lock != null;
  }

  boolean held() {
    return lock != null && lock.isValid();
  }

  /** Whether this instance asked the holder to hand over and still waits. */
  boolean requesting() {
    return request != null;
  }

  /**
   * Asks the holder (the previous pod of a rolling update) to hand over: a file this waiter keeps locked
   * while it waits, so a request whose waiter died is seen as such. Another live waiter's request wins.
   */
  void requestHandover() throws IOException {
    if (request != null) {
      return;
    }
    FileChannel c = openOwnerOnly(requestFile);
    FileLock l;
    try {
      l = c.tryLock();
    } catch (OverlappingFileLockException e) {
      l = null;
    }
    if (l == null) {
      c.close(); // another waiter asked already; the first to get the lock wins
    } else {
      request = c;
    }
  }

  /**
   * Whether another instance waits for this lock: the hand-over request exists and its waiter still
   * holds it locked. A request left by a waiter that died is removed.
   */
  boolean handoverRequested() {
    if (request != null || !Files.exists(requestFile, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    try (FileChannel c = FileChannel.open(requestFile, Set.of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS))) {
      FileLock probe = c.tryLock();
      if (probe == null) {
        return true;
      }
      probe.release();
      Files.deleteIfExists(requestFile);
      return false;
    } catch (OverlappingFileLockException e) {
      return true; // the waiter is a thread of this process (tests)
    } catch (IOException e) {
      return false;
    }
  }

  /** Releases the lock and keeps the file open, so that {@link #tryLock()} can take it again. */
  void release() throws IOException {
    if (held()) {
      lock.release();
    }
    lock = null;
  }

  @Override
  public void close() throws IOException {
    try {
      release();
      if (request != null) {
        request.close();
        request = null;
      }
    } finally {
      channel.close();
    }
  }
}
