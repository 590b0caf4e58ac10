package io.nodeatlas.discovery.accel.parse;

import java.util.Optional;

/**
 * The name of a DRM minor in {@code /sys/class/drm} and {@code /dev/dri}: the primary node
 * {@code card<N>} and the render node {@code renderD<N>} (kernel {@code Documentation/gpu/drm-uapi.rst},
 * "Render nodes"; {@code drivers/gpu/drm/drm_drv.c} names them {@code "card%d"} and
 * {@code "renderD%d"}). Every other entry there is something else: connectors ({@code card0-DP-1}),
 * the legacy control nodes ({@code controlD64}), the {@code version} file, {@code ttm}.
 */
public record DrmNodeName(Kind kind, int number) implements Comparable<DrmNodeName> {

  /** Primary node (modesetting, the legacy interface) or render node (unprivileged rendering and compute). */
  public enum Kind {
    CARD("card"),
    RENDER("renderD");

    private final String prefix;

    Kind(String prefix) {
      this.prefix = prefix;
    }

    public String prefix() {
      return prefix;
    }
  }

  public DrmNodeName {
    if (number < 0) {
      throw new IllegalArgumentException("negative DRM minor " + number);
    }
  }

  /** The node named {@code entry}, or empty for every other entry of {@code /sys/class/drm}. */
  public static Optional<DrmNodeName> of(String entry) {
    for (Kind kind : Kind.values()) {
      if (entry.startsWith(kind.prefix)) {
        String digits = entry.substring(kind.prefix.length());
        // "%d" never pads: card01 is not a node name. DRM minors are below 2^20 (dev_t).
        if (digits.isEmpty() || digits.length() > 7 || (digits.length() > 1 && digits.charAt(0) == '0')) {
          return Optional.empty();
        }
        for (int i = 0; i < digits.length(); i++) {
          if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
            return Optional.empty();
          }
        }
        return Optional.of(new DrmNodeName(kind, Integer.parseInt(digits)));
      }
    }
    return Optional.empty();
  }

  /** {@code card0}, {@code renderD128}. */
  public String name() {
    return kind.prefix + number;
  }

  /** Where the node lives on the host and in a container: {@code /dev/dri/renderD128}. */
  public String devPath() {
    return "/dev/dri/" + name();
  }

  /** Primary nodes first, then render nodes, each by number. */
  @Override
  public int compareTo(DrmNodeName o) {
    int c = kind.compareTo(o.kind);
    return c != 0 ? c : Integer.compare(number, o.number);
  }

  @Override
  public String toString() {
    return name();
  }
}
