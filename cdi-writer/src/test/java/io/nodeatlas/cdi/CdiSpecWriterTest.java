package io.nodeatlas.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.cdi.spec.CdiContainerEdits;
import io.nodeatlas.cdi.spec.CdiDevice;
import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.files.AtomicFiles;
import io.nodeatlas.discovery.model.Device;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecWriterTest {

  private final CdiSpecGenerator generator = CdiSpecGenerator.builder().build();
  private final CdiSpecWriter writer = new CdiSpecWriter();

  private List<CdiSpecFile> specs(List<Device> devices) {
    return generator.generate(devices).specs();
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void writesAReadableSpecWithMode0644AndNoTemporaryFile(@TempDir Path root) throws Exception {
    Path dir = root.resolve("run/cdi");
    CdiSpecFile gpu = specs(SyntheticNode.devices()).get(0);
    assertThat(writer.write(dir, gpu).outcome()).isEqualTo(CdiSpecWriter.Outcome.WRITTEN);
    assertThat(names(dir)).containsExactly("nodeatlas.io-gpu.json");
    Path file = dir.resolve("nodeatlas.io-gpu.json");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r--r--");
    assertThat(Files.readString(file)).isEqualTo(writer.renderText(gpu));
  }

  @Test
  void theBytesWrittenAreTheTextInUtf8AlsoForEscapedAndNonAsciiCharacters() {
    CdiSpec spec = new CdiSpec("0.6.0", "nodeatlas.io/claim", null,
        List.of(new CdiDevice("d0", new CdiContainerEdits(
            List.of("NOTE=gr\u00f6\u00dfe \"q\" \\ \t \u2713 \ud83d\ude00"), List.of(), List.of(), List.of()))), null);
    CdiSpecFile file = new CdiSpecFile("nodeatlas.io-claim_x.json", spec, SpecFormat.JSON);
    assertThat(writer.render(file)).isEqualTo(writer.renderText(file).getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Test
  void everyMemberOfTheFormatIsWrittenAndReadBackTheSameInJsonAndYaml() throws Exception {
    // Every member CDI defines, set. One mapping writes the JSON and builds the tree YAML and the schema
    // check use: every member must be in the text, read back to the same spec from either format, and
    // written again to the same text.
    CdiContainerEdits all = new CdiContainerEdits(List.of("A=1", "B=2"),
        List.of(new CdiContainerEdits.DeviceNode("/dev/x", "/dev/host-x", "c", 195L, 7L, 438L, "rw", 0L, 44L)),
        List.of(new CdiContainerEdits.NetDevice("eth9", "net0")),
        List.of(new CdiContainerEdits.Hook("createContainer", "/bin/hook", List.of("hook", "--x"), List.of("H=1"), 5L)),
        List.of(new CdiContainerEdits.Mount("/host/lib", "/lib/x", "bind", List.of("ro", "nosuid"))),
        new CdiContainerEdits.IntelRdt("clos1", "L3:0=ff", "MB:0=50", List.of("L2:0=f"), true),
        List.of(5L, 6L));
    CdiSpec spec = new CdiSpec("1.1.0", "nodeatlas.io/claim", new java.util.TreeMap<>(java.util.Map.of("z.io/b", "2", "a.io/a", "1",
        "Z.io/c", "3")), List.of(new CdiDevice("d1", new java.util.TreeMap<>(java.util.Map.of("k.io/x", "y", "B.io/y", "z")), all),
            new CdiDevice("d0", null, new CdiContainerEdits(List.of("E=1"), List.of(), List.of(), List.of())),
            new CdiDevice("d2", null, new CdiContainerEdits(List.of(), List.of(), List.of(), List.of(), List.of(),
                new CdiContainerEdits.IntelRdt(null, null, null, List.of(), false), List.of()))), all);
    CdiSpecFile file = new CdiSpecFile("nodeatlas.io-claim_x.json", spec, SpecFormat.JSON);
    String text = writer.renderText(file);
    assertThat(writer.render(file)).isEqualTo(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    io.nodeatlas.cdi.spec.CdiSpecCodec codec = new io.nodeatlas.cdi.spec.CdiSpecCodec();
    String yamlText = codec.write(spec, SpecFormat.YAML);
    CdiSpec fromJson = codec.read(text);
    assertThat(codec.read(yamlText)).isEqualTo(fromJson);
    assertThat(codec.write(fromJson, SpecFormat.JSON)).isEqualTo(text);
    assertThat(codec.write(fromJson, SpecFormat.YAML)).isEqualTo(yamlText);
    for (String member : List.of("annotations", "cdiVersion", "containerEdits", "devices", "kind", "name", "additionalGids",
        "deviceNodes", "env", "hooks", "intelRdt", "mounts", "netDevices", "fileMode", "gid", "hostPath", "major", "minor",
        "path", "permissions", "type", "uid", "hostInterfaceName", "args", "hookName", "timeout", "containerPath", "options",
        "closID", "enableMonitoring", "l3CacheSchema", "memBwSchema", "schemata")) {
      assertThat(text).contains("\"" + member + "\" : ");
    }
  }

  @Test
  void anUnchangedSpecIsNotRewritten(@TempDir Path dir) throws Exception {
    CdiSpecFile gpu = specs(SyntheticNode.devices()).get(0);
    writer.write(dir, gpu);
    Path file = dir.resolve(gpu.fileName());
    FileTime old = FileTime.fromMillis(1_000_000L);
    Files.setLastModifiedTime(file, old);
    Object inode = Files.getAttribute(file, "unix:ino");
    assertThat(writer.write(dir, gpu).outcome()).isEqualTo(CdiSpecWriter.Outcome.UNCHANGED);
    assertThat(Files.getLastModifiedTime(file)).isEqualTo(old);
    assertThat(Files.getAttribute(file, "unix:ino")).isEqualTo(inode);
  }

  @Test
  void anInvalidSpecIsRefusedAndNothingIsWritten(@TempDir Path dir) {
    CdiSpec bad = new CdiSpec("0.3.0", "nodeatlas.io/gpu", null,
        List.of(new CdiDevice("gpu-0", new CdiContainerEdits(List.of("=1"), List.of(), List.of(), List.of()))), null);
    assertThatThrownBy(() -> writer.write(dir, new CdiSpecFile("nodeatlas.io-gpu.json", bad, SpecFormat.JSON)))
        .isInstanceOf(CdiValidationException.class)
        .hasMessage("nodeatlas.io-gpu.json: device \"gpu-0\": invalid container edits: invalid environment variable \"=1\" [rule env]");
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void aSpecThatConflictsWithAnotherFileOfTheDirectoryIsRefused(@TempDir Path dir) throws Exception {
    CdiSpecFile gpu = specs(SyntheticNode.devices()).get(0);
    Files.writeString(dir.resolve("someone-else.json"), writer.renderText(gpu));
    assertThatThrownBy(() -> writer.write(dir, gpu))
        .isInstanceOf(CdiValidationException.class)
        .hasMessageContaining("conflicting device \"nodeatlas.io/gpu=all\" (specs \"" + dir.resolve("nodeatlas.io-gpu.json")
            + "\", \"" + dir.resolve("someone-else.json") + "\") [rule conflict]");
    assertThat(names(dir)).containsExactly("someone-else.json");
  }

  @Test
  void theConflictCheckSeesFilesChangedInPlaceAfterAnEarlierWrite(@TempDir Path dir) throws Exception {
    ClaimCdiSpecs claims = new ClaimCdiSpecs();
    List<Device> gpu0 = SyntheticNode.devices().subList(0, 1);
    writer.write(dir, claims.forClaim("uid-1", gpu0).file().orElseThrow());
    // Another writer's file, valid and harmless when the writer first reads the directory.
    Path other = dir.resolve("other.json");
    CdiSpecFile uid2 = claims.forClaim("uid-2", gpu0).file().orElseThrow();
    String harmless = writer.renderText(claims.forClaim("uid-9", gpu0).file().orElseThrow());
    Files.writeString(other, harmless);
    writer.write(dir, claims.forClaim("uid-3", gpu0).file().orElseThrow());
    // Rewritten in place (same inode, same size) so that it now defines uid-2's device.
    Object inode = Files.getAttribute(other, "unix:ino");
    Files.writeString(other, harmless.replace("uid-9", "uid-2"));
    assertThat(Files.getAttribute(other, "unix:ino")).isEqualTo(inode);

    assertThatThrownBy(() -> writer.write(dir, uid2))
        .isInstanceOf(CdiValidationException.class)
        .hasMessageContaining("conflicting device \"nodeatlas.io/claim=uid-2-" + gpu0.get(0).name() + "\"");
    assertThat(names(dir)).containsExactly("nodeatlas.io-claim_uid-1.json", "nodeatlas.io-claim_uid-3.json", "other.json");
    // Once the other file is gone, the same write goes through.
    Files.delete(other);
    assertThat(writer.write(dir, uid2).outcome()).isEqualTo(CdiSpecWriter.Outcome.WRITTEN);
  }

  @Test
  void reconcileRemovesOurStaleSpecsButNeverOthers(@TempDir Path dir) throws Exception {
    writer.reconcile(dir, specs(SyntheticNode.devices()), generator.ownership());
    assertThat(names(dir)).containsExactly("nodeatlas.io-gpu.json", "nodeatlas.io-hugepages.json", "nodeatlas.io-nic.json",
        "nodeatlas.io-rdma.json", "nodeatlas.io-vf.json");
    // Files of others: another vendor's spec, a file with our prefix but another vendor's kind, a claim spec.
    Files.writeString(dir.resolve("nvidia.yaml"), "cdiVersion: \"0.5.0\"\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n    env: [\"A=1\"]\n");
    Files.writeString(dir.resolve("nodeatlas.io-foreign.json"),
        "{\"cdiVersion\":\"0.3.0\",\"kind\":\"other.example.com/x\",\"devices\":[{\"name\":\"d\",\"containerEdits\":{\"env\":[\"A=1\"]}}]}");
    CdiSpecFile claim = new ClaimCdiSpecs().forClaim("uid-1", SyntheticNode.devices().subList(0, 1)).file().orElseThrow();
    writer.write(dir, claim);
    // What a writer killed mid-write leaves: ours (static spec), the claim writer's, and someone else's.
    Files.writeString(dir.resolve(".nodeatlas.io-gpu.json" + AtomicFiles.TEMP_MARKER + "0123456789ab"), "{ partial");
    Files.writeString(dir.resolve(".nodeatlas.io-claim_uid-7.json" + AtomicFiles.TEMP_MARKER + "0123456789ab"), "{ partial");
    Files.writeString(dir.resolve(".nvidia.yaml" + AtomicFiles.TEMP_MARKER + "0123456789ab"), "{ partial");

    List<Device> gpusOnly = SyntheticNode.devices().stream().filter(d -> d.name().startsWith("gpu-")).toList();
    // A new process's writer (temporary files are a previous process's leftovers, removed by the first reconcile).
    List<CdiSpecWriter.Change> changes = new CdiSpecWriter().reconcile(dir, specs(gpusOnly), generator.ownership());

    assertThat(changes).extracting(c -> c.file().getFileName() + " " + c.outcome()).containsExactly(
        "nodeatlas.io-gpu.json UNCHANGED", "nodeatlas.io-hugepages.json REMOVED", "nodeatlas.io-nic.json REMOVED",
        "nodeatlas.io-rdma.json REMOVED", "nodeatlas.io-vf.json REMOVED");
    assertThat(names(dir)).containsExactly(".nodeatlas.io-claim_uid-7.json" + AtomicFiles.TEMP_MARKER + "0123456789ab",
        ".nvidia.yaml" + AtomicFiles.TEMP_MARKER + "0123456789ab",
        "nodeatlas.io-claim_uid-1.json", "nodeatlas.io-foreign.json", "nodeatlas.io-gpu.json", "nvidia.yaml");
  }

  @Test
  void aPlanChecksWhatAWriteChecksAndChangesNothing(@TempDir Path dir) throws Exception {
    CdiSpecFile gpu = specs(SyntheticNode.devices()).get(0);
    CdiSpecFile rdma = specs(SyntheticNode.devices()).get(3);
    CdiSpecFile sameName = new CdiSpecFile(gpu.fileName(), rdma.spec(), SpecFormat.JSON);
    CdiValidationException planned = catchValidation(() -> writer.planWrite(dir, List.of(gpu, sameName)));
    CdiValidationException written = catchValidation(() -> writer.reconcile(dir, List.of(gpu, sameName), generator.ownership()));
    assertThat(planned.problems()).extracting(CdiProblem::toString)
        .contains("nodeatlas.io-gpu.json: two specs for the same file name [rule file-name]")
        .isEqualTo(written.problems().stream().map(CdiProblem::toString).toList());
    assertThat(dir).isEmptyDirectory();

    writer.reconcile(dir, specs(SyntheticNode.devices()), generator.ownership());
    List<String> before = names(dir);
    List<Device> gpusOnly = SyntheticNode.devices().stream().filter(d -> d.name().startsWith("gpu-")).toList();
    CdiSpecWriter.Plan plan = writer.planReconcile(dir, specs(gpusOnly), generator.ownership());
    assertThat(plan.writes()).extracting(CdiSpecFile::fileName).containsExactly("nodeatlas.io-gpu.json");
    assertThat(plan.removals()).containsExactly("nodeatlas.io-hugepages.json", "nodeatlas.io-nic.json",
        "nodeatlas.io-rdma.json", "nodeatlas.io-vf.json");
    assertThat(names(dir)).isEqualTo(before);
    assertThat(writer.apply(plan)).extracting(CdiSpecWriter.Change::outcome).containsExactly(CdiSpecWriter.Outcome.UNCHANGED,
        CdiSpecWriter.Outcome.REMOVED, CdiSpecWriter.Outcome.REMOVED, CdiSpecWriter.Outcome.REMOVED, CdiSpecWriter.Outcome.REMOVED);
  }

  @Test
  void aLinkWhereASpecGoesIsReplacedNeverWrittenThrough(@TempDir Path root) throws Exception {
    Path dir = Files.createDirectory(root.resolve("cdi"));
    Path victim = Files.writeString(root.resolve("victim"), "precious");
    CdiSpecFile gpu = specs(SyntheticNode.devices()).get(0);
    Files.createSymbolicLink(dir.resolve(gpu.fileName()), victim);

    assertThat(writer.write(dir, gpu).outcome()).isEqualTo(CdiSpecWriter.Outcome.WRITTEN);

    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(Files.isSymbolicLink(dir.resolve(gpu.fileName()))).isFalse();
    assertThat(Files.readString(dir.resolve(gpu.fileName()))).isEqualTo(writer.renderText(gpu));
    // A link with the same content is not "unchanged" either: it is replaced by a file of ours.
    Files.delete(dir.resolve(gpu.fileName()));
    Files.writeString(victim, writer.renderText(gpu));
    Files.createSymbolicLink(dir.resolve(gpu.fileName()), victim);
    assertThat(writer.write(dir, gpu).outcome()).isEqualTo(CdiSpecWriter.Outcome.WRITTEN);
    assertThat(Files.isSymbolicLink(dir.resolve(gpu.fileName()))).isFalse();
    // A dangling link is replaced too, and nothing appears where it pointed.
    Files.delete(dir.resolve(gpu.fileName()));
    Path nowhere = root.resolve("nowhere");
    Files.createSymbolicLink(dir.resolve(gpu.fileName()), nowhere);
    assertThat(writer.write(dir, gpu).outcome()).isEqualTo(CdiSpecWriter.Outcome.WRITTEN);
    assertThat(Files.isSymbolicLink(dir.resolve(gpu.fileName()))).isFalse();
    assertThat(Files.readString(dir.resolve(gpu.fileName()))).isEqualTo(writer.renderText(gpu));
    assertThat(nowhere).doesNotExist();
  }

  @Test
  void aDirectoryThatIsALinkIsRefused(@TempDir Path root) throws Exception {
    Path real = Files.createDirectory(root.resolve("real"));
    Path link = Files.createSymbolicLink(root.resolve("cdi"), real);
    CdiSpecFile gpu = specs(SyntheticNode.devices()).get(0);
    assertThatThrownBy(() -> writer.write(link, gpu)).isInstanceOf(IOException.class).hasMessageContaining("not a directory");
    assertThat(real).isEmptyDirectory();
  }

  private static CdiValidationException catchValidation(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(t).isInstanceOf(CdiValidationException.class);
    return (CdiValidationException) t;
  }

  @Test
  void reconcileChangesNothingWhenOneSpecIsInvalid(@TempDir Path dir) throws Exception {
    writer.reconcile(dir, specs(SyntheticNode.devices()), generator.ownership());
    List<String> before = names(dir);
    CdiSpec bad = new CdiSpec("0.3.0", "nodeatlas.io/gpu", null, List.of(new CdiDevice("gpu-0", CdiContainerEdits.EMPTY)), null);
    assertThatThrownBy(() -> writer.reconcile(dir, List.of(new CdiSpecFile("nodeatlas.io-gpu.json", bad, SpecFormat.JSON)),
        generator.ownership()))
        .isInstanceOf(CdiValidationException.class)
        .hasMessageContaining("invalid device, empty device edits");
    assertThat(names(dir)).isEqualTo(before);
  }

  @Test
  void removeDeletesOneFile(@TempDir Path dir) throws Exception {
    CdiSpecFile gpu = specs(SyntheticNode.devices()).get(0);
    writer.write(dir, gpu);
    assertThat(writer.remove(dir, gpu.fileName())).isTrue();
    assertThat(writer.remove(dir, gpu.fileName())).isFalse();
    assertThat(dir).isEmptyDirectory();
    assertThatThrownBy(() -> writer.remove(dir, "../x.json")).isInstanceOf(IllegalArgumentException.class);
  }
}
