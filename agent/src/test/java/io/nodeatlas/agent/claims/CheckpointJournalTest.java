package io.nodeatlas.agent.claims;

import static io.nodeatlas.agent.claims.CheckpointTest.claim;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.discovery.files.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Format v3.0: a change appends its own line to the journal; the file is written whole only now and then. */
class CheckpointJournalTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper SORTED = JsonMapper.builder().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("checkpoint.json");
  }

  private Path journal(long generation) {
    return dir.resolve("checkpoint.json.journal-" + generation);
  }

  private static List<String> lines(Path journal) throws IOException {
    return Files.readAllLines(journal, StandardCharsets.UTF_8);
  }

  @Test
  void aChangeAppendsAndHashesOnlyItsOwnClaim() throws Exception {
    Checkpoint c = Checkpoint.open(file(), true);
    c.put(claim("a"));
    byte[] whole = Files.readAllBytes(file());
    assertThat(JSON.readTree(whole).at("/journal/generation").asLong()).isEqualTo(1);

    c.put(claim("b"));
    c.remove("a");

    assertThat(Files.readAllBytes(file())).as("the file is not written again").isEqualTo(whole);
    List<String> lines = lines(journal(1));
    assertThat(lines).hasSize(3);
    assertThat(JSON.readTree(lines.get(0)).get("kind").asText()).isEqualTo("nodeatlas.io/checkpoint-journal");
    JsonNode put = JSON.readTree(lines.get(1));
    assertThat(put.get("op").asText()).isEqualTo("put");
    assertThat(lines.get(1)).doesNotContain("c-a");
    assertThat(JSON.readTree(lines.get(2)).get("op").asText()).isEqualTo("remove");
    for (String line : lines) {
      // Each line's checksum is the SHA-256 of its other members, canonical, as any JSON tool redoes it.
      ObjectNode members = (ObjectNode) JSON.readTree(line);
      String stated = members.remove("checksum").asText();
      String canonical = SORTED.writeValueAsString(SORTED.treeToValue(members, Object.class));
      assertThat(stated).isEqualTo("sha256:" + HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8))));
    }
    assertThat(Checkpoint.open(file(), true).all()).containsExactly(claim("b"));
    // The whole state as one v2.3 document, for tools and tests that read the file.
    JsonNode document = JSON.readTree(Checkpoint.document(file()));
    assertThat(document.get("version").asText()).isEqualTo("v2.3");
    assertThat(document.get("claims").fieldNames()).toIterable().containsExactly("b");
  }

  @Test
  void concurrentChangesShareOneAppendAndOneFsync() throws Exception {
    int n = 8;
    List<Integer> appended = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch othersWaiting = new CountDownLatch(1);
    Checkpoint c = Checkpoint.open(file(), (f, content) -> AtomicFiles.write(f, content, AtomicFiles.OWNER_ONLY), (j, lines) -> {
      if (appended.isEmpty()) {
        // The first append waits until every other change is made in memory and waits for a commit.
        try {
          othersWaiting.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
      }
      appended.add(lines.size());
      j.append(lines);
    }, Checkpoint.JOURNAL_BYTES);
    c.put(claim("first-whole-write"));
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String uid = "u" + i;
        done.add(pool.submit(() -> {
          c.put(claim(uid));
          return null;
        }));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (c.pendingChanges() < n && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      othersWaiting.countDown();
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(appended.stream().mapToInt(Integer::intValue).sum()).isEqualTo(n);
    assertThat(appended).as("lines per append: the first alone, then everyone who waited meanwhile").hasSize(2);
    assertThat(Checkpoint.open(file(), true).all()).hasSize(n + 1);
  }

  @Test
  void aTornTailIsDroppedAndCutOffAndEveryAcknowledgedChangeRemains() throws Exception {
    Checkpoint c = Checkpoint.open(file(), true);
    c.put(claim("a"));
    c.put(claim("b"));
    c.put(claim("c"));
    // A power cut during the append of an unacknowledged change: half a line.
    String next = lines(journal(1)).get(1).replace("\"b\"", "\"d\"");
    Files.writeString(journal(1), next.substring(0, next.length() / 2), StandardOpenOption.APPEND);

    Checkpoint reopened = Checkpoint.open(file(), true);
    assertThat(reopened.all()).containsExactly(claim("a"), claim("b"), claim("c"));
    assertThat(reopened.droppedJournalLines()).isEqualTo(1);
    reopened.put(claim("e"));
    Checkpoint again = Checkpoint.open(file(), true);
    assertThat(again.all()).containsExactly(claim("a"), claim("b"), claim("c"), claim("e"));
    assertThat(again.droppedJournalLines()).isZero();
  }

  @Test
  void aDamagedLineEndsTheJournalAndIsCounted() throws Exception {
    Checkpoint c = Checkpoint.open(file(), true);
    c.put(claim("a"));
    c.put(claim("b"));
    c.put(claim("c"));
    List<String> lines = new ArrayList<>(lines(journal(1)));
    lines.set(1, lines.get(1).replace("gpu-0", "gpu-9"));
    Files.write(journal(1), (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));

    Checkpoint reopened = Checkpoint.open(file(), true);
    assertThat(reopened.all()).containsExactly(claim("a"));
    assertThat(reopened.droppedJournalLines()).isEqualTo(2);
  }

  @Test
  void theJournalIsFoldedIntoANewFileOnceItOutgrowsTheFile() throws Exception {
    Checkpoint c = Checkpoint.open(file(), (f, content) -> AtomicFiles.write(f, content, AtomicFiles.OWNER_ONLY),
        CheckpointJournal::append, 0);
    for (int i = 0; i < 40; i++) {
      c.put(claim(String.format("u%02d", i)));
      if (i % 3 == 0) {
        c.remove(String.format("u%02d", i / 2));
      }
    }
    long generation = JSON.readTree(Files.readAllBytes(file())).at("/journal/generation").asLong();
    assertThat(generation).as("whole writes").isGreaterThan(3);
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("checkpoint.json",
          "checkpoint.json.journal-" + generation);
    }
    assertThat(Checkpoint.open(file(), true).all()).containsExactlyElementsOf(c.all());
  }

  @Test
  void aJournalTheFileDoesNotNameIsRemovedAndAMissingOneStopsTheAgent() throws Exception {
    Checkpoint.open(file(), true).put(claim("a"));
    // A crash between creating the next journal and the whole write that would name it.
    Files.writeString(journal(2), "{\"stale\":true}\n");
    Checkpoint c = Checkpoint.open(file(), true);
    assertThat(journal(2)).doesNotExist();
    c.put(claim("b"));
    assertThat(Checkpoint.open(file(), true).all()).containsExactly(claim("a"), claim("b"));

    Files.delete(journal(1));
    assertThatThrownBy(() -> Checkpoint.open(file(), true)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("journal-1 is missing");
  }

  @Test
  void aLinkAtTheJournalsPathIsNeverFollowed() throws Exception {
    Checkpoint.open(file(), true).put(claim("a"));
    Path copy = Files.copy(journal(1), dir.resolve("elsewhere"));
    Files.delete(journal(1));
    Files.createSymbolicLink(journal(1), copy);
    assertThatThrownBy(() -> Checkpoint.open(file(), true)).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("symbolic link");
  }

  @Test
  void aFailedAppendIsTakenBackInMemoryAndOnDisk() throws Exception {
    boolean[] fail = {false, false};
    Checkpoint c = Checkpoint.open(file(), (f, content) -> AtomicFiles.write(f, content, AtomicFiles.OWNER_ONLY), (j, lines) -> {
      if (fail[0]) {
        throw new IOException("No space left on device");
      }
      if (fail[1]) {
        // Written, then neither made durable nor cut back: the journal can no longer be trusted.
        j.append(lines);
        throw new CheckpointJournal.Torn(j.file(), new IOException("Input/output error"));
      }
      j.append(lines);
    }, Checkpoint.JOURNAL_BYTES);
    c.put(claim("a"));
    fail[0] = true;
    assertThatThrownBy(() -> c.put(claim("x"))).isInstanceOf(IOException.class).hasMessageContaining("No space left");
    assertThat(c.get("x")).isEmpty();
    fail[0] = false;
    fail[1] = true;
    assertThatThrownBy(() -> c.put(claim("y"))).isInstanceOf(IOException.class).hasMessageContaining("Input/output error");
    assertThat(c.get("y")).isEmpty();
    fail[1] = false;
    // The next commit writes the whole file and a new journal, which no longer holds y.
    c.put(claim("b"));
    assertThat(JSON.readTree(Files.readAllBytes(file())).at("/journal/generation").asLong()).isEqualTo(2);
    assertThat(journal(1)).doesNotExist();
    assertThat(Checkpoint.open(file(), true).all()).containsExactly(claim("a"), claim("b"));
  }

  @Test
  void withoutAJournalTheFileIsTheWholeCheckpointOfVersion23() throws Exception {
    Checkpoint.open(file(), true).put(claim("a"));
    Checkpoint.open(file(), true).put(claim("b"));
    // Opened without a journal (as by default): it reads the journal, and its first commit folds it in.
    Checkpoint plain = Checkpoint.open(file());
    assertThat(plain.all()).containsExactly(claim("a"), claim("b"));
    plain.put(claim("c"));
    JsonNode written = JSON.readTree(Files.readAllBytes(file()));
    assertThat(written.get("version").asText()).isEqualTo("v2.3");
    assertThat(written.has("journal")).isFalse();
    assertThat(written.get("claims").size()).isEqualTo(3);
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("checkpoint.json");
    }
  }

  /** Any journal bytes either replay into claims, each line checked, or are reported as corrupt; nothing else escapes. */
  @FuzzTest
  void replayNeverThrowsAnythingElse(byte[] data) {
    if (data == null) {
      return;
    }
    CheckpointCodec codec = new CheckpointCodec();
    CheckpointCodec.Content snapshot = new CheckpointCodec.Content(CheckpointCodec.JOURNALED, new java.util.TreeMap<>(),
        new java.util.TreeMap<>(), CheckpointCodec.Boot.UNKNOWN, 1);
    try {
      CheckpointCodec.Replayed r = codec.replay(Path.of("fuzz.json"), snapshot, java.util.Optional.of(data));
      assertThat(r.journalBytes()).isBetween(0L, (long) data.length);
    } catch (CorruptCheckpointException expected) {
      // reported, as it should be
    }
  }
}
