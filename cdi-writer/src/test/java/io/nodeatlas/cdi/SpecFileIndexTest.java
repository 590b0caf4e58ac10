package io.nodeatlas.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.cdi.spec.CdiSpecCodec;
import io.nodeatlas.discovery.model.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conflict check's index of a CDI directory: other writers' changes are seen by the next check,
 * and this writer's own writes cost no listing of the directory and no stat of its files.
 */
class SpecFileIndexTest {

  private static final Duration HOUR = Duration.ofHours(1);

  /** The real time plus an offset the test moves (the full-rescan period), so timestamps on disk stay comparable. */
  private static final class TestClock extends Clock {
    volatile Duration offset = Duration.ZERO;

    @Override
    public Instant instant() {
      return Instant.now().plus(offset);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  private final TestClock clock = new TestClock();
  private final ClaimCdiSpecs claims = new ClaimCdiSpecs();
  private final List<Device> gpu0 = SyntheticNode.devices().subList(0, 1);

  private SpecFileIndex index(Duration rescanPeriod) {
    return new SpecFileIndex(clock, rescanPeriod);
  }

  private static CdiSpecWriter writer(SpecFileIndex index) {
    return new CdiSpecWriter(new CdiSpecCodec(), false, index);
  }

  private CdiSpecFile claim(String uid) {
    return claims.forClaim(uid, gpu0).file().orElseThrow();
  }

  private String conflictWith(String uid) {
    return "conflicting device \"nodeatlas.io/claim=" + uid + "-" + gpu0.get(0).name() + "\"";
  }

  /** A spec file of another writer (another file name) that defines the devices of claim {@code uid}. */
  private String othersSpec(CdiSpecWriter writer, String uid) {
    return writer.renderText(claim(uid));
  }

  /**
   * Waits (bounded, no fixed sleep) until the real clock is a timestamp tick past every time of {@code
   * paths}, so that the next stamp the index takes of them is not racy and the path that trusts a
   * stamp is the one under test.
   */
  private static void settle(Path... paths) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    for (Path p : paths) {
      while (SpecFileIndex.isRacy(SpecFileIndex.directoryStamp(p).or(() -> stampOf(p)).orElseThrow(), Instant.now())) {
        assertThat(System.nanoTime()).as("timestamps of %s settle", p).isLessThan(deadline);
        Thread.sleep(1);
      }
    }
  }

  private static java.util.Optional<SpecFileIndex.Stamp> stampOf(Path file) {
    try {
      return new SpecFileIndex().stamp(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private record Cost(long listings, long fileStats) {}

  private static Cost cost(SpecFileIndex index, ThrowingRunnable r) throws Exception {
    long l = index.listings.get();
    long s = index.fileStats.get();
    r.run();
    return new Cost(index.listings.get() - l, index.fileStats.get() - s);
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void ownWritesNeedNoStatOfOurFilesAndAnUnchangedDirectoryNoListing(@TempDir Path dir) throws Exception {
    SpecFileIndex index = index(HOUR);
    CdiSpecWriter writer = writer(index);
    int n = 32;
    for (int i = 0; i < n; i++) {
      writer.write(dir, claim("uid-" + i));
    }
    settle(dir);
    // Before: a check lists the directory and stats every spec file (what a fresh index, or the old one on every write, does).
    SpecFileIndex fresh = index(HOUR);
    assertThat(cost(fresh, () -> writer(fresh).planWrite(dir, List.of(claim("uid-new")))))
        .isEqualTo(new Cost(1, n));

    // The first check after our own writes lists the names once (a rename of someone else's could hide behind ours
    // in the same timestamp tick) and stats none of our files.
    assertThat(cost(index, () -> writer.planWrite(dir, List.of(claim("uid-new"))))).isEqualTo(new Cost(1, 0));
    // The directory unchanged since: no listing, no stat.
    for (int i = 0; i < 5; i++) {
      assertThat(cost(index, () -> writer.planWrite(dir, List.of(claim("uid-new"))))).isEqualTo(new Cost(0, 0));
    }
    // A write: its check costs nothing, recording what it wrote one stat of its own file; rewriting the same bytes
    // leaves the directory as it was, so the next check does not list.
    assertThat(cost(index, () -> writer.write(dir, claim("uid-new")))).isEqualTo(new Cost(0, 1));
    settle(dir);
    assertThat(cost(index, () -> writer.write(dir, claim("uid-new")))).isEqualTo(new Cost(1, 1));
    assertThat(cost(index, () -> writer.planWrite(dir, List.of(claim("uid-other"))))).isEqualTo(new Cost(0, 0));
    // A removal of ours is recorded the same way.
    assertThat(writer.remove(dir, claim("uid-0").fileName())).isTrue();
    settle(dir);
    assertThat(cost(index, () -> writer.planWrite(dir, List.of(claim("uid-0"))))).isEqualTo(new Cost(1, 0));
  }

  /**
   * Checks of many threads list the directory outside the index's lock and apply under it: each still
   * sees someone else's conflicting file and every file of ours, also those written during another's listing.
   */
  @Test
  void concurrentWritesAndChecksStillCatchEveryConflict(@TempDir Path dir) throws Exception {
    SpecFileIndex index = index(HOUR);
    CdiSpecWriter writer = writer(index);
    Files.writeString(dir.resolve("other.json"), othersSpec(writer, "uid-taken"));
    int threads = 8;
    int rounds = 25;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          for (int i = 0; i < rounds; i++) {
            writer.write(dir, claim("uid-" + thread + "-" + i));
            assertThatThrownBy(() -> writer.write(dir, claim("uid-taken"))).hasMessageContaining(conflictWith("uid-taken"));
            if (i % 5 == 4) {
              writer.remove(dir, claim("uid-" + thread + "-" + (i - 1)).fileName());
            }
          }
          return null;
        }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get(120, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    // Each file of ours that is there conflicts with another file that defines its names; a removed one does not.
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < rounds; i++) {
        CdiSpecFile ours = claim("uid-" + t + "-" + i);
        CdiSpecFile twin = new CdiSpecFile("twin.json", ours.spec(), ours.format());
        if (i % 5 == 3) {
          writer.planWrite(dir, List.of(twin));
        } else {
          assertThatThrownBy(() -> writer.planWrite(dir, List.of(twin))).as(ours.fileName())
              .hasMessageContaining(conflictWith("uid-" + t + "-" + i));
        }
      }
    }
  }

  /** A check that lists our spec between its rename and remember does not read it back; anyone else's new file it reads. */
  @Test
  void aSpecOfOursBeingRenamedIntoPlaceIsNotReadBackByAConcurrentCheck(@TempDir Path dir) throws Exception {
    SpecFileIndex index = index(HOUR);
    CdiSpecWriter writer = writer(index);
    writer.write(dir, claim("uid-1"));
    CdiSpecFile ours = claim("uid-2");
    index.writing(dir, ours.fileName());
    Files.writeString(dir.resolve(ours.fileName()), writer.renderText(ours)); // the rename, before remember
    Files.writeString(dir.resolve("other.json"), othersSpec(writer, "uid-3"));
    List<Path> read = new java.util.concurrent.CopyOnWriteArrayList<>();
    index.definers(dir, java.util.Set.of(), List.of("nodeatlas.io/claim=x"), file -> {
      read.add(file.getFileName());
      return java.util.Optional.of(othersSpecParsed(writer, file));
    });
    assertThat(read).containsExactly(Path.of("other.json"));
    index.remember(dir, ours.fileName(), ours.spec(), true);
    assertThatThrownBy(() -> writer.write(dir, new CdiSpecFile("twin.json", ours.spec(), ours.format())))
        .hasMessageContaining(conflictWith("uid-2"));
  }

  private static io.nodeatlas.cdi.spec.CdiSpec othersSpecParsed(CdiSpecWriter writer, Path file) {
    try {
      return new CdiSpecCodec().read(Files.readString(file));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aFileAddedBySomeoneElseIsSeenByTheNextCheck(@TempDir Path dir) throws Exception {
    CdiSpecWriter writer = writer(index(HOUR));
    writer.write(dir, claim("uid-1"));
    settle(dir);
    writer.planWrite(dir, List.of(claim("uid-2")));
    Files.writeString(dir.resolve("other.json"), othersSpec(writer, "uid-2"));
    assertThatThrownBy(() -> writer.write(dir, claim("uid-2"))).hasMessageContaining(conflictWith("uid-2"));
  }

  @Test
  void aFileAddedRightAfterOurOwnWriteIsSeenByTheNextCheck(@TempDir Path dir) throws Exception {
    CdiSpecWriter writer = writer(index(HOUR));
    writer.write(dir, claim("uid-1"));
    // No settling: on a kernel without fine-grained timestamps the directory's times may not move.
    Files.writeString(dir.resolve("other.json"), othersSpec(writer, "uid-2"));
    assertThatThrownBy(() -> writer.write(dir, claim("uid-2"))).hasMessageContaining(conflictWith("uid-2"));
  }

  @Test
  void aFileRemovedBySomeoneElseIsSeenByTheNextCheck(@TempDir Path dir) throws Exception {
    CdiSpecWriter writer = writer(index(HOUR));
    Path other = dir.resolve("other.json");
    Files.writeString(other, othersSpec(writer, "uid-2"));
    assertThatThrownBy(() -> writer.write(dir, claim("uid-2"))).hasMessageContaining(conflictWith("uid-2"));
    settle(dir, other);
    writer.planWrite(dir, List.of(claim("uid-3")));
    Files.delete(other);
    assertThat(writer.write(dir, claim("uid-2")).outcome()).isEqualTo(CdiSpecWriter.Outcome.WRITTEN);
  }

  @Test
  void aFileReplacedByRenameBySomeoneElseIsSeenByTheNextCheck(@TempDir Path dir) throws Exception {
    CdiSpecWriter writer = writer(index(HOUR));
    Path other = dir.resolve("other.json");
    Files.writeString(other, othersSpec(writer, "uid-9"));
    writer.write(dir, claim("uid-1"));
    settle(dir, other);
    writer.planWrite(dir, List.of(claim("uid-2")));
    Path temp = dir.resolve(".other.json.tmp");
    Files.writeString(temp, othersSpec(writer, "uid-2"));
    Files.move(temp, other, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    assertThatThrownBy(() -> writer.write(dir, claim("uid-2"))).hasMessageContaining(conflictWith("uid-2"));
  }

  @Test
  void aFileOfSomeoneElseRewrittenInPlaceIsSeenByTheNextCheck(@TempDir Path dir) throws Exception {
    SpecFileIndex index = index(HOUR);
    CdiSpecWriter writer = writer(index);
    Path other = dir.resolve("other.json");
    String harmless = othersSpec(writer, "uid-9");
    Files.writeString(other, harmless);
    writer.write(dir, claim("uid-1"));
    settle(dir, other);
    writer.planWrite(dir, List.of(claim("uid-2")));
    // Same inode, same size, the directory untouched: only the stat of the other writer's file shows it.
    Object inode = Files.getAttribute(other, "unix:ino");
    Files.writeString(other, harmless.replace("uid-9", "uid-2"));
    assertThat(Files.getAttribute(other, "unix:ino")).isEqualTo(inode);
    assertThat(cost(index, () -> assertThatThrownBy(() -> writer.write(dir, claim("uid-2")))
        .hasMessageContaining(conflictWith("uid-2")))).isEqualTo(new Cost(0, 1));
  }

  @Test
  void aFileOfSomeoneElseThatTurnsInvalidNoLongerConflictsAndOneThatTurnsValidAgainDoes(@TempDir Path dir)
      throws Exception {
    CdiSpecWriter writer = writer(index(HOUR));
    Path other = dir.resolve("other.json");
    String conflicting = othersSpec(writer, "uid-2");
    Files.writeString(other, conflicting);
    assertThatThrownBy(() -> writer.write(dir, claim("uid-2"))).hasMessageContaining(conflictWith("uid-2"));
    // A runtime skips an invalid file whole, so its devices cannot conflict.
    Files.writeString(other, "{ not json");
    assertThat(writer.planWrite(dir, List.of(claim("uid-2"))).writes()).hasSize(1);
    Files.writeString(other, conflicting);
    assertThatThrownBy(() -> writer.write(dir, claim("uid-2"))).hasMessageContaining(conflictWith("uid-2"));
  }

  @Test
  void ourFileRewrittenInPlaceBySomeoneElseIsSeenWithinTheRescanPeriod(@TempDir Path dir) throws Exception {
    Duration period = Duration.ofSeconds(5);
    SpecFileIndex index = index(period);
    CdiSpecWriter writer = writer(index);
    CdiSpecFile uid1 = claim("uid-1");
    writer.write(dir, uid1);
    writer.planWrite(dir, List.of(claim("uid-2")));
    // Someone edits our file to define claim uid-2's device too: the index trusts our own files between full scans.
    Path ours = dir.resolve(uid1.fileName());
    Files.writeString(ours, Files.readString(ours).replace("uid-1", "uid-2"));
    assertThat(writer.planWrite(dir, List.of(claim("uid-2"))).writes()).hasSize(1);
    clock.offset = period;
    assertThatThrownBy(() -> writer.write(dir, claim("uid-2"))).hasMessageContaining(conflictWith("uid-2"));
  }

  @Test
  void aStampWithinATickOfItsTimesIsRacy() {
    Instant t = Instant.parse("2026-11-28T20:00:00.123456789Z");
    SpecFileIndex.Stamp fine = new SpecFileIndex.Stamp("k", 0, FileTime.from(t), FileTime.from(t));
    assertThat(SpecFileIndex.isRacy(fine, t)).isTrue();
    assertThat(SpecFileIndex.isRacy(fine, t.plusMillis(19))).isTrue();
    assertThat(SpecFileIndex.isRacy(fine, t.plusMillis(20))).isFalse();
    assertThat(SpecFileIndex.isRacy(fine, t.minusSeconds(1))).as("taken before its times: the clock stepped").isTrue();
    // Whole seconds: a file system that keeps seconds only (or FAT's two), so the tick is 2 s.
    Instant s = Instant.parse("2026-11-28T20:00:00Z");
    SpecFileIndex.Stamp coarse = new SpecFileIndex.Stamp("k", 0, FileTime.from(s), FileTime.from(s));
    assertThat(SpecFileIndex.isRacy(coarse, s.plusMillis(1999))).isTrue();
    assertThat(SpecFileIndex.isRacy(coarse, s.plusSeconds(2))).isFalse();
    // The later of mtime and ctime counts; no ctime (no unix view) is never trusted.
    SpecFileIndex.Stamp changedLater = new SpecFileIndex.Stamp("k", 0, FileTime.from(t), FileTime.from(t.plusSeconds(5)));
    assertThat(SpecFileIndex.isRacy(changedLater, t.plusSeconds(5).plusMillis(10))).isTrue();
    assertThat(SpecFileIndex.isRacy(new SpecFileIndex.Stamp("k", 0, FileTime.from(t), null), t.plusSeconds(60))).isTrue();
  }

  @Test
  void aRacyDirectoryStampIsNotTrustedSoEveryCheckListsUntilItSettles(@TempDir Path dir) throws Exception {
    // A clock a second behind the file system's times: every stamp is taken "within a tick" of them.
    clock.offset = Duration.ofSeconds(-1);
    SpecFileIndex index = index(HOUR);
    CdiSpecWriter writer = writer(index);
    writer.write(dir, claim("uid-1"));
    writer.planWrite(dir, List.of(claim("uid-2")));
    for (int i = 0; i < 3; i++) {
      assertThat(cost(index, () -> writer.planWrite(dir, List.of(claim("uid-2"))))).isEqualTo(new Cost(1, 0));
    }
    clock.offset = Duration.ZERO;
    settle(dir);
    assertThat(cost(index, () -> writer.planWrite(dir, List.of(claim("uid-2"))))).isEqualTo(new Cost(1, 0));
    assertThat(cost(index, () -> writer.planWrite(dir, List.of(claim("uid-2"))))).isEqualTo(new Cost(0, 0));
  }

  @Test
  void aClockStepBackwardsForcesAFullScan(@TempDir Path dir) throws Exception {
    SpecFileIndex index = index(HOUR);
    CdiSpecWriter writer = writer(index);
    writer.write(dir, claim("uid-1"));
    writer.planWrite(dir, List.of(claim("uid-2")));
    clock.offset = Duration.ofMinutes(-10);
    assertThat(cost(index, () -> writer.planWrite(dir, List.of(claim("uid-2"))))).isEqualTo(new Cost(1, 1));
  }
}
