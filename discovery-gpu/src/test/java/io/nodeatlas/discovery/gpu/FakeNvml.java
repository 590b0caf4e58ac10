package io.nodeatlas.discovery.gpu;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Drives the gcc-built fake {@code libnvidia-ml.so.1} (src/test/c) from tests. The fake reads the
 * file named by {@code FAKE_NVML_CONFIG} when nvmlInit takes its reference count from 0 to 1. The
 * JVM cannot change its own environment, but the fake calls the C library's {@code getenv}, so we
 * call the C library's {@code setenv} through JNA: same process, same {@code environ}. Tests in one
 * JVM share the one loaded fake, so every test leaves the count at 0 ({@link #initCount()}).
 */
public final class FakeNvml {

  /** The built library; surefire passes its path (see the module pom). */
  public static Path library() {
    String path = System.getProperty("fake.nvml.library", "target/native/libnvidia-ml.so.1");
    Path p = Path.of(path).toAbsolutePath();
    if (!Files.isRegularFile(p)) {
      throw new IllegalStateException(p + " is missing; it is built by gcc in process-test-resources (./mvnw test-compile)");
    }
    return p;
  }

  interface LibC extends Library {
    int setenv(String name, String value, int overwrite);
  }

  interface Hooks extends Library {
    int fakeNvmlInitCount();
  }

  private static final LibC LIBC = Native.load("c", LibC.class);

  private FakeNvml() {}

  /** Points the fake at {@code config} for the next nvmlInit that starts from zero. */
  public static void use(Path config) {
    if (LIBC.setenv("FAKE_NVML_CONFIG", config.toAbsolutePath().toString(), 1) != 0) {
      throw new IllegalStateException("setenv failed");
    }
  }

  /**
   * Points the fake's event queue at {@code events} ({@code FAKE_NVML_EVENTS}): lines {@code <gpu> xid <N>},
   * {@code <gpu> lost}, {@code <gpu> back} appended to it are consumed by {@code nvmlEventSetWait_v2}.
   */
  public static void useEvents(Path events) {
    if (LIBC.setenv("FAKE_NVML_EVENTS", events.toAbsolutePath().toString(), 1) != 0) {
      throw new IllegalStateException("setenv failed");
    }
  }

  /** The fake's count of nvmlInit calls not yet matched by nvmlShutdown. */
  public static int initCount() {
    return Native.load(library().toString(), Hooks.class).fakeNvmlInitCount();
  }

  /** A fake configuration: {@code key=value} lines, later keys override earlier ones. */
  public static Config config() {
    return new Config();
  }

  /** Two GPUs as in the issue: an H100 with one MIG device and an A100 with MIG off. */
  public static Config twoGpus() {
    return config()
        .set("driver.version", "550.54.15")
        .set("cuda.driver.version", "12040")
        .set("nvml.version", "12.550.54.15")
        .set("device.count", "2")
        .set("device.0.name", "NVIDIA H100 80GB HBM3")
        .set("device.0.uuid", "GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11")
        .set("device.0.serial", "1654922004211")
        .set("device.0.minor", "0")
        .set("device.0.pci.busid", "00000000:18:00.0")
        .set("device.0.pci.device_id", "0x233010DE")
        .set("device.0.pci.subsystem_id", "0x16C110DE")
        .set("device.0.memory.total", "85520809984")
        .set("device.0.memory.reserved", "502267904")
        .set("device.0.brand", "14")
        .set("device.0.architecture", "9")
        .set("device.0.cuda.cc", "9.0")
        .set("device.0.board_part_number", "692-2G520-0200-000")
        .set("device.0.vbios", "96.00.74.00.01")
        .set("device.0.mig.mode", "1")
        .set("device.0.mig.count", "1")
        .set("device.0.mig.0.uuid", "MIG-1f3c5a7e-0d2b-5c4a-8e6f-0a1b2c3d4e5f")
        .set("device.0.mig.0.gi", "9")
        .set("device.0.mig.0.ci", "0")
        .set("device.0.mig.0.profile", "1g.10gb")
        .set("device.0.mig.0.memory.total", "10468982784")
        .set("device.0.mig.0.sm_count", "16")
        .set("device.0.mig.0.ce_count", "1")
        .set("device.0.mig.0.dec_count", "1")
        .set("device.0.mig.0.jpg_count", "1")
        .set("device.1.name", "NVIDIA A100-SXM4-80GB")
        .set("device.1.uuid", "GPU-31515c3d-1414-7c2c-004a-f86a898946ac")
        .set("device.1.serial", "1320222043305")
        .set("device.1.minor", "3")
        .set("device.1.pci.busid", "00000000:68:00.0")
        .set("device.1.pci.device_id", "0x20B210DE")
        .set("device.1.memory.total", "85899345920")
        .set("device.1.brand", "14")
        .set("device.1.architecture", "7")
        .set("device.1.cuda.cc", "8.0")
        .set("device.1.board_part_number", "692-2G506-0212-005")
        .set("device.1.vbios", "92.00.9E.00.02")
        .set("device.1.mig.mode", "0");
  }

  /**
   * One H200 (NVML 580.159.04, MIG mode off) with the GPU instance profiles and placements NVML read on
   * a real one: docs/design/gpu-mig-profiles-h200.md. Indexes 5, 6, 8 and 10–16 are absent (NOT_SUPPORTED).
   */
  public static Config h200() {
    Config c = config()
        .set("driver.version", "580.159.04")
        .set("cuda.driver.version", "13000")
        .set("device.count", "1")
        .set("device.0.name", "NVIDIA H200")
        .set("device.0.uuid", "GPU-0a7d4e52-93c1-4f0e-b6a2-1c9d8e7f6a50")
        .set("device.0.minor", "0")
        .set("device.0.pci.busid", "00000000:00:06.0")
        .set("device.0.memory.total", "150754820096")
        .set("device.0.brand", "14")
        .set("device.0.architecture", "9")
        .set("device.0.cuda.cc", "9.0")
        .set("device.0.mig.mode", "0");
    // index, id, name, compute slices, instances, SMs, CE, DEC, ENC, JPEG, OFA, MiB, placements
    h200Profile(c, 0, 19, "1g.18gb", 1, 7, 16, 1, 1, 0, 1, 0, 16384, "0:1,1:1,2:1,3:1,4:1,5:1,6:1");
    h200Profile(c, 7, 20, "1g.18gb+me", 1, 1, 16, 1, 1, 0, 1, 1, 16384, "0:1,1:1,2:1,3:1,4:1,5:1,6:1");
    h200Profile(c, 9, 15, "1g.35gb", 1, 4, 26, 1, 1, 0, 1, 0, 33280, "0:2,2:2,4:2,6:2");
    h200Profile(c, 1, 14, "2g.35gb", 2, 3, 32, 2, 2, 0, 2, 0, 33280, "0:2,2:2,4:2");
    h200Profile(c, 2, 9, "3g.71gb", 3, 2, 60, 3, 3, 0, 3, 0, 71424, "0:4,4:4");
    h200Profile(c, 3, 5, "4g.71gb", 4, 1, 64, 4, 4, 0, 4, 0, 71424, "0:4");
    h200Profile(c, 4, 0, "7g.141gb", 7, 1, 132, 8, 7, 0, 7, 1, 143360, "0:8");
    return c;
  }

  private static void h200Profile(Config c, int index, int id, String name, int slices, int instances, int sm,
      int ce, int dec, int enc, int jpeg, int ofa, long mib, String placements) {
    String k = "device.0.mig.profile." + index + ".";
    c.set(k + "id", Integer.toString(id)).set(k + "name", "MIG " + name).set(k + "slices", Integer.toString(slices))
        .set(k + "instances", Integer.toString(instances)).set(k + "sm", Integer.toString(sm))
        .set(k + "ce", Integer.toString(ce)).set(k + "dec", Integer.toString(dec)).set(k + "enc", Integer.toString(enc))
        .set(k + "jpeg", Integer.toString(jpeg)).set(k + "ofa", Integer.toString(ofa))
        .set(k + "memory_mib", Long.toString(mib)).set(k + "placements", placements);
  }

  /** A fake configuration being built. */
  public static final class Config {
    private final Map<String, String> values = new LinkedHashMap<>();

    public Config set(String key, String value) {
      values.put(key, value);
      return this;
    }

    public Config remove(String key) {
      values.remove(key);
      return this;
    }

    public String text() {
      return values.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining("\n", "# written by FakeNvml\n", "\n"));
    }

    /** Writes the file into {@code dir} and points the fake at it. */
    public Path install(Path dir) {
      Path file = dir.resolve("fake-nvml.conf");
      try {
        Files.writeString(file, text());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      use(file);
      return file;
    }
  }
}
