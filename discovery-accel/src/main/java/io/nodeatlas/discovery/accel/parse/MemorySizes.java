package io.nodeatlas.discovery.accel.parse;

import io.nodeatlas.discovery.host.Excerpt;
import java.util.List;

/**
 * Memory sizes in bytes as the GPU drivers print them: {@code amdgpu}'s {@code mem_info_vram_total}
 * and {@code mem_info_vis_vram_total} ({@code "%llu\n"}, kernel {@code Documentation/gpu/amdgpu/driver-misc.rst},
 * {@code drivers/gpu/drm/amd/amdgpu/amdgpu_vram_mgr.c}) and {@code xe}'s per-tile
 * {@code physical_vram_size_bytes} ({@code "%llu\n"}, {@code drivers/gpu/drm/xe/xe_tile_sysfs.c}).
 */
public final class MemorySizes {

  private MemorySizes() {}

  /**
   * A size in bytes: an unsigned decimal that fits a signed 64-bit quantity. Zero means the device
   * has no such memory (an APU without carve-out), which is an absent fact: {@code null}.
   */
  public static Long bytes(String text) {
    if (text.isEmpty() || text.length() > 19) {
      throw new IllegalArgumentException("not a byte count: " + Excerpt.of(text));
    }
    long v = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        throw new IllegalArgumentException("not a byte count: " + Excerpt.of(text));
      }
      if (v > (Long.MAX_VALUE - (c - '0')) / 10) {
        throw new IllegalArgumentException("byte count " + Excerpt.of(text) + " is larger than any memory");
      }
      v = v * 10 + (c - '0');
    }
    return v == 0 ? null : v;
  }

  /** The memory of a device whose memory is split over tiles: the sum; overflow is malformed input. */
  public static long sum(List<Long> perTile) {
    long total = 0;
    for (long v : perTile) {
      if (v < 0) {
        throw new IllegalArgumentException("negative tile memory " + v);
      }
      try {
        total = Math.addExact(total, v);
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException("tile memory sizes add up to more than any memory");
      }
    }
    return total;
  }
}
