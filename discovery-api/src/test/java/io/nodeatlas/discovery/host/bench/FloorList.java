package io.nodeatlas.discovery.host.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A bench/floor-reader.c list: one "F path" (a file to read) or "D path" (a directory to list) per line. */
record FloorList(List<Path> files, List<Path> dirs) {

  static FloorList read(Path list) throws IOException {
    List<Path> files = new ArrayList<>();
    List<Path> dirs = new ArrayList<>();
    for (String line : Files.readAllLines(list)) {
      if (line.startsWith("F ")) {
        files.add(Path.of(line.substring(2)));
      } else if (line.startsWith("D ")) {
        dirs.add(Path.of(line.substring(2)));
      }
    }
    return new FloorList(List.copyOf(files), List.copyOf(dirs));
  }
}
