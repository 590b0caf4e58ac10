package io.nodeatlas.discovery.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {

  @TempDir Path dir;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private java.util.List<String> names() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void replacesTheFileWithTheGivenModeAndLeavesNoTemporaryFile() throws Exception {
    Path target = dir.resolve("state.json");
    AtomicFiles.write(target, bytes("one"), AtomicFiles.OWNER_ONLY);
    AtomicFiles.write(target, bytes("two"), AtomicFiles.OWNER_ONLY);
    assertThat(Files.readString(target)).isEqualTo("two");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rw-------");
    AtomicFiles.write(target, bytes("three"), AtomicFiles.WORLD_READABLE);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rw-r--r--");
    assertThat(names()).containsExactly("state.json");
  }

  @Test
  void aLinkAtTheTargetIsReplacedNotWrittenThrough() throws Exception {
    Path victim = Files.writeString(dir.resolve("victim"), "precious");
    Path target = Files.createSymbolicLink(dir.resolve("state.json"), victim);
    AtomicFiles.write(target, bytes("ours"), AtomicFiles.OWNER_ONLY);
    assertThat(Files.isSymbolicLink(target)).isFalse();
    assertThat(Files.readString(target)).isEqualTo("ours");
    assertThat(Files.readString(victim)).isEqualTo("precious");
  }

  @Test
  void aLinkPlantedAtTheTemporaryNameFailsTheWriteAndIsNotFollowed() throws Exception {
    Path victim = Files.writeString(dir.resolve("victim"), "precious");
    Path target = Files.writeString(dir.resolve("state.json"), "old");
    Path planted = Files.createSymbolicLink(dir.resolve(".state.json" + AtomicFiles.TEMP_MARKER + "fixed"), victim);

    assertThatThrownBy(() -> AtomicFiles.write(target, bytes("new"), AtomicFiles.OWNER_ONLY, "fixed"))
        .isInstanceOf(IOException.class).hasMessageContaining("already exists");

    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(Files.readString(target)).isEqualTo("old");
    assertThat(Files.isSymbolicLink(planted)).as("someone else's file is left alone").isTrue();
  }

  @Test
  void replaceWithoutFsyncKeepsTheRenameGuarantees() throws Exception {
    Path victim = Files.writeString(dir.resolve("victim"), "precious");
    Path target = Files.createSymbolicLink(dir.resolve("spec.json"), victim);
    AtomicFiles.replace(target, bytes("one"), AtomicFiles.WORLD_READABLE);
    assertThat(Files.isSymbolicLink(target)).as("a link at the target is replaced, not written through").isFalse();
    assertThat(Files.readString(victim)).isEqualTo("precious");
    AtomicFiles.replace(target, bytes("two"), AtomicFiles.WORLD_READABLE);
    assertThat(Files.readString(target)).isEqualTo("two");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rw-r--r--");
    assertThat(names()).containsExactly("spec.json", "victim");

    Path planted = Files.createSymbolicLink(dir.resolve(".spec.json" + AtomicFiles.TEMP_MARKER + "fixed"), victim);
    assertThatThrownBy(() -> AtomicFiles.replace(target, bytes("three"), AtomicFiles.WORLD_READABLE, "fixed"))
        .isInstanceOf(IOException.class).hasMessageContaining("already exists");
    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(Files.readString(target)).isEqualTo("two");
    assertThat(Files.isSymbolicLink(planted)).isTrue();
  }

  @Test
  void aDirectoryThatIsALinkIsRefused() throws Exception {
    Path real = Files.createDirectory(dir.resolve("real"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), real);
    assertThatThrownBy(() -> AtomicFiles.write(link.resolve("x.json"), bytes("x"), AtomicFiles.OWNER_ONLY))
        .isInstanceOf(IOException.class).hasMessageContaining("is not a directory");
    assertThat(real).isEmptyDirectory();
  }

  @Test
  void staleTemporaryFilesOfTheChosenTargetsAreRemovedAndNothingElse() throws Exception {
    Files.writeString(dir.resolve(".a.json" + AtomicFiles.TEMP_MARKER + "1"), "partial");
    Files.writeString(dir.resolve(".a-claim_1.json" + AtomicFiles.TEMP_MARKER + "2"), "partial");
    Files.writeString(dir.resolve(".b.json" + AtomicFiles.TEMP_MARKER + "3"), "partial");
    Files.writeString(dir.resolve(".a.json.tmp"), "not ours");
    Files.writeString(dir.resolve("a.json"), "kept");

    assertThat(AtomicFiles.removeStaleTemps(dir, name -> name.startsWith("a") && !name.startsWith("a-claim_")))
        .extracting(p -> p.getFileName().toString()).containsExactly(".a.json" + AtomicFiles.TEMP_MARKER + "1");
    assertThat(AtomicFiles.removeStaleTemps(dir, "b")).hasSize(1);
    assertThat(names()).containsExactly(".a-claim_1.json" + AtomicFiles.TEMP_MARKER + "2", ".a.json.tmp", "a.json");
  }

  /**
   * Issue 35 item 8: a delete goes through a handle on the directory opened without following a link,
   * as a write refuses a linked directory: never the same name wherever a swapped-in link points.
   */
  @Test
  void deleteRefusesADirectorySwappedForALinkAndRemovesALinkAtTheFilesName() throws Exception {
    Path real = Files.createDirectories(dir.resolve("cdi.real"));
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Path victim = Files.writeString(elsewhere.resolve("spec.json"), "theirs");
    Path cdi = Files.createSymbolicLink(dir.resolve("cdi"), elsewhere);
    assertThatThrownBy(() -> AtomicFiles.delete(cdi.resolve("spec.json"))).isInstanceOf(IOException.class)
        .hasMessageContaining("is a symbolic link");
    assertThatThrownBy(() -> AtomicFiles.write(cdi.resolve("spec.json"), bytes("ours"), AtomicFiles.WORLD_READABLE))
        .isInstanceOf(IOException.class);
    assertThat(victim).hasContent("theirs");

    // In a real directory: a link at the file's name is removed itself, its target kept.
    Files.createSymbolicLink(real.resolve("spec.json"), victim);
    assertThat(AtomicFiles.delete(real.resolve("spec.json"))).isTrue();
    assertThat(real.resolve("spec.json")).doesNotExist();
    assertThat(victim).hasContent("theirs");
    Files.writeString(real.resolve("spec.json"), "ours");
    assertThat(AtomicFiles.delete(real.resolve("spec.json"))).isTrue();
    assertThat(AtomicFiles.delete(real.resolve("spec.json"))).isFalse();
    assertThat(AtomicFiles.delete(dir.resolve("gone").resolve("spec.json"))).isFalse();
  }
}
