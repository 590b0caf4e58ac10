package io.nodeatlas.cli.discover;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31: in discover's text outputs an unavailable source is said once, as unavailable and not as a
 * failure, and sizes read as people write them ({@code 79.6Gi}); JSON keeps the exact bytes.
 */
class TextOutputTest {

  static final String HGX = Repo.root().resolve("examples/nodes/hgx-01.json").toString();

  @TempDir Path dir;

  private static int occurrences(String text, String what) {
    return (int) Pattern.compile(Pattern.quote(what)).matcher(text).results().count();
  }

  @Test
  void anUnavailableSourceIsSaidOnceAndIsNoFailure() throws Exception {
    // A host without /sys/class/drm: the accel source is unavailable, which is no failure.
    Path sys = Files.createDirectories(dir.resolve("sys"));
    for (String format : new String[] {"table", "tree"}) {
      Result r = NodeAtlasRun.run("discover", "--sources", "accel", "--sysfs-root", sys.toString(), "-o", format);
      assertThat(r.status()).as(format + ": " + r.err()).isZero();
      assertThat(r.err()).as(format).isEmpty();
      assertThat(occurrences(r.out(), "does not exist")).as(format + ":\n" + r.out()).isEqualTo(1);
      assertThat(r.out()).as(format).containsPattern("accel +unavailable +/sys/class/drm does not exist")
          .doesNotContain("source unavailable").doesNotContain("failed");
    }
  }

  @Test
  void sizesReadAsPeopleWriteThemInTextAndExactInJson() {
    Result table = NodeAtlasRun.run("discover", "--discovered", HGX, "-o", "table");
    assertThat(table.status()).as(table.err()).isZero();
    assertThat(table.out()).containsPattern("\\n0 +0-31,64-95 +512Gi +480Gi ")
        .containsPattern("gpu-0 .* memory=79\\.6Gi\\n")
        .containsPattern("hugepages-2mi-numa0 .* memory=8Gi\\n")
        .containsPattern("hugepages-1gi-numa0 .* memory=16Gi\\n")
        .doesNotContain("85520809984").doesNotContain("Ki ");
    Result json = NodeAtlasRun.run("discover", "--discovered", HGX, "-o", "json");
    assertThat(json.out()).contains("\"nodeatlas.io/memory\" : \"85520809984\"");
  }
}
