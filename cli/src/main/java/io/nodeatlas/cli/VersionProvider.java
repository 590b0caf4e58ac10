package io.nodeatlas.cli;

import picocli.CommandLine.IVersionProvider;

/** picocli's version provider: {@link Version}'s lines. */
final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() {
    return Version.lines();
  }
}
