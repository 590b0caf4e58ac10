package io.nodeatlas.agent.claims;

import io.nodeatlas.cdi.CdiSpecGenerator;
import io.nodeatlas.cdi.CdiSpecWriter;
import io.nodeatlas.cdi.CdiValidationException;
import io.nodeatlas.cdi.ClaimCdiSpecs;
import io.nodeatlas.discovery.model.Device;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The only place the agent touches the CDI library: per-claim transient specs
 * ({@code nodeatlas.io-claim_<uid>.json} in the CDI dir, devices named {@code <uid>-<device>} so two
 * claims never define the same CDI name; KEP-4381: Prepare answers CDI device ids) and the static
 * per-class specs of standalone mode.
 */
public final class ClaimSpecStore implements ClaimSpecs {

  private final Path cdiRoot;
  private final ClaimCdiSpecs claimSpecs = new ClaimCdiSpecs();
  private final CdiSpecWriter writer = new CdiSpecWriter();

  public ClaimSpecStore(Path cdiRoot) {
    this.cdiRoot = cdiRoot;
  }

  @Override
  public Map<String, List<String>> write(ClaimRef claim, List<Device> devices) throws IOException {
    ClaimCdiSpecs.ClaimSpec spec = claimSpecs.forClaim(claim.uid(), devices);
    if (spec.file().isPresent()) {
      try {
        writer.write(cdiRoot, spec.file().get());
      } catch (CdiValidationException e) {
        throw new IOException("the CDI spec for claim " + claim + " is invalid: " + e.getMessage(), e);
      }
    }
    return spec.cdiDeviceIds();
  }

  /**
   * Removes the temporary files that a killed agent left while writing claim specs or the static specs
   * (never other writers' files). For start-up, before any Prepare or reconcile of this process runs.
   */
  public List<Path> removeStaleTemporaryFiles() throws IOException {
    List<Path> removed = new java.util.ArrayList<>(writer.removeStaleTemporaryFiles(cdiRoot, claimSpecs.ownership()));
    removed.addAll(writer.removeStaleTemporaryFiles(cdiRoot, CdiSpecGenerator.builder().build().ownership()));
    return removed;
  }

  @Override
  public void remove(String claimUid) throws IOException {
    writer.remove(cdiRoot, claimSpecs.fileName(claimUid));
  }

  /**
   * Standalone mode: makes the CDI dir hold exactly the static per-class specs of {@code devices}
   * among the static files we own (claim specs are not touched). Returns the number of files changed.
   */
  public int reconcileStatic(List<Device> devices) throws IOException {
    CdiSpecGenerator generator = CdiSpecGenerator.builder().build();
    try {
      return (int) writer.reconcile(cdiRoot, generator.generate(devices).specs(), generator.ownership()).stream()
          .filter(c -> c.outcome() != CdiSpecWriter.Outcome.UNCHANGED).count();
    } catch (CdiValidationException e) {
      throw new IOException("the static CDI specs are invalid: " + e.getMessage(), e);
    }
  }
}
