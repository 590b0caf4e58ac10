package io.nodeatlas.cli.cdi;

import io.nodeatlas.cdi.CdiSpecFile;
import io.nodeatlas.cdi.CdiSpecGenerator;
import io.nodeatlas.cdi.CdiSpecWriter;
import io.nodeatlas.cdi.CdiValidationException;
import io.nodeatlas.cdi.spec.CdiVersion;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.SavedReport;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas cdi generate}: discovers the node (or reads a saved {@code discover} document) and
 * writes one spec per device class into a CDI directory, atomically, removing our stale specs. Exit 0
 * when written, 1 when a spec is invalid (nothing written), a source failed or a write failed, 2 for
 * bad usage.
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = "Generate this node's CDI specs (one per device class) into a CDI directory.")
public final class CdiGenerateCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin DiscoveryOptions discovery = new DiscoveryOptions();

  // Also --cdi-root, run's name, so the config file's cdiRoot sends both to the same directory.
  @Option(names = {"--output-dir", "--cdi-root"}, paramLabel = "DIR", defaultValue = "${env:NODEATLAS_CDI_DIR:-/var/run/cdi}",
      description = "CDI directory to write to (default: ${DEFAULT-VALUE}; env NODEATLAS_CDI_DIR; config key cdiRoot).")
  Path outputDir;

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "json",
      description = "Spec file format: json or yaml (default: ${DEFAULT-VALUE}).")
  String format;

  @Option(names = "--dry-run", description = "Print what the run would do (would write, unchanged, would remove) and "
      + "the text of each spec it would write; change nothing.")
  boolean dryRun;

  @Option(names = "--vendor", paramLabel = "VENDOR", defaultValue = CdiSpecGenerator.DEFAULT_VENDOR,
      description = "Vendor part of every kind, <vendor>/<class> (default: ${DEFAULT-VALUE}).")
  String vendor;

  @Option(names = "--cdi-version", paramLabel = "VERSION",
      description = "Declare at least this cdiVersion (default: the minimum each spec's content needs; "
          + "a version below that minimum is an error).")
  String cdiVersion;

  @Option(names = "--owner-annotation",
      description = "Mark specs with the annotation nodeatlas.io/owner (needs cdiVersion 0.6.0: podman 4 and "
          + "containerd < 1.7.13 cannot read such specs).")
  boolean ownerAnnotation;

  @Option(names = "--discovered", paramLabel = "FILE",
      description = "Generate from a saved 'nodeatlas discover' JSON document instead of discovering now.")
  Path discovered;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    CdiSpecGenerator generator = generator();
    NodeReport report = report();
    boolean sourceFailed = report.anySourceFailed();
    if (sourceFailed) {
      report.sources().forEach((name, status) -> {
        if (status.isFailed()) {
          err.println("nodeatlas: source " + name + " failed; keeping existing specs, removing none");
        }
      });
    }
    CdiSpecGenerator.Result result;
    try {
      result = generator.generate(report);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
    int withoutEdits = 0;
    for (CdiSpecGenerator.Skipped s : result.skipped()) {
      if (s.reason().equals("no container edits")) {
        withoutEdits++;
      } else {
        err.println("nodeatlas: device " + s.device() + " gets no CDI device: " + s.reason());
      }
    }
    if (withoutEdits > 0) {
      err.println("nodeatlas: " + withoutEdits + " device(s) without container edits get no CDI device");
    }
    CdiSpecWriter writer = new CdiSpecWriter();
    try {
      // One plan, made by the writer's own checks, for the dry run and the real run alike.
      CdiSpecWriter.Plan plan = sourceFailed ? writer.planWrite(outputDir, result.specs())
          : writer.planReconcile(outputDir, result.specs(), generator.ownership());
      if (dryRun) {
        dryRun(writer, plan, out);
      } else {
        List<CdiSpecWriter.Change> changes = writer.apply(plan);
        Map<Path, CdiSpecFile> byPath = new LinkedHashMap<>();
        result.specs().forEach(f -> byPath.put(outputDir.resolve(f.fileName()), f));
        changes.forEach(c -> report(out, c, byPath.get(c.file())));
      }
    } catch (CdiValidationException e) {
      err.println("nodeatlas: not writing invalid CDI specs:");
      e.problems().forEach(p -> err.println("  " + p));
      err.flush();
      out.flush();
      return 1;
    } catch (IOException e) {
      // The directory as the user set it: typed, or from NODEATLAS_CDI_DIR or the config file's cdiRoot.
      picocli.CommandLine.Model.OptionSpec dirOption = spec.findOption("--output-dir");
      String where = dirOption == null || io.nodeatlas.cli.ValueSource.typed(dirOption) ? outputDir.toString()
          : io.nodeatlas.cli.ValueSource.describe(dirOption, outputDir.toString());
      err.println("nodeatlas: cannot write CDI specs to " + where + ": " + io.nodeatlas.cli.Messages.reason(e));
      err.flush();
      out.flush();
      return 1;
    }
    if (result.specs().isEmpty()) {
      err.println("nodeatlas: no device with container edits: no CDI spec");
    }
    out.flush();
    err.flush();
    return sourceFailed ? 1 : 0;
  }

  private CdiSpecGenerator generator() {
    SpecFormat specFormat = switch (format.toLowerCase(Locale.ROOT)) {
      case "json" -> SpecFormat.JSON;
      case "yaml" -> SpecFormat.YAML;
      default -> throw new UsageException("--format must be json or yaml, not \"" + format + "\"");
    };
    CdiVersion version = null;
    if (cdiVersion != null) {
      version = CdiVersion.parse(cdiVersion).orElseThrow(() -> new UsageException(
          "--cdi-version \"" + cdiVersion + "\" is not a CDI version (0.3.0 ... " + CdiVersion.CURRENT + ")"));
    }
    try {
      return CdiSpecGenerator.builder().vendor(vendor).cdiVersion(version).format(specFormat)
          .ownerAnnotation(ownerAnnotation).build();
    } catch (IllegalArgumentException e) {
      throw new UsageException("--vendor: " + e.getMessage(), e);
    }
  }

  private NodeReport report() {
    if (discovered == null) {
      return NodeDiscovery.run(discovery.selectedSources(), discovery.hostContext());
    }
    return SavedReport.readForOption("--discovered", discovered);
  }

  /** What the real run would print, each line with "would" (an unchanged file is "unchanged" in both), and each new text. */
  private void dryRun(CdiSpecWriter writer, CdiSpecWriter.Plan plan, PrintWriter out) throws IOException {
    for (CdiSpecFile f : plan.writes()) {
      if (writer.isUnchanged(outputDir, f)) {
        out.println("unchanged " + outputDir.resolve(f.fileName()) + " " + summary(f));
        continue;
      }
      out.println("would write " + outputDir.resolve(f.fileName()) + " " + summary(f));
      out.print(new String(writer.render(f), StandardCharsets.UTF_8));
    }
    for (String name : plan.removals()) {
      out.println("would remove " + outputDir.resolve(name));
    }
  }

  private static void report(PrintWriter out, CdiSpecWriter.Change c, CdiSpecFile f) {
    String verb = switch (c.outcome()) {
      case WRITTEN -> "wrote";
      case UNCHANGED -> "unchanged";
      case REMOVED -> "removed";
    };
    out.println(verb + " " + c.file() + (f == null ? "" : " " + summary(f)));
  }

  private static String summary(CdiSpecFile f) {
    return "(" + f.spec().kind() + ", cdiVersion " + f.spec().cdiVersion() + ", " + f.spec().devices().size() + " devices)";
  }
}
