package io.nodeatlas.agent.testing;

import io.nodeatlas.agent.ops.LogSetup;
import io.nodeatlas.agent.run.AgentLauncher;
import io.nodeatlas.agent.run.AgentSettings;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The agent as its own process for tests that need one (a small heap, a kill): {@code nodeatlas run}
 * in cluster mode through {@link AgentLauncher}, discovering {@code gpus} fake GPUs.
 *
 * <p>Arguments: {@code <kubeconfig> <kubelet root> <cdi root> <state dir> <gpus> [<checkpoint journal: true|false>]}.
 */
public final class AgentMain {

  private AgentMain() {}

  public static void main(String[] args) throws Exception {
    int gpus = Integer.parseInt(args[4]);
    int status = AgentLauncher.builder()
        .driverName("nodeatlas.io").nodeName("node-a").kubeconfig(Path.of(args[0]))
        .kubeletRoot(Path.of(args[1])).cdiRoot(Path.of(args[2])).stateDir(Path.of(args[3]))
        .httpPort(0).healthcheckPort(-1)
        .resyncInterval(Duration.ofMinutes(10)).drainTimeout(Duration.ofSeconds(1))
        .logFormat(LogSetup.Format.TEXT).verbosity(0)
        .discovery(() -> TestDevices.report(TestDevices.gpus(gpus))).environment(java.util.Map.of())
        .checkpointJournal(args.length > 5 ? Boolean.parseBoolean(args[5]) : AgentSettings.DEFAULT_CHECKPOINT_JOURNAL)
        .build()
        .run();
    System.exit(status);
  }
}
