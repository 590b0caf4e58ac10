package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.accel.parse.PciIdsDatabase;
import io.nodeatlas.discovery.accel.parse.PciIdsDatabase.DeviceKey;
import io.nodeatlas.discovery.host.FactReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Product names from the host's PCI ids database, when it has one: {@code /usr/share/misc/pci.ids}
 * (Debian's {@code pci.ids} package, the path {@code lspci} reads) or {@code /usr/share/hwdata/pci.ids}
 * (the {@code hwdata} package of Fedora, RHEL and SUSE), under the host root. No database means no
 * names, silently: the ids themselves are always published. The file is read once per run, through
 * the {@link FactReader} (capped at {@link io.nodeatlas.discovery.host.HostFs#MAX_FILE_BYTES}), and
 * only for the devices that have no name of their own; see {@link PciIdsDatabase} for what is kept.
 */
final class PciIdsReader {

  static final List<String> LOCATIONS = List.of("usr/share/misc/pci.ids", "usr/share/hwdata/pci.ids");

  private final FactReader facts;

  PciIdsReader(FactReader facts) {
    this.facts = facts;
  }

  /** The names of {@code wanted} from the first database that can be read; empty when none can. */
  Map<DeviceKey, String> names(Set<DeviceKey> wanted) {
    if (wanted.isEmpty()) {
      return Map.of();
    }
    for (String location : LOCATIONS) {
      Path file = facts.fs().host(location);
      Optional<PciIdsDatabase.Names> names = facts.readText(file, text -> PciIdsDatabase.lookup(text, wanted));
      if (names.isPresent()) {
        if (names.get().malformedLines() > 0) {
          facts.warn(file, names.get().malformedLines() + " malformed line(s) passed over, the first is line "
              + names.get().firstMalformedLine());
        }
        return names.get().deviceNames();
      }
    }
    return Map.of();
  }
}
