package io.nodeatlas.discovery.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.testing.FixtureTree;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CPU identity, reserved CPUs and the grouped/cores modes of the {@code cpu} devices. */
class CpuDevicesTest {

  /** Per-test trees (small ones). */
  @TempDir
  Path root;

  /** The 128-CPU trees, written once: the x86 node and the arm64 node, read-only in every test. */
  @TempDir
  static Path shared;

  private static Path x86;
  private static Path arm;

  @BeforeAll
  static void writeNodes() {
    x86 = shared.resolve("x86");
    x86Node(x86);
    arm = shared.resolve("arm");
    armNode(arm);
  }

  /** x86 cpuinfo for the synthetic node's 128 CPUs: a Sapphire Rapids (family 6, model 143 = 0x8f). */
  static String sapphireRapids(int cpus) {
    StringBuilder out = new StringBuilder();
    for (int c = 0; c < cpus; c++) {
      out.append("processor\t: ").append(c).append('\n')
          .append("vendor_id\t: GenuineIntel\n")
          .append("cpu family\t: 6\n")
          .append("model\t\t: 143\n")
          .append("model name\t: Intel(R) Xeon(R)   Platinum 8480+\n")
          .append("stepping\t: 8\n")
          .append("flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep lm avx avx2 avx512f avx512bw amx_bf16 amx_tile amx_int8\n")
          .append('\n');
    }
    return out.toString();
  }

  /** arm64 cpuinfo: an NVIDIA Grace (Arm Neoverse V2 cores, implementer 0x41, part 0xd4f) with SVE. */
  static String grace(int cpus) {
    StringBuilder out = new StringBuilder();
    for (int c = 0; c < cpus; c++) {
      out.append("processor\t: ").append(c).append('\n')
          .append("BogoMIPS\t: 2000.00\n")
          .append("Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid sve sve2\n")
          .append("CPU implementer\t: 0x41\n")
          .append("CPU architecture: 8\n")
          .append("CPU variant\t: 0x0\n")
          .append("CPU part\t: 0xd4f\n")
          .append("CPU revision\t: 0\n\n");
    }
    return out.toString();
  }

  /** The synthetic node as a Sapphire Rapids host with kernel.arch. */
  static FixtureTree x86Node(Path root) {
    return SyntheticNode.write(root).value("proc/sys/kernel/arch", "x86_64")
        .file("proc/cpuinfo", sapphireRapids(SyntheticNode.CPUS));
  }

  /** The synthetic node as a Grace host: no kernel.arch (older kernel), an arm64 modalias. */
  static FixtureTree armNode(Path root) {
    return SyntheticNode.write(root)
        .value("sys/devices/system/cpu/modalias", "cpu:type:aarch64:feature:,0000,0001,0002,0003,0004,0005,0006,0007")
        .file("proc/cpuinfo", grace(SyntheticNode.CPUS));
  }

  private static HostContext host(SourceOptions options) {
    return new HostContext(HostFs.of(x86), options, java.time.Clock.systemUTC());
  }

  private static SourceOptions options(String reserved, String mode) {
    SourceOptions o = SourceOptions.NONE;
    if (reserved != null) {
      o = o.with(CpuNumaSource.RESERVED_CPUS, reserved);
    }
    if (mode != null) {
      o = o.with(CpuNumaSource.CPU_DEVICES, mode);
    }
    return o;
  }

  private static Device device(List<Device> devices, String name) {
    return devices.stream().filter(d -> d.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no device " + name + " in " + devices.stream().map(Device::name).toList()));
  }

  private static AttributeValue attr(Device d, String name) {
    return d.attributes().get(Names.ours(name));
  }

  @Test
  void x86IdentityOnEveryCpuDevice() {
    List<Device> cpus = Discover.run(HostContext.of(HostFs.of(x86))).devices().stream()
        .filter(d -> d.type().orElseThrow().equals("cpu")).toList();
    assertThat(cpus).extracting(Device::name).containsExactly("cpu-numa0", "cpu-numa1");
    for (Device d : cpus) {
      assertThat(d.attributes()).containsAllEntriesOf(Map.of(
          Names.ours("architecture"), AttributeValue.string("x86_64"),
          Names.ours("vendor"), AttributeValue.string("intel"),
          Names.ours("cpuModel"), AttributeValue.string("Intel(R) Xeon(R) Platinum 8480+"),
          Names.ours("family"), AttributeValue.of(6),
          Names.ours("model"), AttributeValue.of(143),
          Names.ours("stepping"), AttributeValue.of(8),
          Names.ours("microarchitecture"), AttributeValue.string("sapphirerapids"),
          Names.ours("avx2"), AttributeValue.of(true),
          Names.ours("avx512f"), AttributeValue.of(true),
          Names.ours("amxTile"), AttributeValue.of(true)));
      assertThat(d.attributes()).doesNotContainKey(Names.ours("sve"));
    }
  }

  @Test
  void arm64IdentityFromModaliasAndCpuinfo() {
    Device d = device(Discover.run(HostContext.of(HostFs.of(arm))).devices(), "cpu-numa1");
    assertThat(attr(d, "architecture")).isEqualTo(AttributeValue.string("aarch64"));
    assertThat(attr(d, "vendor")).isEqualTo(AttributeValue.string("arm"));
    assertThat(attr(d, "microarchitecture")).isEqualTo(AttributeValue.string("neoverse-v2"));
    assertThat(attr(d, "sve")).isEqualTo(AttributeValue.of(true));
    // arm64 has no family/model/stepping nor x86 features, and its kernel prints no model name.
    assertThat(d.attributes()).doesNotContainKeys(Names.ours("family"), Names.ours("model"), Names.ours("stepping"),
        Names.ours("avx2"), Names.ours("avx512f"), Names.ours("amxTile"), Names.ours("cpuModel"));
  }

  @Test
  void architectureFromCpuinfoWhenTheKernelDoesNotSay() {
    // Neither kernel.arch nor a modalias: cpuinfo's "lm" flag tells a 64-bit x86.
    BadInputTest.writeSmallNode(root).file("proc/cpuinfo", sapphireRapids(4))
        .delete("proc/sys/kernel/arch").delete("sys/devices/system/cpu/modalias");
    Device d = device(Discover.run(HostContext.of(HostFs.of(root))).devices(), "cpu-numa0");
    assertThat(attr(d, "architecture")).isEqualTo(AttributeValue.string("x86_64"));
  }

  @Test
  void brokenIdentityFilesCostOneWarningEachAndTheNextSourceAnswers() {
    BadInputTest.writeSmallNode(root).value("proc/sys/kernel/arch", "x86 64\u001b[31m")
        .value("sys/devices/system/cpu/modalias", "garbage");
    var result = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(result.warnings()).extracting(w -> w.message())
        .anySatisfy(m -> assertThat(m).contains("sys/kernel/arch").contains("not a machine name"))
        .anySatisfy(m -> assertThat(m).contains("cpu/modalias").contains("not a CPU modalias"))
        .hasSize(2);
    Device d = device(result.devices(), "cpu-numa0");
    assertThat(attr(d, "architecture")).as("from cpuinfo's lm flag").isEqualTo(AttributeValue.string("x86_64"));
    assertThat(attr(d, "vendor")).isEqualTo(AttributeValue.string("intel"));
  }

  @Test
  void withoutCpuinfoThereIsNoIdentityButTheDevicesStay() {
    BadInputTest.writeSmallNode(root).delete("proc/cpuinfo").delete("proc/sys/kernel/arch");
    var result = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(result.warnings()).isEmpty();
    Device d = device(result.devices(), "cpu-numa0");
    assertThat(d.attributes()).doesNotContainKeys(Names.ours("architecture"), Names.ours("vendor"), Names.ours("avx2"));
    assertThat(d.capacity()).containsEntry(Names.ours("cpu"), Quantity.of(4));
  }

  @Test
  void aDeviceOfDifferentCpusPublishesOnlyWhatTheyShare() {
    // cpu 3 says another model and lacks AVX-512: the device keeps what all its CPUs agree on.
    String info = sapphireRapids(4).replace(
        "processor\t: 3\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\nmodel name\t: Intel(R) Xeon(R)   Platinum 8480+\n",
        "processor\t: 3\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\nmodel name\t: Another\n");
    info = info.replace("processor\t: 3\n", "processor\t: 3\nflags\t\t: fpu lm avx2\n");
    BadInputTest.writeSmallNode(root).file("proc/cpuinfo", info);
    Device mixed = device(Discover.run(HostContext.of(HostFs.of(root))).devices(), "cpu-numa0");
    assertThat(mixed.attributes()).doesNotContainKey(Names.ours("cpuModel"));
    assertThat(attr(mixed, "vendor")).isEqualTo(AttributeValue.string("intel"));
    assertThat(attr(mixed, "microarchitecture")).isEqualTo(AttributeValue.string("sapphirerapids"));
    assertThat(attr(mixed, "avx2")).isEqualTo(AttributeValue.of(true));
    assertThat(attr(mixed, "avx512f")).isEqualTo(AttributeValue.of(false));
    assertThat(attr(mixed, "amxTile")).isEqualTo(AttributeValue.of(false));
  }

  @Test
  void reservedCpusAreNeverAllocatable() throws Exception {
    List<Device> devices = new CpuNumaSource().discover(host(options("0-1,64-65", null))).devices();
    Device n0 = device(devices, "cpu-numa0");
    assertThat(attr(n0, "cpuCount")).isEqualTo(AttributeValue.of(64));
    assertThat(attr(n0, "reservedCPUs")).isEqualTo(AttributeValue.of(4));
    assertThat(n0.capacity()).containsEntry(Names.ours("cpu"), Quantity.of(60));
    assertThat(n0.requestPolicies()).containsEntry(Names.ours("cpu"),
        RequestPolicy.range(Quantity.of(1), Quantity.of(1), Quantity.of(60), Quantity.of(1)));
    Device n1 = device(devices, "cpu-numa1");
    assertThat(attr(n1, "reservedCPUs")).isEqualTo(AttributeValue.of(0));
    assertThat(n1.capacity()).containsEntry(Names.ours("cpu"), Quantity.of(64));
  }

  @Test
  void aNodeWhoseCpusAreAllReservedIsNotPublished() throws Exception {
    List<Device> devices = new CpuNumaSource().discover(host(options(" 0-31 , 64-95 ", null))).devices();
    assertThat(devices).extracting(Device::name).contains("cpu-numa1").doesNotContain("cpu-numa0");
  }

  @Test
  void aNodeWithOneAllocatableCpuIsPublishedWithAPolicyOfThatOneCpu() throws Exception {
    // min + step may not pass the capacity (validateRequestPolicyRange): one CPU gets min = max = 1, no step.
    List<Device> devices = new CpuNumaSource().discover(host(options("0-30,64-95", null))).devices();
    Device n0 = device(devices, "cpu-numa0");
    assertThat(n0.capacity()).containsEntry(Names.ours("cpu"), Quantity.of(1));
    assertThat(n0.requestPolicies()).containsEntry(Names.ours("cpu"),
        RequestPolicy.range(Quantity.of(1), Quantity.of(1), Quantity.of(1), null));
    assertThat(CpuNumaDevices.wholeUnits(Quantity.of(2), Quantity.of(2)).validRange().orElseThrow().step()).isEmpty();
    assertThat(CpuNumaDevices.wholeUnits(Quantity.of(1), Quantity.of(2)).validRange().orElseThrow().step())
        .contains(Quantity.of(1));
  }

  @Test
  void aPcieRootListThatPassesTheValuesPerDeviceIsLeftOutWithAWarning() throws Exception {
    List<Device> devices = new CpuNumaSource().discover(host(options(null, null))).devices();
    Device n0 = device(devices, "cpu-numa0");
    int room = io.nodeatlas.discovery.model.AttributeValue.MAX_VALUES_PER_DEVICE - n0.attributes().size();
    List<String> fits = new java.util.ArrayList<>();
    for (int i = 0; i < room; i++) {
      fits.add(String.format("pci%04x:00", i));
    }
    List<String> warnings = new java.util.ArrayList<>();
    Device listed = device(CpuNumaDevices.withPcieRoots(List.of(n0), java.util.Map.of(0, fits), warnings::add), "cpu-numa0");
    assertThat(listed.attributes().get(Names.PCIE_ROOT)).isEqualTo(io.nodeatlas.discovery.model.AttributeValue.strings(fits));
    assertThat(warnings).isEmpty();
    List<String> tooMany = new java.util.ArrayList<>(fits);
    tooMany.add("pciffff:00");
    Device left = device(CpuNumaDevices.withPcieRoots(List.of(n0), java.util.Map.of(0, tooMany), warnings::add), "cpu-numa0");
    assertThat(left.attributes()).doesNotContainKey(Names.PCIE_ROOT);
    assertThat(warnings).containsExactly("device cpu-numa0: resource.kubernetes.io/pcieRoot left out: its " + tooMany.size()
        + " PCIe roots do not fit the API's 32 attributes and 48 attribute values per device");
  }

  @Test
  void nodeAllocatableMappingsAreOffByDefault() throws Exception {
    assertThat(new CpuNumaSource().discover(host(options(null, null))).devices())
        .allSatisfy(d -> assertThat(d.nodeAllocatableResources()).isEmpty());
  }

  @Test
  void reservedCpusThatDoNotExistFailTheSourceNamingThemAndTheFlag() {
    assertThatThrownBy(() -> new CpuNumaSource().discover(host(options("0-1,126-129,200", null))))
        .isInstanceOf(DiscoveryException.class)
        .hasMessageContaining("--reserved-cpus")
        .hasMessageContaining("128-129,200")
        .hasMessageContaining("0-127");
  }

  @Test
  void aMalformedReservedListIsBadUsageNamingTheFlag() {
    // The CLI turns validate()'s IllegalArgumentException into a usage error (exit status 2).
    for (String bad : List.of("0-", "a", "3-1", "0,,1", "0 1", "-1")) {
      assertThatThrownBy(() -> CpuNumaSource.RESERVED_CPUS.validate(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("--reserved-cpus: not a CPU list");
    }
    assertThat(CpuNumaSource.RESERVED_CPUS.validate(" 0-1, 64-65 ")).isEqualTo("0-1,64-65");
    assertThat(CpuNumaSource.RESERVED_CPUS.validate("")).isEmpty();
    // Options that bypass the CLI still never publish: the source fails with the same reason.
    assertThatThrownBy(() -> new CpuNumaSource().discover(host(options("0-", null))))
        .isInstanceOf(DiscoveryException.class).hasMessageStartingWith("--reserved-cpus: not a CPU list");
  }

  @Test
  void coresModePublishesOneExclusiveDevicePerPhysicalCore() throws Exception {
    List<Device> devices = new CpuNumaSource().discover(host(options("0", "cores"))).devices();
    List<Device> cores = devices.stream().filter(d -> d.type().orElseThrow().equals("cpu")).toList();
    assertThat(cores).hasSize(64);
    assertThat(cores).extracting(Device::name).startsWith("cpu-core-0-0", "cpu-core-0-1").contains("cpu-core-1-31");
    assertThat(cores).allSatisfy(d -> {
      assertThat(d.allowMultipleAllocations()).isFalse();
      assertThat(d.requestPolicies()).isEmpty();
      assertThat(attr(d, "vendor")).isEqualTo(AttributeValue.string("intel"));
    });
    Device core = device(cores, "cpu-core-1-5");
    assertThat(core.attributes()).containsAllEntriesOf(Map.of(
        Names.NUMA_NODE, AttributeValue.of(1),
        Names.ours("socket"), AttributeValue.of(1),
        Names.ours("coreID"), AttributeValue.of(5),
        Names.ours("cpuCount"), AttributeValue.of(2),
        Names.ours("reservedCPUs"), AttributeValue.of(0),
        Names.ours("smt"), AttributeValue.of(true)));
    assertThat(core.capacity()).containsExactlyEntriesOf(Map.of(Names.ours("cpu"), Quantity.of(2)));
    assertThat(core.containerEdits().env()).containsExactly("NODEATLAS_CPUS=37,101", "NODEATLAS_NUMA_NODE=1");
    // cpu 0 is reserved: its core keeps only its sibling, and says so.
    Device first = device(cores, "cpu-core-0-0");
    assertThat(first.capacity()).containsEntry(Names.ours("cpu"), Quantity.of(1));
    assertThat(attr(first, "reservedCPUs")).isEqualTo(AttributeValue.of(1));
    assertThat(first.containerEdits().env()).containsExactly("NODEATLAS_CPUS=64", "NODEATLAS_NUMA_NODE=0");
    // Hugepage pools stay shared devices in either mode.
    assertThat(devices).filteredOn(d -> d.type().orElseThrow().equals("hugepages"))
        .isNotEmpty().allSatisfy(d -> assertThat(d.allowMultipleAllocations()).isTrue());
  }

  @Test
  void aCoreWhoseThreadsAreAllReservedIsNotPublished() throws Exception {
    List<Device> devices = new CpuNumaSource().discover(host(options("0,64", "cores"))).devices();
    assertThat(devices).extracting(Device::name).doesNotContain("cpu-core-0-0").contains("cpu-core-0-1");
  }

  @Test
  void autoFollowsWhetherTheConsumerCanPublishSharedDevices() throws Exception {
    HostContext shared = host(SourceOptions.NONE);
    assertThat(names(new CpuNumaSource().discover(shared).devices())).contains("cpu-numa0").noneMatch(n -> n.startsWith("cpu-core"));
    HostContext exclusive = shared.withSharedDevicesSupported(false);
    assertThat(names(new CpuNumaSource().discover(exclusive).devices())).contains("cpu-core-0-0").doesNotContain("cpu-numa0");
    assertThat(names(new CpuNumaSource().discover(host(options(null, "auto")).withSharedDevicesSupported(false)).devices()))
        .contains("cpu-core-0-0");
    // An explicit choice is kept, whatever the consumer supports.
    assertThat(names(new CpuNumaSource().discover(host(options(null, "grouped")).withSharedDevicesSupported(false)).devices()))
        .contains("cpu-numa0");
    assertThat(names(new CpuNumaSource().discover(host(options(null, "cores"))).devices())).contains("cpu-core-0-0");
  }

  @Test
  void cpuDevicesTakesOnlyItsThreeWords() {
    assertThat(CpuNumaSource.CPU_DEVICES.validate("Cores")).isEqualTo("cores");
    assertThatThrownBy(() -> CpuNumaSource.CPU_DEVICES.validate("per-core"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--cpu-devices: must be auto, grouped or cores");
    assertThat(new CpuNumaSource().settings()).extracting(s -> s.flag())
        .containsExactly("--reserved-cpus", "--cpu-devices", "--node-allocatable-resources", "--cpu-pcie-roots");
    assertThat(new CpuNumaSource().settings()).extracting(s -> s.env())
        .containsExactly("NODEATLAS_RESERVED_CPUS", "NODEATLAS_CPU_DEVICES", "NODEATLAS_NODE_ALLOCATABLE_RESOURCES",
            "NODEATLAS_CPU_PCIE_ROOTS");
  }

  @Test
  void coreNamesStayUniqueWhenCoreIdsRepeatAcrossDiesOrAreUnknown() {
    List<CoreInfo> perDie = List.of(new CoreInfo(0, 0, 0, CpuSet.of(0), null), new CoreInfo(0, 1, 0, CpuSet.of(1), null));
    assertThat(CpuNumaDevices.coreNames(perDie)).containsExactly("cpu-core-0-0-0", "cpu-core-0-1-0");
    List<CoreInfo> unknown = List.of(new CoreInfo(-1, -1, -1, CpuSet.of(4, 5), null), new CoreInfo(-1, -1, -1, CpuSet.of(6), null));
    assertThat(CpuNumaDevices.coreNames(unknown)).containsExactly("cpu-core-cpu4", "cpu-core-cpu6");
  }

  @Test
  void everyNameOfEveryModeAndIsaIsCatalogued() throws Exception {
    List<Device> devices = new ArrayList<>(devicesOfEveryKind(root));
    assertThat(devices).anySatisfy(d -> assertThat(d.attributes()).containsKeys(Names.ours("amxTile"), Names.ours("coreID")))
        .anySatisfy(d -> assertThat(d.attributes()).containsKey(Names.ours("sve")));
    assertThat(AttributeCatalogue.undocumented(new CpuNumaSource().catalogue(), devices)).isEmpty();
  }

  /** Devices of an x86 node in both modes and of an arm64 node: together they carry every cpu name. */
  static List<Device> devicesOfEveryKind(Path dir) throws Exception {
    List<Device> out = new ArrayList<>();
    Path x86Root = dir.resolve("x86");
    BadInputTest.writeSmallNode(x86Root);
    HostContext x86Host = HostContext.of(HostFs.of(x86Root));
    out.addAll(new CpuNumaSource().discover(x86Host).devices());
    out.addAll(new CpuNumaSource().discover(x86Host.withOptions(options("0", "cores"))).devices());
    Path armRoot = dir.resolve("arm");
    BadInputTest.writeSmallNode(armRoot).file("proc/cpuinfo", grace(4)).value("proc/sys/kernel/arch", "aarch64");
    out.addAll(new CpuNumaSource().discover(HostContext.of(HostFs.of(armRoot))).devices());
    return out;
  }

  private static List<String> names(List<Device> devices) {
    return devices.stream().map(Device::name).toList();
  }
}
