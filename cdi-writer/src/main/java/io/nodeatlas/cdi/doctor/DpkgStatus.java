package io.nodeatlas.cdi.doctor;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The installed versions of some packages, from dpkg's status file (deb822 stanzas, dpkg(1)). */
final class DpkgStatus {

  private DpkgStatus() {}

  static Map<String, String> installed(String status, List<String> wanted) {
    Map<String, String> out = new HashMap<>();
    String pkg = null;
    String version = null;
    boolean installed = false;
    for (String line : (status + "\n\n").split("\n", -1)) {
      if (line.isBlank()) {
        if (pkg != null && version != null && installed && wanted.contains(pkg)) {
          out.put(pkg, version);
        }
        pkg = null;
        version = null;
        installed = false;
      } else if (line.startsWith("Package: ")) {
        pkg = line.substring(9).trim();
      } else if (line.startsWith("Version: ")) {
        version = line.substring(9).trim();
      } else if (line.startsWith("Status: ")) {
        installed = line.trim().endsWith(" installed");
      }
    }
    return out;
  }
}
