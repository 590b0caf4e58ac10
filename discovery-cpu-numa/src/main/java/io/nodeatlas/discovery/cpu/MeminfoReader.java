package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.Meminfo;
import io.nodeatlas.discovery.cpu.parse.MeminfoParser;
import io.nodeatlas.discovery.host.FactReader;
import java.nio.file.Path;

/**
 * Reads a meminfo file key by key: a line without a key costs that line, a malformed value costs that
 * key, each with one warning naming the file; the other facts of the file still count.
 */
final class MeminfoReader {

  private MeminfoReader() {}

  /** {@code /proc/meminfo} (no key prefix) or a node's {@code meminfo} ({@link MeminfoParser#nodePrefix}). */
  static Meminfo read(FactReader in, Path file, String keyPrefix) {
    FactReader.KeyValues values = in.keyValues(file, keyPrefix);
    if (values.isEmpty()) {
      return Meminfo.EMPTY;
    }
    return MeminfoParser.assemble((key, parser) -> in.field(values, key, parser).orElse(null));
  }
}
