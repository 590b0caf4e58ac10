package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.gpu.LdSoCacheParser.Entry;
import io.nodeatlas.discovery.gpu.LdSoCacheParser.LdSoCache;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * glibc's {@code ld.so.cache}: read as glibc's own {@code ldconfig -p} reads it, on this machine's
 * real cache and on the files the tests write; hostile files cost an entry or the file, never more.
 */
class LdSoCacheParserTest {

  /** {@code \tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1}, one line per entry. */
  private static final Pattern LISTED = Pattern.compile("\\t(\\S+) \\((.*)\\) => (.+)");

  /** The entries {@code ldconfig -p -C file} lists, in its order: (SONAME, path). */
  private static List<List<String>> ldconfigList(Path cache) throws IOException, InterruptedException {
    Path ldconfig = Stream.of("/sbin/ldconfig", "/usr/sbin/ldconfig").map(Path::of).filter(Files::isExecutable)
        .findFirst().orElseThrow(() -> new AssertionError("glibc's ldconfig is not at /sbin or /usr/sbin"));
    Process p = new ProcessBuilder(ldconfig.toString(), "-p", "-C", cache.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    List<List<String>> listed = new ArrayList<>();
    for (String line : out.lines().toList()) {
      Matcher m = LISTED.matcher(line);
      if (m.matches()) {
        listed.add(List.of(m.group(1), m.group(3)));
      }
    }
    return listed;
  }

  private static List<List<String>> pairs(LdSoCache cache) {
    return cache.entries().stream().map(e -> List.of(e.soname(), e.path())).toList();
  }

  @Test
  void thisMachinesCacheReadsAsLdconfigListsIt() throws Exception {
    Path real = Path.of("/etc/ld.so.cache");
    LdSoCache cache = LdSoCacheParser.parse(Files.readAllBytes(real));
    assertThat(cache.entries()).as("a glibc system with gcc has libraries in its cache").isNotEmpty();
    assertThat(cache.skipped()).isZero();
    assertThat(pairs(cache)).isEqualTo(ldconfigList(real));
    // libc itself is there for this JVM's architecture.
    int flags = LdSoCacheParser.libc6Flags(System.getProperty("os.arch"));
    assertThat(cache.findLibrary("libc", flags)).isNotEmpty()
        .allSatisfy(e -> assertThat(Path.of(e.path())).exists());
  }

  @Test
  void theTestWritersFilesAreCachesGlibcReads(@TempDir Path dir) throws Exception {
    LdSoCacheFile writer = new LdSoCacheFile()
        .lib("libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1", LdSoCacheFile.X86_64)
        .lib("libcuda.so.1", "/lib/libcuda.so.1", LdSoCacheFile.X86_64)
        .lib("libcuda.so.1", "/usr/lib32/libcuda.so.1", LdSoCacheFile.I386)
        .lib("libnvidia-ml.so.1", "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1", LdSoCacheFile.AARCH64);
    for (byte[] bytes : List.of(writer.bytes(), writer.oldFormatFirst().bytes())) {
      Path file = Files.write(dir.resolve("ld.so.cache"), bytes);
      LdSoCache cache = LdSoCacheParser.parse(bytes);
      assertThat(pairs(cache)).isEqualTo(ldconfigList(file)).hasSize(4);
    }
  }

  @Test
  void findKeepsTheLoadersOrderAndOnlyTheAskedAbi() {
    LdSoCache cache = LdSoCacheParser.parse(new LdSoCacheFile()
        .lib("libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1", LdSoCacheFile.X86_64)
        .lib("libcuda.so.1", "/usr/lib32/libcuda.so.1", LdSoCacheFile.I386)
        .lib("libcuda.so", "/usr/lib/libcuda.so", LdSoCacheFile.X86_64)
        .lib("libcuda.so.1", "/lib/libcuda.so.1", LdSoCacheFile.X86_64)
        .lib("libcuda.so.1", "/usr/lib/aarch64-linux-gnu/libcuda.so.1", LdSoCacheFile.AARCH64)
        .lib("libnvidia-nvvm.so.4", "/usr/lib/x86_64-linux-gnu/libnvidia-nvvm.so.4", LdSoCacheFile.X86_64)
        .lib("libnvidia-gpucomp.so.580.159.04", "/usr/lib/x86_64-linux-gnu/libnvidia-gpucomp.so.580.159.04",
            LdSoCacheFile.X86_64)
        .lib("libcudadebugger.so.1", "/usr/lib/x86_64-linux-gnu/libcudadebugger.so.1", LdSoCacheFile.X86_64)
        .bytes());
    assertThat(cache.findLibrary("libcuda", LdSoCacheParser.libc6Flags("amd64"))).extracting(Entry::directory)
        .as("not the unversioned libcuda.so, not libcudadebugger").containsExactly("/usr/local/nvidia/lib64", "/lib");
    assertThat(cache.findLibrary("libcuda", LdSoCacheParser.libc6Flags("aarch64"))).extracting(Entry::path)
        .containsExactly("/usr/lib/aarch64-linux-gnu/libcuda.so.1");
    assertThat(cache.findLibrary("libnvidia-nvvm", LdSoCacheFile.X86_64)).extracting(Entry::soname)
        .containsExactly("libnvidia-nvvm.so.4");
    assertThat(cache.findLibrary("libnvidia-gpucomp", LdSoCacheFile.X86_64)).extracting(Entry::soname)
        .containsExactly("libnvidia-gpucomp.so.580.159.04");
    assertThat(LdSoCacheParser.libc6Flags("x86_64")).isEqualTo(LdSoCacheParser.libc6Flags("amd64"));
    assertThat(cache.findLibrary("libcuda", LdSoCacheParser.libc6Flags("ppc64le"))).isEmpty();
    assertThat(LdSoCacheParser.libc6Flags("ppc64le")).isEqualTo(0x0503);
    // An architecture the driver is not built for matches nothing, not the flag-less old entries.
    LdSoCache old = LdSoCacheParser.parse(new LdSoCacheFile().lib("libcuda.so.1", "/lib/libcuda.so.1", 0).bytes());
    assertThat(old.findLibrary("libcuda", LdSoCacheParser.libc6Flags("riscv64"))).isEmpty();
  }

  @Test
  void aBadEntryCostsThatEntry() {
    byte[] notUtf8 = {'/', 'l', 'i', 'b', '/', (byte) 0xff, 'x'};
    LdSoCache cache = LdSoCacheParser.parse(new LdSoCacheFile()
        .lib("libcuda.so.1", "lib/libcuda.so.1", LdSoCacheFile.X86_64)            // relative
        .lib("libcuda.so.1", "/lib/../etc/libcuda.so.1", LdSoCacheFile.X86_64)    // climbs
        .lib("libcuda.so.1", "/lib//libcuda.so.1", LdSoCacheFile.X86_64)          // empty segment
        .lib("libcuda.so.1", "/lib/libcuda\n.so.1", LdSoCacheFile.X86_64)         // control character
        .lib("lib/cuda.so.1", "/lib/libcuda.so.1", LdSoCacheFile.X86_64)          // a slash in the SONAME
        .lib("libcuda.so.1".getBytes(StandardCharsets.US_ASCII), notUtf8, LdSoCacheFile.X86_64)
        .lib("libcuda.so.1", "/lib/" + "x".repeat(LdSoCacheParser.MAX_PATH_BYTES), LdSoCacheFile.X86_64)
        .lib("libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", LdSoCacheFile.X86_64)
        .bytes());
    assertThat(cache.skipped()).isEqualTo(7);
    assertThat(cache.entries()).extracting(Entry::path).containsExactly("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  }

  @Test
  void anOffsetOutOfTheFileOrAStringWithoutItsNulCostsTheEntry() {
    byte[] file = new LdSoCacheFile()
        .lib("libcuda.so.1", "/lib/libcuda.so.1", LdSoCacheFile.X86_64)
        .lib("libnvidia-ml.so.1", "/lib/libnvidia-ml.so.1", LdSoCacheFile.X86_64)
        .bytes();
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int first = LdSoCacheParser.HEADER_BYTES;
    b.putInt(first + 8, Integer.MAX_VALUE); // value far past the end
    byte[] cut = java.util.Arrays.copyOf(file, file.length - 1); // the last path loses its NUL
    assertThat(LdSoCacheParser.parse(file).skipped()).isEqualTo(1);
    LdSoCache both = LdSoCacheParser.parse(cut);
    assertThat(both.skipped()).isEqualTo(2);
    assertThat(both.entries()).isEmpty();
  }

  @Test
  void aFileThatIsNotANewFormatCacheIsNotUnderstoodWithTheReason() {
    assertThatThrownBy(() -> LdSoCacheParser.parse(new byte[0])).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a glibc ld.so.cache (no glibc-ld.so.cache1.1 header)");
    assertThatThrownBy(() -> LdSoCacheParser.parse("glibc-ld.so.cache1.1".getBytes(StandardCharsets.US_ASCII)))
        .hasMessage("truncated: 20 bytes of a 48-byte header");
    byte[] oldOnly = ByteBuffer.allocate(16 + 12).order(ByteOrder.LITTLE_ENDIAN)
        .put("ld.so-1.7.0".getBytes(StandardCharsets.US_ASCII)).put((byte) 0).putInt(1).array();
    assertThatThrownBy(() -> LdSoCacheParser.parse(oldOnly))
        .hasMessage("an old-format (ld.so-1.7.0) cache only; run ldconfig to write glibc-ld.so.cache1.1");
    assertThatThrownBy(() -> LdSoCacheParser.parse(new LdSoCacheFile().endianFlag(3).bytes()))
        .hasMessage("not a little-endian cache (byte-order flag 3)");
    byte[] tooMany = new LdSoCacheFile().lib("libcuda.so.1", "/lib/libcuda.so.1", LdSoCacheFile.X86_64).bytes();
    ByteBuffer.wrap(tooMany).order(ByteOrder.LITTLE_ENDIAN).putInt(20, -1);
    assertThatThrownBy(() -> LdSoCacheParser.parse(tooMany))
        .hasMessage("4294967295 entries do not fit in " + tooMany.length + " bytes");
    // A cache of glibc before 2.32 wrote the byte-order flag as 0: read as this machine's order.
    assertThat(LdSoCacheParser.parse(new LdSoCacheFile().endianFlag(0)
        .lib("libcuda.so.1", "/lib/libcuda.so.1", LdSoCacheFile.X86_64).bytes()).entries()).hasSize(1);
  }
}
