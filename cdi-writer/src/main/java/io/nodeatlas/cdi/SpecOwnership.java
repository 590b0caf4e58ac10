package io.nodeatlas.cdi;

import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.model.Names;

/**
 * Which spec files of a CDI directory one of our writers owns and may therefore replace or remove. A
 * file is ours when both its name and its content say so:
 * <ul>
 *   <li>the name starts with {@code fileNamePrefix}, does not start with {@code excludedPrefix} (so the
 *       static specs' reconcile leaves the per-claim files alone) and ends in .json or .yaml;</li>
 *   <li>the content carries {@link #OWNER_ANNOTATION} with value {@link #OWNER}, or, when it carries no
 *       such annotation, its kind's vendor is ours. Annotations need cdiVersion ≥ 0.6.0, which podman
 *       4.x and containerd &lt; 1.7.13 cannot read (their CDI libraries predate spec v0.6.0), so by default our specs are recognised by
 *       vendor and the annotation is opt-in; a file annotated for another owner is never ours.</li>
 * </ul>
 */
public record SpecOwnership(String vendor, String fileNamePrefix, String excludedPrefix) {

  /** Annotation key that marks a spec as written by nodeatlas (opt-in, see the class comment). */
  public static final String OWNER_ANNOTATION = Names.ours("owner");
  public static final String OWNER = "nodeatlas";

  public SpecOwnership {
    if (vendor == null || vendor.isEmpty() || fileNamePrefix == null || fileNamePrefix.isEmpty()) {
      throw new IllegalArgumentException("ownership needs a vendor and a file name prefix");
    }
  }

  /** Whether a file of this name may be one of ours (the content must still be checked). */
  public boolean ownsName(String fileName) {
    return fileName.startsWith(fileNamePrefix)
        && (excludedPrefix == null || !fileName.startsWith(excludedPrefix))
        && SpecFormat.ofFileName(fileName).isPresent();
  }

  /** Whether the content marks the spec as ours. */
  public boolean ownsContent(CdiSpec spec) {
    String owner = spec.annotations().get(OWNER_ANNOTATION);
    if (owner != null) {
      return owner.equals(OWNER);
    }
    return spec.vendor().equals(vendor);
  }
}
