package io.nodeatlas.discovery.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {

  @TempDir Path dir;

  @Test
  void writesReplaceTheTargetWithExactlyTheGivenModeAndLeaveNoTemporaryFile() throws IOException {
    Path target = dir.resolve("checkpoint.json");
    AtomicFiles.write(target, "one".getBytes(StandardCharsets.UTF_8), AtomicFiles.OWNER_ONLY);
    AtomicFiles.write(target, "two".getBytes(StandardCharsets.UTF_8), AtomicFiles.OWNER_ONLY);
    assertThat(Files.readString(target)).isEqualTo("two");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rw-------");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactly(target);
    }
  }

  @Test
  void aSymlinkAtTheTargetIsReplacedNotFollowed() throws IOException {
    Path victim = Files.writeString(dir.resolve("victim"), "keep");
    Path target = dir.resolve("spec.json");
    Files.createSymbolicLink(target, victim);
    AtomicFiles.write(target, "new".getBytes(StandardCharsets.UTF_8), AtomicFiles.WORLD_READABLE);
    assertThat(Files.readString(victim)).isEqualTo("keep");
    assertThat(Files.isSymbolicLink(target)).isFalse();
    assertThat(Files.readString(target)).isEqualTo("new");
  }

  @Test
  void aMissingDirectoryIsRefused() {
    assertThatThrownBy(() -> AtomicFiles.write(dir.resolve("no/such/file"), new byte[0], AtomicFiles.OWNER_ONLY))
        .hasMessageContaining("is not a directory");
  }

  @Test
  void staleTemporaryFilesOfOursAreRemovedAndOthersAreKept() throws IOException {
    Path ours = Files.writeString(dir.resolve(".nodeatlas.io-gpu.json" + AtomicFiles.TEMP_MARKER + "0a1b2c"), "{");
    Path theirs = Files.writeString(dir.resolve(".nvidia.com-gpu.json" + AtomicFiles.TEMP_MARKER + "0a1b2c"), "{");
    Path spec = Files.writeString(dir.resolve("nodeatlas.io-gpu.json"), "{}");
    assertThat(AtomicFiles.removeStaleTemps(dir, "nodeatlas.io-")).containsExactly(ours);
    assertThat(theirs).exists();
    assertThat(spec).exists();
    assertThat(Files.exists(ours, LinkOption.NOFOLLOW_LINKS)).isFalse();
  }
}
