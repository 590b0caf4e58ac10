package io.nodeatlas.cli.doctor;

import io.nodeatlas.agent.doctor.AgentDoctorChecks;
import io.nodeatlas.cdi.doctor.CdiDoctorChecks;
import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.Flag;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.cli.run.RunCommand;
import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.KubeletFacts;
import io.nodeatlas.discovery.doctor.KubeletFactsReader;
import io.nodeatlas.discovery.doctor.NodeLayout;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas doctor}: a preflight of the live node (or of a saved tree, with the root flags) that
 * says what would stop a prepared device from reaching its container, and how to fix it. The checks
 * are the modules' own: the CDI writer's (runtimes, spec files), the agent's (state, kubelet, health)
 * and each selected source's ({@link DiscoverySource#doctorChecks()}). Exit 0 when nothing fails, 1 when
 * something does, 2 for bad usage.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
    description = {"Check this node for what would stop a prepared device from reaching its container, and say how to fix it.",
        "Reads the runtimes' configurations, every CDI spec they read, the agent's state, the kubelet and what each "
            + "device family needs. Exit 0 when nothing fails, 1 when a check fails."})
public final class DoctorCommand implements Callable<Integer>, Flag.Declaring {

  @Spec CommandSpec spec;

  @Mixin DiscoveryOptions discovery = new DiscoveryOptions();

  private final Flag.Table flags = new Flag.Table(RunCommand.DRIVER_NAME, RunCommand.KUBELET_ROOT, RunCommand.CDI_ROOT,
      RunCommand.STATE_DIR, RunCommand.HOOK_PATH, RunCommand.HTTP_PORT, RunCommand.HTTP_ADDRESS);

  @Option(names = {"-o", "--output", "--format"}, paramLabel = "FORMAT", defaultValue = "table",
      description = "Output format: table, json or yaml (default: ${DEFAULT-VALUE}).")
  String format;

  @Override
  public Flag.Table flags() {
    return flags;
  }

  @Override
  public Integer call() {
    DoctorReport.Format fmt = DoctorReport.Format.of(format.toLowerCase(Locale.ROOT))
        .orElseThrow(() -> new UsageException("--output must be table, json or yaml, not " + Excerpt.of(format)));
    HostContext host = discovery.hostContext();
    NodeLayout layout = layout();
    List<DiscoverySource> sources = discovery.selectedSources();
    NodeReport report = NodeDiscovery.run(sources, host);
    KubeletFacts kubelet = KubeletFactsReader.read(host.fs(), layout.kubeletRoot());
    DoctorContext context = new DoctorContext(host, layout, report.devices(), kubelet);
    List<DoctorCheck> checks = new ArrayList<>();
    checks.addAll(CdiDoctorChecks.all());
    checks.addAll(AgentDoctorChecks.all());
    sources.forEach(s -> checks.addAll(s.doctorChecks()));
    DoctorReport result = DoctorReport.run(checks, context, report);
    PrintWriter out = spec.commandLine().getOut();
    out.print(result.render(fmt, host.fs().hostRoot().toString()));
    out.flush();
    return result.anyFailed() ? 1 : 0;
  }

  private NodeLayout layout() {
    String driver = flags.value(RunCommand.DRIVER_NAME);
    String hook = flags.value(RunCommand.HOOK_PATH);
    if (hook == null || !hook.startsWith("/")) {
      throw new UsageException(RunCommand.HOOK_PATH.name() + " must be an absolute path on the host, not " + Excerpt.of(String.valueOf(hook)));
    }
    int port = flags.value(RunCommand.HTTP_PORT);
    String address = flags.value(RunCommand.HTTP_ADDRESS);
    Optional<URI> health = Optional.empty();
    if (port > 0) {
      String hostPart = address.contains(":") && !address.startsWith("[") ? "[" + address + "]" : address;
      try {
        health = Optional.of(URI.create("http://" + hostPart + ":" + port + "/healthz"));
      } catch (IllegalArgumentException e) {
        throw new UsageException(RunCommand.HTTP_ADDRESS.name() + " " + Excerpt.of(address) + " is not an address");
      }
    }
    return new NodeLayout(driver, absolute(RunCommand.CDI_ROOT), absolute(RunCommand.STATE_DIR),
        absolute(RunCommand.KUBELET_ROOT), hook, health);
  }

  private String absolute(Flag<Path> flag) {
    Path p = flags.value(flag);
    if (p == null || !p.isAbsolute()) {
      throw new UsageException(flag.name() + " must be an absolute path as the host names it, not " + p);
    }
    return p.normalize().toString();
  }
}
