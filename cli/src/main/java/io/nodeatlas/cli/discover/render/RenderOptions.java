package io.nodeatlas.cli.discover.render;

import io.nodeatlas.cli.Flag;
import io.nodeatlas.cli.SavedReport;
import io.nodeatlas.discovery.report.NodeReport;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The flags of {@code discover}'s pictures ({@code -o tree}, {@code -o svg}), mixed into the command,
 * and {@code --discovered}, which draws a saved report instead of this host: both views read nothing
 * but the {@link NodeReport}, so a report saved on one node can be drawn on another.
 */
public final class RenderOptions implements Flag.Declaring {

  static final Flag<ColorMode> COLOR = Flag.of("--color", "WHEN", ColorMode.class, "NODEATLAS_COLOR", "auto",
      "Colours in -o tree: auto (only on a terminal, never with NO_COLOR set or TERM=dumb), always or never");
  static final Flag<Boolean> CACHES = Flag.of("--caches", "", boolean.class, "NODEATLAS_CACHES", "false",
      "-o tree: show the caches level by level instead of one line per NUMA node or package");
  static final Flag<Boolean> WHOLE_PCI = Flag.of("--whole-pci", "", boolean.class, "NODEATLAS_WHOLE_PCI", "false",
      "-o tree and -o svg: show every PCI function, also bridges and endpoints that lead to no published device");

  private final Flag.Table flags = new Flag.Table(COLOR, CACHES, WHOLE_PCI);

  @Option(names = "--discovered", paramLabel = "FILE.json",
      description = "Print this saved `discover -o json` document (in any format) instead of discovering the host.")
  Path discovered;

  @Override
  public Flag.Table flags() {
    return flags;
  }

  /** The saved report given with {@code --discovered}; a bad file is a usage error. */
  public Optional<NodeReport> saved() {
    return discovered == null ? Optional.empty() : Optional.of(SavedReport.readForOption("--discovered", discovered));
  }

  /** {@code -o tree} for output going to {@code terminal}. */
  public String tree(NodeReport report, Terminal terminal) {
    TreeRenderer.Options o = new TreeRenderer.Options(flags.value(COLOR).colours(terminal), flags.value(CACHES),
        flags.value(WHOLE_PCI));
    return new TreeRenderer(o).render(report);
  }

  /** {@code -o svg}. */
  public String svg(NodeReport report) {
    return new SvgRenderer(flags.value(WHOLE_PCI)).render(report);
  }
}
