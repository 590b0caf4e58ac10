package io.nodeatlas.agent.run;

import static io.nodeatlas.agent.testing.Eventually.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import java.time.Clock;
import java.util.Optional;

/** One agent (two test GPUs) with its loop and a kubelet connected to its sockets; ready once it has discovered. */
final class RunningAgent implements AutoCloseable {
  final Agent agent;
  final Thread loop;
  final FakeKubelet kubelet;

  RunningAgent(AgentSettings settings, KubernetesClient client) throws Exception {
    agent = new Agent(settings, () -> TestDevices.report(TestDevices.gpus(2)), client, s -> { }, Optional.empty(),
        new AgentMetrics("test"), Clock.systemUTC());
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
