package io.nodeatlas.discovery.gpu;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes {@code ld.so.cache} files for tests in glibc's layout ({@code sysdeps/generic/dl-cache.h}).
 * {@link LdSoCacheParserTest} has the real {@code ldconfig -p -C} list what this writes, so the
 * fixtures are caches glibc itself reads.
 */
final class LdSoCacheFile {

  static final int X86_64 = LdSoCacheParser.FLAG_ELF_LIBC6 | LdSoCacheParser.FLAG_X8664_LIB64;
  static final int AARCH64 = LdSoCacheParser.FLAG_ELF_LIBC6 | LdSoCacheParser.FLAG_AARCH64_LIB64;
  /** A 32-bit i386 glibc library: the libc6 type and no ABI bits. */
  static final int I386 = LdSoCacheParser.FLAG_ELF_LIBC6;

  private record Lib(byte[] soname, byte[] path, int flags) {}

  private final List<Lib> libs = new ArrayList<>();
  private boolean oldFormatFirst;
  private int endianFlag = 2;

  LdSoCacheFile lib(String soname, String path, int flags) {
    return lib(soname.getBytes(StandardCharsets.UTF_8), path.getBytes(StandardCharsets.UTF_8), flags);
  }

  LdSoCacheFile lib(byte[] soname, byte[] path, int flags) {
    libs.add(new Lib(soname, path, flags));
    return this;
  }

  /** Put an old-format ({@code ld.so-1.7.0}) table first, as glibc before 2.32 wrote by default. */
  LdSoCacheFile oldFormatFirst() {
    oldFormatFirst = true;
    return this;
  }

  LdSoCacheFile endianFlag(int flag) {
    endianFlag = flag;
    return this;
  }

  byte[] bytes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int newStart = 0;
    if (oldFormatFirst) {
      // The old table's string offsets are from the start of its string area; ldconfig points them at
      // the new table's strings. An empty old table is enough for the loader to go on to the new one.
      ByteBuffer old = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
      old.put(LdSoCacheParser.OLD_MAGIC.getBytes(StandardCharsets.US_ASCII)).put((byte) 0).putInt(0);
      out.writeBytes(old.array());
      newStart = 16;
    }
    int tableEnd = LdSoCacheParser.HEADER_BYTES + libs.size() * LdSoCacheParser.ENTRY_BYTES;
    ByteArrayOutputStream strings = new ByteArrayOutputStream();
    ByteBuffer table = ByteBuffer.allocate(tableEnd).order(ByteOrder.LITTLE_ENDIAN);
    table.put(LdSoCacheParser.NEW_MAGIC.getBytes(StandardCharsets.US_ASCII));
    table.putInt(20, libs.size());
    table.position(LdSoCacheParser.HEADER_BYTES);
    for (Lib lib : libs) {
      int key = tableEnd + strings.size();
      strings.writeBytes(lib.soname());
      strings.write(0);
      int value = tableEnd + strings.size();
      strings.writeBytes(lib.path());
      strings.write(0);
      table.putInt(lib.flags()).putInt(key).putInt(value).putInt(0).putLong(0);
    }
    table.putInt(24, strings.size());
    table.put(28, (byte) endianFlag);
    out.writeBytes(table.array());
    out.writeBytes(strings.toByteArray());
    assert out.size() == newStart + tableEnd + strings.size();
    return out.toByteArray();
  }
}
