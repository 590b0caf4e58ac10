package io.nodeatlas.agent.testing;

import static io.nodeatlas.agent.testing.Eventually.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.run.Agent;
import io.nodeatlas.agent.run.AgentSettings;
import io.nodeatlas.agent.run.ClusterOptions;
import java.time.Clock;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** One agent (two test GPUs) with its loop and a kubelet connected to its sockets; ready once it has discovered. */
public final class RunningAgent implements AutoCloseable {
  public final Agent agent;
  public final Thread loop;
  public final FakeKubelet kubelet;

  public RunningAgent(AgentSettings settings, KubernetesClient client) throws Exception {
    this(settings, client, o -> o);
  }

  /** {@code options}: cluster mode's options ({@link ClusterOptions}) for this agent. */
  public RunningAgent(AgentSettings settings, KubernetesClient client, UnaryOperator<ClusterOptions> options)
      throws Exception {
    agent = new Agent(settings, () -> TestDevices.report(TestDevices.gpus(2)), client, s -> { }, Optional.empty(),
        new AgentMetrics("test"), Clock.systemUTC()).options(options);
    agent.start();
    loop = new Thread(agent::run, "agent-loop");
    loop.start();
    KubeletPaths paths = new KubeletPaths(settings.kubeletRoot(), "nodeatlas.io");
    kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket());
    // Prepare needs the devices: wait for the first discovery to have filled the inventory.
    await(agent::hasDiscovered);
  }

  @Override
  public void close() throws Exception {
    kubelet.close();
    agent.requestStop();
    loop.join(20_000);
    agent.close();
  }
}
