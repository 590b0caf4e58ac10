package io.nodeatlas.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest ({@code Implementation-Version}), or {@code dev} when run from classes. */
final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = NodeAtlasCommand.class.getPackage().getImplementationVersion();
    return new String[] {"nodeatlas " + (v == null ? "dev" : v)};
  }
}
