package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.files.BoundedText;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * glibc's {@code /etc/ld.so.cache}, the index the dynamic loader searches before its system
 * directories: which file answers a SONAME such as {@code libcuda.so.1}. The driver's libraries live
 * wherever its installer put them ({@code /usr/lib/x86_64-linux-gnu} from packages,
 * {@code /usr/lib64} on RHEL, {@code /usr/local/nvidia/lib64} or plain {@code /usr/lib} from other
 * installers), and the cache, written by {@code ldconfig}, is what names them; NVIDIA's container
 * toolkit and libnvidia-container look libraries up the same way.
 *
 * <p>The layout is glibc's {@code sysdeps/generic/dl-cache.h}, format {@code glibc-ld.so.cache1.1}
 * (the only one ldconfig writes since glibc 2.32; older files put the same table after an
 * {@code ld.so-1.7.0} one, which is skipped): a 48-byte header ({@code nlibs} at 20,
 * {@code len_strings} at 24, the byte-order flag at 28), then {@code nlibs} entries of 24 bytes
 * ({@code int32 flags, uint32 key, uint32 value, uint32 osversion, uint64 hwcap}) whose key (the
 * SONAME) and value (the file) are offsets of NUL-terminated strings from the start of the header.
 *
 * <p>The file is host input: every count and offset is checked against the file's length, a string
 * is at most {@link #MAX_PATH_BYTES} and must be UTF-8, and a path must be absolute and normalised.
 * A bad header makes the whole file not understood ({@link IllegalArgumentException}); a bad entry
 * costs that entry ({@link LdSoCache#skipped()}).
 */
final class LdSoCacheParser {

  static final String NEW_MAGIC = "glibc-ld.so.cache1.1";
  static final String OLD_MAGIC = "ld.so-1.7.0";
  static final int HEADER_BYTES = 48;
  static final int ENTRY_BYTES = 24;
  static final int OLD_ENTRY_BYTES = 12;
  /** {@code PATH_MAX}: no longer path can be opened. */
  static final int MAX_PATH_BYTES = 4096;

  /** {@code FLAG_ELF_LIBC6}: an ELF library for glibc (the type byte of an entry's flags). */
  static final int FLAG_ELF_LIBC6 = 0x0003;
  /** {@code FLAG_X8664_LIB64}: the x86-64 ABI (the required-ABI byte; 32-bit i386 entries have none). */
  static final int FLAG_X8664_LIB64 = 0x0300;
  /** {@code FLAG_AARCH64_LIB64}: the AArch64 ABI. */
  static final int FLAG_AARCH64_LIB64 = 0x0a00;
  /** {@code FLAG_POWERPC_LIB64}: the 64-bit POWER ABI. */
  static final int FLAG_POWERPC_LIB64 = 0x0500;

  /** The byte-order values of the header's flags ({@code cache_file_new_flags_endian_*}). */
  private static final int ENDIAN_UNSET = 0;
  private static final int ENDIAN_LITTLE = 2;

  /** One library: its SONAME, the file the loader opens for it, and glibc's flags for its ABI. */
  record Entry(String soname, String path, int flags) {
    /** The directory of {@link #path}, absolute, without a trailing slash. */
    String directory() {
      int slash = path.lastIndexOf('/');
      return slash == 0 ? "/" : path.substring(0, slash);
    }
  }

  /** The cache's libraries in the file's order (the loader's order), and how many entries were bad. */
  record LdSoCache(List<Entry> entries, int skipped) {
    LdSoCache {
      entries = List.copyOf(entries);
    }

    /**
     * The files of one library whatever its SONAME's version ({@code libcuda} answers
     * {@code libcuda.so.1}, {@code libnvidia-nvvm} {@code libnvidia-nvvm.so.4} and
     * {@code libnvidia-gpucomp} its {@code .so.<driver version>}), in the loader's order.
     */
    List<Entry> findLibrary(String library, int flags) {
      if (flags == 0) {
        return List.of();
      }
      String prefix = library + ".so.";
      return entries.stream().filter(e -> e.flags() == flags && e.soname().startsWith(prefix)).toList();
    }
  }

  /** The flags of this JVM's architecture: the driver libraries that matter are those JNA can load. */
  static final int THIS_JVM = libc6Flags(System.getProperty("os.arch", ""));

  private LdSoCacheParser() {}

  /**
   * The flags of 64-bit glibc libraries for a JVM {@code os.arch} ({@code amd64}, {@code x86_64},
   * {@code aarch64}, {@code ppc64le}: the architectures NVIDIA's Linux driver ships for); 0, which
   * {@link LdSoCache#findLibrary} matches nothing with, for any other.
   */
  static int libc6Flags(String osArch) {
    return switch (osArch) {
      case "amd64", "x86_64" -> FLAG_ELF_LIBC6 | FLAG_X8664_LIB64;
      case "aarch64", "arm64" -> FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64;
      case "ppc64le" -> FLAG_ELF_LIBC6 | FLAG_POWERPC_LIB64;
      default -> 0;
    };
  }

  static LdSoCache parse(byte[] file) {
    int start = newHeaderStart(file);
    ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int endian = file[start + 28] & 0x3;
    if (endian != ENDIAN_UNSET && endian != ENDIAN_LITTLE) {
      throw new IllegalArgumentException("not a little-endian cache (byte-order flag " + endian + ")");
    }
    long nlibs = Integer.toUnsignedLong(in.getInt(start + 20));
    long tableEnd = start + HEADER_BYTES + nlibs * ENTRY_BYTES;
    if (tableEnd > file.length) {
      throw new IllegalArgumentException(nlibs + " entries do not fit in " + file.length + " bytes");
    }
    List<Entry> entries = new ArrayList<>();
    int skipped = 0;
    for (int i = 0; i < nlibs; i++) {
      int at = start + HEADER_BYTES + i * ENTRY_BYTES;
      int flags = in.getInt(at);
      String soname = string(file, start, in.getInt(at + 4));
      String path = string(file, start, in.getInt(at + 8));
      if (soname == null || path == null || !validSoname(soname) || !validPath(path)) {
        skipped++;
        continue;
      }
      entries.add(new Entry(soname, path, flags));
    }
    return new LdSoCache(entries, skipped);
  }

  /** Where the new-format header starts: 0, or after an old-format table when the file has both. */
  private static int newHeaderStart(byte[] file) {
    if (startsWith(file, 0, NEW_MAGIC)) {
      return requireHeader(file, 0);
    }
    if (startsWith(file, 0, OLD_MAGIC) && file.length >= 16) {
      // struct cache_file: magic[11], nlibs at 12 (aligned), 12-byte entries; the new header follows,
      // aligned to 8 (ALIGN_CACHE, the alignment of the new header's 64-bit hwcap field).
      long nlibs = Integer.toUnsignedLong(ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getInt(12));
      long next = (16 + nlibs * OLD_ENTRY_BYTES + 7) & ~7L;
      if (next < file.length && startsWith(file, (int) next, NEW_MAGIC)) {
        return requireHeader(file, (int) next);
      }
      throw new IllegalArgumentException("an old-format (" + OLD_MAGIC + ") cache only; run ldconfig to write "
          + NEW_MAGIC);
    }
    throw new IllegalArgumentException("not a glibc ld.so.cache (no " + NEW_MAGIC + " header)");
  }

  private static int requireHeader(byte[] file, int start) {
    if (file.length - start < HEADER_BYTES) {
      throw new IllegalArgumentException("truncated: " + (file.length - start) + " bytes of a " + HEADER_BYTES
          + "-byte header");
    }
    return start;
  }

  private static boolean startsWith(byte[] file, int at, String magic) {
    byte[] m = magic.getBytes(StandardCharsets.US_ASCII);
    return file.length - at >= m.length && Arrays.equals(file, at, at + m.length, m, 0, m.length);
  }

  /** The NUL-terminated UTF-8 string at {@code start + offset}; null when out of the file, unended or too long. */
  private static String string(byte[] file, int start, int offset) {
    long from = start + Integer.toUnsignedLong(offset);
    if (from >= file.length) {
      return null;
    }
    int end = (int) from;
    int limit = (int) Math.min(file.length, from + MAX_PATH_BYTES + 1);
    boolean ascii = true;
    while (end < limit && file[end] != 0) {
      ascii &= file[end] > 0;
      end++;
    }
    if (end == limit) {
      return null;
    }
    if (ascii) {
      // Nearly every name is ASCII: no decoder needed (a cache can hold 100,000 of them).
      return new String(file, (int) from, end - (int) from, StandardCharsets.US_ASCII);
    }
    try {
      return BoundedText.utf8(Arrays.copyOfRange(file, (int) from, end));
    } catch (BoundedText.TextException e) {
      return null;
    }
  }

  /** A file name without a slash, of printable ASCII: the SONAMEs ldconfig records. */
  private static boolean validSoname(String soname) {
    return !soname.isEmpty() && soname.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '/');
  }

  /** An absolute path without {@code .}, {@code ..} or empty segments and without control characters. */
  static boolean validPath(String path) {
    if (!path.startsWith("/") || path.endsWith("/") || path.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      return false;
    }
    for (String segment : path.substring(1).split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        return false;
      }
    }
    return true;
  }
}
