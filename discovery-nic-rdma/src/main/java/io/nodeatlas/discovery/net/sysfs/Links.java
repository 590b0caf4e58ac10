package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFileException;
import java.nio.file.Path;

/** What the readers need beyond {@link FactReader#link}: telling "no link" from "a link refused". */
final class Links {

  private Links() {}

  /**
   * Whether {@code path} is a symlink. Asked only after {@link FactReader#link} came back empty, so
   * it costs nothing on the common path: empty plus a link means the link was refused (it points
   * outside the host root or cannot be read) and the reader has already said so.
   */
  static boolean isLink(FactReader facts, Path path) {
    try {
      return facts.fs().readLink(path).isPresent();
    } catch (HostFileException e) {
      return true;
    }
  }
}
