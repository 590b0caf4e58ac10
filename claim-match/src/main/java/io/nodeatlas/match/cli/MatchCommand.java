package io.nodeatlas.match.cli;

import picocli.CommandLine.Command;

/** {@code nodeatlas match}: evaluate DRA selectors against this node (issue 7 implements it). */
@Command(name = "match", mixinStandardHelpOptions = true,
    description = "Evaluate DeviceClass and ResourceClaim CEL selectors against this node's devices.")
public final class MatchCommand implements Runnable {
  @Override
  public void run() {
    throw new io.nodeatlas.cli.UsageException("match is not available in this build yet");
  }
}
