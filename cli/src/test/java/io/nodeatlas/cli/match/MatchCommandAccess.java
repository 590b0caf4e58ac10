package io.nodeatlas.cli.match;

import io.nodeatlas.cli.fleet.FleetInput;
import io.nodeatlas.match.claims.ClaimInputException;
import io.nodeatlas.match.claims.ClaimModel.Documents;

/** The bench's way to the merge of the files' and the cluster's DeviceClasses that {@code match} does. */
public final class MatchCommandAccess {
  private MatchCommandAccess() {}

  public static Documents withClusterClasses(Documents files, FleetInput input) throws ClaimInputException {
    return MatchCommand.withClusterClasses(files, input);
  }
}
