package io.nodeatlas.cli.testing;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.DeviceDraft;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.host.SourceSetting;
import java.util.List;

/**
 * A source that exists only in the tests, with settings of every type that no other module knows:
 * it proves that the command line registers whatever an installed source declares. It publishes one
 * device, {@code echo-0}, whose attributes are the values its settings had.
 */
public final class EchoSource implements DiscoverySource {

  public static final String NAME = "echo";

  public static final SourceSetting TEXT = new SourceSetting(NAME, "text", "--echo-text", List.of("--echo-words"),
      "NODEATLAS_TEST_ECHO_TEXT", SourceSetting.Type.STRING, "hello", "What the echo device says.");
  public static final SourceSetting LOUD = SourceSetting.bool(NAME, "loud", "--echo-loud", "NODEATLAS_TEST_ECHO_LOUD",
      false, "Whether it shouts.");
  public static final SourceSetting COUNT = new SourceSetting(NAME, "count", "--echo-count", List.of(),
      "NODEATLAS_TEST_ECHO_COUNT", SourceSetting.Type.INTEGER, "1", "How often it says it.");
  public static final SourceSetting DIR = SourceSetting.path(NAME, "dir", "--echo-dir", "NODEATLAS_TEST_ECHO_DIR",
      "Where it listens, 100% of the time.");

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<SourceSetting> settings() {
    return List.of(TEXT, LOUD, COUNT, DIR);
  }

  @Override
  public DiscoveryResult discover(HostContext host) {
    DiscoveryResult.Builder result = new DiscoveryResult.Builder(NAME);
    DeviceDraft.of("echo-0", NAME, result::warn)
        .attribute(Names.ours("type"), "echo")
        .attribute(Names.ours("text"), host.options().get(TEXT))
        .attribute(Names.ours("loud"), host.options().flag(LOUD))
        .attribute(Names.ours("count"), Long.parseLong(host.options().get(COUNT).orElseThrow()))
        .attribute(Names.ours("dir"), host.options().get(DIR).orElse("-"))
        .build().ifPresent(result::device);
    return result.build();
  }
}
