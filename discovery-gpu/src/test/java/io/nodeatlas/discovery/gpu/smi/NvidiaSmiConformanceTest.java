package io.nodeatlas.discovery.gpu.smi;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.gpu.FakeNvml;
import io.nodeatlas.discovery.gpu.GpuDiscoverySource;
import io.nodeatlas.discovery.gpu.smi.SmiMachine.Gpu;
import io.nodeatlas.discovery.gpu.smi.SmiMachine.Mig;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.testing.Conformance;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * For every real {@code nvidia-smi -q} capture in the shared corpus: build a fake NVML that answers
 * as that machine did, discover through the real JNA path, and check that the published devices
 * agree with what nvidia-smi printed (name, UUID, bus id, minor, memory, MIG mode and devices,
 * driver and CUDA versions, PCI ids, brand and architecture where nvidia-smi printed them), and that
 * every attribute and capacity published is in the source's catalogue.
 */
class NvidiaSmiConformanceTest {

  /** Captures that are not usable on purpose, with the reason the parser must give. */
  private static final Map<String, String> EXPECTED_REJECTIONS = Map.of(
      "gpud__h100-80gb-hbm3x8__nvidia-smi-q__535.183.01__truncated-invalid.txt", "no FB Memory Usage/Total");

  @TempDir Path work;

  @Test
  void discoveryAgreesWithNvidiaSmiOnEveryCapturedMachine() throws Exception {
    Path corpus = Conformance.corpus("nvidia-smi");
    List<Path> files;
    try (Stream<Path> s = Files.list(corpus)) {
      files = s.filter(Files::isRegularFile).sorted().toList();
    }
    Path emptyHost = Files.createDirectories(work.resolve("host"));
    HostContext ctx = new HostContext(HostFs.of(emptyHost),
        new SourceOptions(Map.of("gpu.nvmlLibrary", FakeNvml.library().toString())), Clock.systemUTC());
    GpuDiscoverySource source = new GpuDiscoverySource();

    int matched = 0;
    int gpus = 0;
    int migs = 0;
    int unnamed = 0;
    int notQuery = 0;
    Map<String, String> rejected = new TreeMap<>();
    List<String> mismatches = new ArrayList<>();
    for (Path file : files) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      if (!NvidiaSmiParser.isQueryOutput(text)) {
        notQuery++;
        continue;
      }
      SmiMachine machine;
      try {
        machine = NvidiaSmiParser.parse(text);
      } catch (IllegalArgumentException e) {
        rejected.put(file.getFileName().toString(), e.getMessage());
        continue;
      }
      SmiFakeConfig.from(machine).install(work);
      DiscoveryResult result = source.discover(ctx);
      List<String> problems = compare(machine, result);
      problems.addAll(AttributeCatalogue.undocumented(source.catalogue(), result.devices()));
      if (problems.isEmpty()) {
        matched++;
        gpus += (int) machine.gpus().stream().filter(g -> g.minor().isPresent()).count();
        unnamed += (int) machine.gpus().stream().filter(g -> g.minor().isEmpty()).count();
        migs += machine.gpus().stream().mapToInt(g -> g.migDevices().size()).sum();
      } else {
        problems.forEach(p -> mismatches.add(file.getFileName() + ": " + p));
      }
    }
    assertThat(FakeNvml.initCount()).isZero();

    System.out.printf("nvidia-smi conformance: %d machines matched (%d GPUs, %d MIG devices, %d GPUs without a "
        + "minor number reported as unpublishable); %d captures rejected by the parser %s; %d files are not -q output%n",
        matched, gpus, migs, unnamed, rejected.size(), rejected, notQuery);

    assertThat(mismatches).isEmpty();
    assertThat(rejected.keySet()).isEqualTo(EXPECTED_REJECTIONS.keySet());
    EXPECTED_REJECTIONS.forEach((file, reason) -> assertThat(rejected.get(file)).contains(reason));
    assertThat(gpus).as("GPUs compared").isGreaterThanOrEqualTo(100);
    assertThat(migs).as("MIG devices compared").isGreaterThanOrEqualTo(8);
  }

  private static List<String> compare(SmiMachine machine, DiscoveryResult result) {
    List<String> problems = new ArrayList<>();
    Map<String, Device> byName = new TreeMap<>();
    result.devices().forEach(d -> byName.put(d.name(), d));
    int expectedDevices = 0;
    for (Gpu g : machine.gpus()) {
      if (g.minor().isEmpty()) {
        // nvidia-smi printed no minor (Windows, partial captures): the source must say why it published nothing.
        boolean reported = result.warnings().stream().map(DiscoveryWarning::message)
            .anyMatch(m -> m.contains(g.uuid()) && m.contains("minor number"));
        if (!reported) {
          problems.add(g.busId() + ": no minor number, but no warning saying the GPU is not published");
        }
        continue;
      }
      expectedDevices += 1 + g.migDevices().size();
      String name = "gpu-" + g.minor().get();
      Device d = byName.get(name);
      if (d == null) {
        problems.add("no device " + name + "; warnings: " + result.warnings());
        continue;
      }
      check(problems, name, "productName", string(d, "productName"), Optional.of(g.name()));
      check(problems, name, "uuid", string(d, "uuid"), Optional.of(g.uuid()));
      check(problems, name, "pciBusID", attr(d, "resource.kubernetes.io/pciBusID"),
          Optional.of(g.busId().substring(4).toLowerCase(java.util.Locale.ROOT)));
      check(problems, name, "minor", attr(d, "nodeatlas.io/minor"), Optional.of(g.minor().get().longValue()));
      check(problems, name, "memory", Optional.ofNullable(d.capacity().get("nodeatlas.io/memory")),
          Optional.of(Quantity.of(g.memoryTotalMiB() << 20)));
      // A GPU that is not MIG-capable (nvidia-smi prints no MIG mode) has MIG disabled.
      check(problems, name, "migEnabled", attr(d, "nodeatlas.io/migEnabled"),
          Optional.of(g.migMode().map(m -> m.equals("Enabled")).orElse(false)));
      // nvidia-smi's "Device Id" and "Sub System Id" pack device << 16 | vendor, as NVML does; 0 is "not said".
      Optional<Long> ids = g.pciDeviceId().filter(v -> v != 0);
      check(problems, name, "pciVendorID", string(d, "pciVendorID"), ids.map(v -> String.format("%04x", v & 0xffff)));
      check(problems, name, "pciDeviceID", string(d, "pciDeviceID"), ids.map(v -> String.format("%04x", (v >> 16) & 0xffff)));
      Optional<Long> subsystem = g.pciSubSystemId().filter(v -> v != 0);
      check(problems, name, "pciSubsystemVendorID", string(d, "pciSubsystemVendorID"),
          subsystem.map(v -> String.format("%04x", v & 0xffff)));
      check(problems, name, "pciSubsystemDeviceID", string(d, "pciSubsystemDeviceID"),
          subsystem.map(v -> String.format("%04x", (v >> 16) & 0xffff)));
      check(problems, name, "driverVersion", string(d, "driverVersion"), machine.driverVersion().map(v -> semver(v)));
      check(problems, name, "cudaDriverVersion", string(d, "cudaDriverVersion"), machine.cudaVersion().map(v -> v + ".0"));
      check(problems, name, "serial", string(d, "serial"), g.serial());
      check(problems, name, "vbiosVersion", string(d, "vbiosVersion"), g.vbios());
      if (g.brand().flatMap(SmiFakeConfig::brandCode).isPresent()) {
        check(problems, name, "brand", string(d, "brand").map(b -> b.toString().toLowerCase(java.util.Locale.ROOT)),
            g.brand().map(b -> b.replace(" ", "").toLowerCase(java.util.Locale.ROOT)));
      }
      if (g.architecture().flatMap(SmiFakeConfig::architectureCode).isPresent()) {
        check(problems, name, "architecture", string(d, "architecture"),
            g.architecture().map(a -> a.toLowerCase(java.util.Locale.ROOT)));
      }
      for (Mig m : g.migDevices()) {
        String migName = name + "-mig-" + m.gpuInstanceId() + "-" + m.computeInstanceId();
        Device md = byName.get(migName);
        if (md == null) {
          problems.add("no MIG device " + migName);
          continue;
        }
        check(problems, migName, "parentUUID", string(md, "parentUUID"), Optional.of(g.uuid()));
        check(problems, migName, "memory", Optional.ofNullable(md.capacity().get("nodeatlas.io/memory")),
            Optional.of(Quantity.of(m.memoryTotalMiB() << 20)));
        check(problems, migName, "multiprocessors", Optional.ofNullable(md.capacity().get("nodeatlas.io/multiprocessors")),
            Optional.of(Quantity.of(m.multiprocessors())));
        check(problems, migName, "uuid", string(md, "uuid"), m.uuid());
        check(problems, migName, "profile", string(md, "profile"), m.profile());
      }
    }
    if (result.devices().size() != expectedDevices) {
      problems.add(result.devices().size() + " devices published, nvidia-smi shows " + expectedDevices);
    }
    return problems;
  }

  /** nvidia-smi's driver version read as numbers, independently of the code under test. */
  private static String semver(String printed) {
    String[] parts = (printed + ".0.0").split("\\.");
    return Integer.parseInt(parts[0]) + "." + Integer.parseInt(parts[1]) + "." + Integer.parseInt(parts[2]);
  }

  private static Optional<Object> attr(Device d, String key) {
    return d.attribute(key).map(AttributeValue::asObject);
  }

  private static Optional<Object> string(Device d, String identifier) {
    return attr(d, "nodeatlas.io/" + identifier);
  }

  private static void check(List<String> problems, String device, String what, Optional<?> actual, Optional<?> expected) {
    if (!actual.equals(expected.map(v -> (Object) v))) {
      problems.add(device + " " + what + ": published " + actual.map(Object::toString).orElse("nothing")
          + ", nvidia-smi printed " + expected.map(Object::toString).orElse("nothing"));
    }
  }
}
